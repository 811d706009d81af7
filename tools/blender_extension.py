"""`blender --command extension ...` from the `bpy` module: Blender's own extension tool (build,
validate, ...), which the bpy wheel carries. Run it from the repository root:

    python tools/blender_extension.py build          (writes mocap_io-<version>.zip here)
    python tools/blender_extension.py validate mocap_io-0.1.0.zip
"""

import sys

import bpy  # noqa: F401  (puts Blender's bundled add-ons, bl_pkg among them, on sys.path)
from bl_pkg.bl_extension_cli import cli_extension_handler

if __name__ == "__main__":
    sys.exit(cli_extension_handler(sys.argv[1:]))
