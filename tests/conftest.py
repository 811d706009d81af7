"""Make the repository importable as the package `mocap_io`, and the test helpers importable."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools"))

from package import import_package  # noqa: E402

import_package()
