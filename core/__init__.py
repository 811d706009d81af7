"""Motion-capture and animated-mesh I/O without Blender: numpy and the standard library only.

``read(path)`` / ``write(data, path)`` choose the format by extension; readers raise
``ParseError`` (a ValueError naming file, line or byte offset, and what was expected).
"""

import importlib

from . import rotations
from .errors import ParseError
from .formats import read, write
from .motion import Motion
from .skeleton import Skeleton

__all__ = ["ParseError", "Motion", "Skeleton", "read", "rotations", "write"]

_FORMAT_MODULES = ("asf", "bvh", "memg", "memg_encode", "obj", "pc2")


def __getattr__(name):
    """`core.bvh`, `core.pc2`, ...: the format modules (in `core.formats`), loaded when first used."""
    if name in _FORMAT_MODULES:
        return importlib.import_module(f".formats.{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
