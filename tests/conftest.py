"""Make the repository importable as the package `mocap_io` (the name Blender gives it is
`bl_ext.<repo>.mocap_io`; every import inside is relative, so any name works)."""

import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
_PACKAGE_DIR = pathlib.Path(tempfile.mkdtemp(prefix="mocap_io_pkg_"))
(_PACKAGE_DIR / "mocap_io").symlink_to(ROOT, target_is_directory=True)
sys.path.insert(0, str(_PACKAGE_DIR))
sys.path.insert(0, str(ROOT / "tests"))
