"""Motion Analysis HTR (Hierarchical Translation-Rotation) and GTR (its global variant): reader,
writer, and the conversions from and to BVH's identity rest pose. See docs/htr.md.

A file: `[Header]` (keyword value lines), `[SegmentNames&Hierarchy]` (child parent, GLOBAL for a
root; GTR has none: every segment is global), `[BasePosition]` (name Tx Ty Tz Rx Ry Rz BoneLength),
one `[segment]` block per segment of NumFrames rows `Frame# Tx Ty Tz Rx Ry Rz SF`, `[EndOfFile]`
(Meredith and Maddock, "Motion Capture File Formats Explained", section 3.2). Section names and
keywords in any case, `#` comments anywhere, tabs or spaces, CRLF.

In the Motion: offsets = base translations, rest_rotations = base rotations R0, translations =
base + frame translations, euler = frame rotations, scales = SF, so the local transform is
``T @ R0 @ R @ S`` (their eq. 3.6). SF sizes the segment itself (its bone, End Site), not its
children: a child's translation already holds the segment length SF describes (docs/htr.md has
the evidence). Lengths stay in file units; `motion.record` is an HtrRecord (CalibrationUnits, the
header ScaleFactor, what the writer needs to write the file back as read).
"""

from .convert import bone_lengths, bvh_to_htr, htr_to_bvh
from .header import HEADER_KEYS, METRES_PER_UNIT, READINGS, HtrRecord, metres_per_unit
from .reader import read_htr
from .writer import write_gtr, write_htr

__all__ = [
    "HEADER_KEYS",
    "METRES_PER_UNIT",
    "READINGS",
    "HtrRecord",
    "bone_lengths",
    "bvh_to_htr",
    "htr_to_bvh",
    "metres_per_unit",
    "read_htr",
    "write_gtr",
    "write_htr",
]
