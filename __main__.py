"""`python -m mocap_io`: the `mocap-io` command line (no Blender needed)."""

import sys

from .cli import main

sys.exit(main())
