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


def matrix_to_euler(m, order):
    """Euler angles (..., 3) in `order` of rotation matrices (..., 3, 3); inverse of euler_to_matrix.

    The middle angle lies in [-pi/2, pi/2]; at gimbal lock the last angle is 0.
    """
    m = np.asarray(m, dtype=float)
    i, j, k = _axis_indices(order)
    parity = 1.0 if (j - i) % 3 == 1 else -1.0  # +1 for cyclic orders (XYZ, YZX, ZXY)
    sin_middle = np.clip(parity * m[..., i, k], -1.0, 1.0)
    middle = np.arcsin(sin_middle)
    cos_middle = np.sqrt(np.maximum(0.0, 1.0 - sin_middle ** 2))
    locked = cos_middle < 1e-9
    first = np.where(locked, np.arctan2(parity * m[..., k, j], m[..., j, j]),
                     np.arctan2(-parity * m[..., j, k], m[..., k, k]))
    last = np.where(locked, 0.0, np.arctan2(-parity * m[..., i, j], m[..., i, i]))
    return np.stack([first, middle, last], axis=-1)


def quat_normalize(q):
    """Unit quaternions (..., 4)."""
    q = np.asarray(q, dtype=float)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_to_matrix(q):
    """Rotation matrices (..., 3, 3) of unit quaternions (w, x, y, z)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1)], axis=-2)


def matrix_to_quat(m):
    """Unit quaternions (..., 4), w >= 0, of rotation matrices (..., 3, 3) (Shepperd's method)."""
    m = np.asarray(m, dtype=float)
    diagonal = np.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], axis=-1)
    trace = diagonal.sum(axis=-1)
    candidates = np.concatenate([trace[..., None], diagonal], axis=-1)
    choice = np.argmax(candidates, axis=-1)
    # branch b computes 4 * (the b-th component) * q from the largest of w, x, y, z
    w = 1 + trace
    x, y, z = np.moveaxis(1 + 2 * diagonal - trace[..., None], -1, 0)
    branches = np.stack([
        np.stack([w, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], -1),
        np.stack([m[..., 2, 1] - m[..., 1, 2], x, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0]], -1),
        np.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0], y, m[..., 1, 2] + m[..., 2, 1]], -1),
        np.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], z], -1)],
        axis=-2)
    q = np.take_along_axis(branches, choice[..., None, None], axis=-2)[..., 0, :]
    q = quat_normalize(q)
    return np.where(q[..., :1] < 0, -q, q)


def axis_angle_to_quat(axis, angle):
    """Quaternions (..., 4) turning by `angle` (...) about `axis` (..., 3)."""
    axis = np.asarray(axis, dtype=float)
    half = 0.5 * np.asarray(angle, dtype=float)
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = np.divide(axis, norm, out=np.zeros_like(axis), where=norm > 0)
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * unit], axis=-1)


def unwrap_euler(angles, axis=0):
    """Euler angles with the 360-degree jumps along `axis` (time) removed."""
    return np.unwrap(np.asarray(angles, dtype=float), axis=axis)


def quat_continuity(q, axis=0):
    """Quaternions with signs flipped so that neighbours along `axis` have a non-negative dot product."""
    q = np.moveaxis(np.asarray(q, dtype=float), axis, 0)
    if len(q) < 2:
        return np.moveaxis(q.copy(), 0, axis)
    dots = np.sum(q[1:] * q[:-1], axis=-1)
    signs = np.concatenate([np.ones((1,) + dots.shape[1:]), np.cumprod(np.where(dots < 0, -1.0, 1.0), axis=0)])
    return np.moveaxis(q * signs[..., None], 0, axis)


def sandwich(left, matrices, right):
    """``left @ matrices @ right`` for a stack (..., 3, 3) and constant 3x3 factors, as one GEMM.

    The product is linear in each matrix: flattened row-major it is ``m @ kron(left, right.T).T``,
    much faster than broadcasting small matrix products over the stack.
    """
    matrices = np.asarray(matrices, dtype=float)
    flat = matrices.reshape(-1, 9) @ np.kron(left, np.transpose(right)).T
    return flat.reshape(matrices.shape)


def quat_multiply(a, b):
    """Hamilton products (..., 4): the rotation of ``quat_to_matrix(a) @ quat_to_matrix(b)``."""
    aw, ax, ay, az = np.moveaxis(np.asarray(a, dtype=float), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b, dtype=float), -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def quat_conjugate(q):
    """Conjugates (the inverse rotations of unit quaternions) (..., 4)."""
    return np.asarray(q, dtype=float) * [1.0, -1.0, -1.0, -1.0]


def euler_to_quat(angles, order):
    """Unit quaternions (..., 4) of Euler angles (..., 3) (same convention as euler_to_matrix)."""
    angles = np.asarray(angles, dtype=float)
    q = None
    for axis, index in zip(_axis_indices(order), range(3)):
        half = 0.5 * angles[..., index]
        factor = np.zeros(angles.shape[:-1] + (4,))
        factor[..., 0] = np.cos(half)
        factor[..., 1 + axis] = np.sin(half)
        q = factor if q is None else quat_multiply(q, factor)
    return q
