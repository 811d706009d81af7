"""Rotation math, vectorised over any leading shape.

Conventions: angles in radians; column vectors (``p' = R @ p``); quaternions (w, x, y, z) as in
mathutils. An Euler `order` lists the axes in the order their matrices are multiplied, left to
right: order "ZXY" means ``R = Rz(a[0]) @ Rx(a[1]) @ Ry(a[2])`` (the BVH channel convention,
intrinsic rotations). Blender's Euler order string is the reverse: mathutils
``Euler((x, y, z), "XYZ")`` equals order "ZYX" with angles (z, y, x).
"""

import numpy as np

_AXES = {"X": 0, "Y": 1, "Z": 2}


def _axis_indices(order):
    order = order.upper()
    if sorted(order) != ["X", "Y", "Z"]:
        raise ValueError(f"Euler order must be a permutation of XYZ, not {order!r}")
    return [_AXES[a] for a in order]


def axis_rotation(axis, angle):
    """Rotation matrices (..., 3, 3) by `angle` about the coordinate axis 'X', 'Y' or 'Z'."""
    angle = np.asarray(angle, dtype=float)
    i = _AXES[axis.upper()]
    j, k = (i + 1) % 3, (i + 2) % 3
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros(angle.shape + (3, 3))
    m[..., i, i] = 1.0
    m[..., j, j] = c
    m[..., k, k] = c
    m[..., j, k] = -s
    m[..., k, j] = s
    return m


def euler_to_matrix(angles, order):
    """Matrices (..., 3, 3) from Euler angles (..., 3); angles[..., i] turns about axis order[i]."""
    angles = np.asarray(angles, dtype=float)
    _axis_indices(order)
    m = axis_rotation(order[0], angles[..., 0])
    m = m @ axis_rotation(order[1], angles[..., 1])
    return m @ axis_rotation(order[2], angles[..., 2])
