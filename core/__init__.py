"""Motion-capture and animated-mesh I/O without Blender: numpy and the standard library only.

``read(path)`` / ``write(data, path)`` choose the format by extension; readers raise
``ParseError`` (a ValueError naming file, line or byte offset, and what was expected).
``resample(motion, fps)``, ``retarget(motion, skeleton)`` and ``auto_map(source, target)`` work on
the model; ``fill_gaps(markers)`` fills marker gaps, ``filter_markers(markers, cutoff)`` low-pass
filters them without lag.
"""

import importlib
from types import ModuleType

from . import rotations
from .bone_map import auto_map
from .errors import ParseError
from .filtering import filter_markers
from .formats import read, write
from .gaps import fill_gaps
from .markers import Markers
from .motion import Motion
from .resample import resample
from .retarget import retarget
from .skeleton import Skeleton

__all__ = [
    "Markers",
    "Motion",
    "ParseError",
    "Skeleton",
    "auto_map",
    "fill_gaps",
    "filter_markers",
    "read",
    "resample",
    "retarget",
    "rotations",
    "write",
]

_FORMAT_MODULES = ("asf", "bvh", "c3d", "htr", "memg", "obj", "pc2", "trc")


def __getattr__(name: str) -> ModuleType:
    """`core.bvh`, `core.pc2`, ...: the format modules (in `core.formats`), loaded when first used."""
    if name in _FORMAT_MODULES:
        return importlib.import_module(f".formats.{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
