"""`python -m mocap_io`: the `mocap-io` command line (no Blender needed)."""

from .cli import run

run()
