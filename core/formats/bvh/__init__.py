"""Biovision Hierarchy (.bvh): reader and writer."""

from .reader import read_bvh
from .writer import write_bvh

__all__ = ["read_bvh", "write_bvh"]
