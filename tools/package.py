"""Import this repository as the package `mocap_io` from scripts and tests.

Blender installs the extension as `bl_ext.<repo>.mocap_io`; every import inside it is relative, so
any name works. Outside Blender we expose the repository root under the name `mocap_io` through
a symlink in a temporary directory put on sys.path.
"""

import atexit
import importlib
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def import_package():
    """Return the `mocap_io` package (the repository root) with its `core` loaded."""
    if "mocap_io" not in sys.modules:
        folder = pathlib.Path(tempfile.mkdtemp(prefix="mocap_io_pkg_"))
        (folder / "mocap_io").symlink_to(ROOT, target_is_directory=True)
        sys.path.insert(0, str(folder))
    importlib.import_module("mocap_io.core")
    return sys.modules["mocap_io"]


_registered = []


def register_addon():
    """Register the add-on in the running `bpy` module (once), and unregister it at exit (bpy 4.2
    crashes at exit while extension classes are still registered)."""
    package = import_package()
    if not _registered:
        package.register()
        atexit.register(package.unregister)
        _registered.append(package)
    return package
