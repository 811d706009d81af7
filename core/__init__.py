"""Motion-capture and animated-mesh I/O without Blender: numpy and the standard library only.

``read(path)`` / ``write(data, path)`` choose the format by extension; readers raise
``ParseError`` (a ValueError naming file, line or byte offset, and what was expected).
"""

from .errors import ParseError
from .formats import read, write
from .motion import Motion
from . import rotations
from .skeleton import Skeleton

__all__ = ["ParseError", "Motion", "Skeleton", "read", "rotations", "write"]
