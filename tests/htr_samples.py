"""A small HTR written by hand (not by our writer) and its numbers, for the tests and the fuzz seeds."""

import numpy as np

# segment: (parent, base Tx Ty Tz Rx Ry Rz BoneLength, frame rows Tx Ty Tz Rx Ry Rz SF); ZXY, degrees
SEGMENTS = {
    "Hips": (
        None,
        [1, 90, 2, 10, 20, 30, 12],
        [[0] * 6 + [1], [1.5, -2, 0.5, 10, -20, 30, 1.1], [3, -4, 1, 20, -40, 60, 0.9]],
    ),
    "Chest": (
        "Hips",
        [0, 12, 0, -5, 0, 15, 30],
        [[0] * 6 + [1], [0, 1.2, 0, 45, 0, -10, 1.05], [0, -1.2, 0, -45, 30, 10, 0.95]],
    ),
    "Head": ("Chest", [0.5, 30, -0.5, 0, 45, 0, 20], [[0] * 6 + [1], [0, 0, 0, 5, 5, 5, 1], [0, 0, 0, -5, -5, -5, 1]]),
}

SAMPLE = """# a comment before the header
[Header]   # keywords in any case
FileType htr
DataType HTRS
FileVersion 1
numsegments 3
NumFrames 3
DataFrameRate 30
EulerRotationOrder ZXY
CalibrationUnits cm
RotationUnits Degrees
GlobalAxisofGravity Y
BoneLengthAxis Y
ScaleFactor 1.000000

[SegmentNames&Hierarchy]
#CHILD\tPARENT
Chest\tHips
Hips\tGLOBAL
Head   Chest
[BASEPOSITION]
#SegmentName Tx Ty Tz Rx Ry Rz BoneLength
Hips\t1.0\t90.0\t2.0\t10.0\t20.0\t30.0\t12.0
Chest\t0.0\t12.0\t0.0\t-5.0\t0.0\t15.0\t30.0
Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0
#Beginning of Data
[Hips]
#Fr Tx Ty Tz Rx Ry Rz SF
1\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\t1.0
2\t1.5\t-2.0\t0.5\t10.0\t-20.0\t30.0\t1.1
3\t3.0\t-4.0\t1.0\t20.0\t-40.0\t60.0\t0.9
[Chest]
1 0 0 0 0 0 0 1
2 0 1.2 0 45 0 -10 1.05

3 0 -1.2 0 -45 30 10 0.95   # a comment after a row
[Head]
#Fr Tx Ty Tz Rx Ry Rz SF
1 0 0 0 0 0 0 1
2 0 0 0 5 5 5 1
3 0 0 0 -5 -5 -5 1
[EndOfFile]
"""


def axis_matrix(axis, degrees):
    """4x4 rotation about a coordinate axis (column vectors), written out as in Meredith and Maddock's
    section 2.2."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    matrices = {
        "X": [[1, 0, 0], [0, c, -s], [0, s, c]],
        "Y": [[c, 0, s], [0, 1, 0], [-s, 0, c]],
        "Z": [[c, -s, 0], [s, c, 0], [0, 0, 1]],
    }
    out = np.eye(4)
    out[:3, :3] = matrices[axis]
    return out


def transforms_by_equations(segments, order, bone_axis=1):
    """World matrices {name: [(4, 4) per frame]} and segment tips {name: [(3,) per frame]} by the
    equations of Meredith and Maddock, "Motion Capture File Formats Explained", one frame and one
    segment at a time: local M = T R0 R S (section 3.2, eqs. 3.4-3.6) with
    R = R_order[0] R_order[1] R_order[2] (eq. 2.2), global = parent global @ local (eq. 2.4), where
    S scales the segment's own vertices (the drawn bone, figure 4.5), not its children."""
    worlds, tips = {}, {}
    for name, (parent, base, rows) in segments.items():
        worlds[name], tips[name] = [], []
        for f, row in enumerate(rows):
            translation = np.eye(4)
            translation[:3, 3] = np.add(base[:3], row[:3])
            r0, r = np.eye(4), np.eye(4)
            for axis in order:
                r0 = r0 @ axis_matrix(axis, base[3 + "XYZ".index(axis)])
                r = r @ axis_matrix(axis, row[3 + "XYZ".index(axis)])
            world = translation @ r0 @ r
            if parent is not None:
                world = worlds[parent][f] @ world
            worlds[name].append(world)
            scale = np.diag([row[6]] * 3 + [1.0])
            bone = np.zeros(4)
            bone[bone_axis], bone[3] = base[6], 1.0
            tips[name].append((world @ scale @ bone)[:3])
    return worlds, tips
