"""C3D (.c3d): reader and writer."""

from .reader import read_c3d
from .writer import write_c3d

__all__ = ["read_c3d", "write_c3d"]
