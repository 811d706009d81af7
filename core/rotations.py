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
    components = euler_to_matrix_components(angles, order)
    return np.ascontiguousarray(np.moveaxis(components, (0, 1), (-2, -1)))


def euler_to_matrix_components(angles, order):
    """`euler_to_matrix` laid out (3, 3, ...): row, column, then the leading shape of `angles` (a
    structure of arrays, for long vectorised chains such as forward kinematics)."""
    angles = np.ascontiguousarray(np.moveaxis(np.asarray(angles, dtype=float), -1, 0))  # streaming components
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.zeros((3, 3) + angles.shape[1:])
    columns = out.swapaxes(0, 1)  # columns[c] is column c, a (3, ...) view
    first, *rest = _axis_indices(order)
    j, k = (first + 1) % 3, (first + 2) % 3
    out[first, first] = 1.0
    out[j, j], out[k, j], out[j, k], out[k, k] = cos[0], sin[0], -sin[0], cos[0]
    for index, a in enumerate(rest, 1):  # times an axis rotation: two columns mix
        c, s = cos[index], sin[index]
        j, k = (a + 1) % 3, (a + 2) % 3
        column_j = columns[j].copy()
        columns[j] *= c
        columns[j] += columns[k] * s
        columns[k] *= c
        columns[k] -= column_j * s
    return out


def matrix_to_euler(m, order):
    """Euler angles (..., 3) in `order` of rotation matrices (..., 3, 3); inverse of euler_to_matrix.

    The middle angle lies in [-pi/2, pi/2]; at gimbal lock the last angle is 0. Every angle is an
    arctan2 of well-conditioned entries (no arcsin), and the first angle is read after undoing the
    last, so that near gimbal lock, where each of the two alone is ill-conditioned, their product
    still gives back the matrix; a matrix slightly off orthonormal (float32 data) gives the angles
    of the rotation nearest to it.
    """
    m = np.asarray(m, dtype=float)
    return _euler_from_entries(lambda row, column: m[..., row, column], order)


def quat_to_euler(q, order):
    """Euler angles (..., 3) in `order` of unit quaternions (..., 4): matrix_to_euler of their
    matrices, computing only the seven entries it reads."""
    w, *v = np.moveaxis(np.asarray(q, dtype=float), -1, 0)

    def entry(row, column):
        if row == column:
            a, b = (row + 1) % 3, (row + 2) % 3
            return 1.0 - 2.0 * (v[a] * v[a] + v[b] * v[b])
        sign = 1.0 if (column - row) % 3 == 1 else -1.0
        return 2.0 * (v[row] * v[column] - sign * w * v[3 - row - column])

    return _euler_from_entries(entry, order)


def _euler_from_entries(entry, order):
    """matrix_to_euler of the matrix whose entry (row, column) is entry(row, column) (...)."""
    i, j, k = _axis_indices(order)
    parity = 1.0 if (j - i) % 3 == 1 else -1.0  # +1 for cyclic orders (XYZ, YZX, ZXY)
    m_ii, m_ij = entry(i, i), entry(i, j)
    cos_middle = np.hypot(m_ii, m_ij)
    middle = np.arctan2(parity * entry(i, k), cos_middle)
    last = np.where(cos_middle < 1e-12, 0.0, np.arctan2(-parity * m_ij, m_ii))
    # column j of m R_k(last)^T is column j of R_i(first) R_j(middle), that is of R_i(first)
    cos, sin = np.cos(last), parity * np.sin(last)
    first = np.arctan2(parity * (cos * entry(k, j) + sin * entry(k, i)), cos * entry(j, j) + sin * entry(j, i))
    return np.stack([first, middle, last], axis=-1)


def nearest_rotation(m):
    """The rotation matrices (..., 3, 3) nearest to matrices m (..., 3, 3) (the orthogonal factor of
    their polar decomposition): rotations stored in single precision, made orthonormal again."""
    u, _, vt = np.linalg.svd(np.asarray(m, dtype=float))
    flip = np.linalg.det(u @ vt) < 0
    u[flip, :, 2] *= -1.0
    return u @ vt


def quat_normalize(q):
    """Unit quaternions (..., 4)."""
    q = np.asarray(q, dtype=float)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_to_matrix(q):
    """Rotation matrices (..., 3, 3) of unit quaternions (w, x, y, z)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
        ],
        axis=-2,
    )


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
    branches = np.stack(
        [
            np.stack([w, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], -1),
            np.stack([m[..., 2, 1] - m[..., 1, 2], x, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0]], -1),
            np.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0], y, m[..., 1, 2] + m[..., 2, 1]], -1),
            np.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], z], -1),
        ],
        axis=-2,
    )
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
    """Euler angles with the 360-degree jumps along `axis` (time) removed: numpy.unwrap bit for
    bit, its modular arithmetic done on the steps of half a turn or more only (few, or none)."""
    angles = np.asarray(angles, dtype=float)
    step = np.diff(angles, axis=axis)
    jumps = np.nonzero(~(np.abs(step) < np.pi))  # as numpy.unwrap: NaN steps too
    out = angles.copy()
    if len(jumps[0]):
        jump = step[jumps]
        wrapped = np.mod(jump + np.pi, 2.0 * np.pi) - np.pi
        wrapped[(wrapped == -np.pi) & (jump > 0)] = np.pi
        correction = np.zeros_like(step)
        correction[jumps] = wrapped - jump
        later = [slice(None)] * angles.ndim
        later[axis] = slice(1, None)
        out[tuple(later)] += np.cumsum(correction, axis=axis)
    return out


def quat_continuity(q, axis=0):
    """Quaternions with signs flipped so that neighbours along `axis` have a non-negative dot product."""
    q = np.moveaxis(np.asarray(q, dtype=float), axis, 0)
    if len(q) < 2:
        return np.moveaxis(q.copy(), 0, axis)
    dots = np.einsum("...i,...i->...", q[1:], q[:-1])  # no (F, 4) product in memory
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
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def quat_product_matrix(q, left=True):
    """4x4 matrices (..., 4, 4) of the linear maps p -> q p (left) or p -> p q (right)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    if left:
        rows = [[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]]
    else:
        rows = [[w, -x, -y, -z], [x, w, z, -y], [y, -z, w, x], [z, y, -x, w]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def quat_conjugate(q):
    """Conjugates (the inverse rotations of unit quaternions) (..., 4)."""
    return np.asarray(q, dtype=float) * [1.0, -1.0, -1.0, -1.0]


def _half_angle_cos_sin(angles):
    """cos(angles / 2) and sin(angles / 2), within 2 ulp, from t = tan(angles / 4): (1 - t^2) / (1 + t^2)
    and 2 t / (1 + t^2). numpy vectorises tan but not float64 sin and cos: several times faster."""
    t = np.tan(0.25 * angles)
    square = t * t
    denominator = 1.0 + square
    np.subtract(1.0, square, out=square)
    square /= denominator
    t *= 2.0
    t /= denominator
    return square, t


def euler_to_quat(angles, order):
    """Unit quaternions (..., 4) of Euler angles (..., 3) (same convention as euler_to_matrix)."""
    cos, sin = _half_angle_cos_sin(np.ascontiguousarray(np.moveaxis(np.asarray(angles, dtype=float), -1, 0)))
    first, *rest = _axis_indices(order)
    q = [cos[0], *(sin[0] if axis == first else np.zeros_like(sin[0]) for axis in range(3))]
    for index, a in enumerate(rest, 1):  # q times (cos + sin e_a), written out: half a full product
        c, s = cos[index], sin[index]
        w, v = q[0], q[1:]
        i, j = (a + 1) % 3, (a + 2) % 3
        v_new = [None] * 3
        v_new[a] = v[a] * c + w * s
        v_new[i] = v[i] * c + v[j] * s
        v_new[j] = v[j] * c - v[i] * s
        q = [w * c - v[a] * s, *v_new]
    return np.stack(q, axis=-1)


def quat_inverse(q):
    """Inverses (..., 4) of (not necessarily unit) quaternions."""
    q = np.asarray(q, dtype=float)
    return quat_conjugate(q) / np.sum(q * q, axis=-1, keepdims=True)


def quat_rotate(q, v):
    """Vectors (..., 3) rotated by unit quaternions (..., 4)."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    u, w = q[..., 1:], q[..., :1]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _sinc(x):
    """sin(x) / x, exact at 0 (numpy's sinc is sin(pi x) / (pi x))."""
    return np.sinc(np.asarray(x, dtype=float) / np.pi)


def quat_exp(v):
    """exp of the pure quaternions (0, v), v (..., 3): unit quaternions turning by 2|v| about v."""
    v = np.asarray(v, dtype=float)
    theta = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.concatenate([np.cos(theta), _sinc(theta) * v], axis=-1)


def quat_log(q):
    """log of unit quaternions (..., 4) as vectors (..., 3): the inverse of quat_exp (angle <= pi/2
    per half-turn, so q and -q give opposite-signed results of the same rotation)."""
    q = np.asarray(q, dtype=float)
    vector_norm = np.linalg.norm(q[..., 1:], axis=-1, keepdims=True)
    theta = np.arctan2(vector_norm, q[..., :1])
    return q[..., 1:] / _sinc(theta)


def rotvec_to_quat(r):
    """Unit quaternions (..., 4) of rotation vectors (..., 3) (axis times angle in radians)."""
    return quat_exp(0.5 * np.asarray(r, dtype=float))


def quat_to_rotvec(q):
    """Rotation vectors (..., 3), angle in [0, pi], of unit quaternions (..., 4)."""
    q = np.asarray(q, dtype=float)
    return 2.0 * quat_log(np.where(q[..., :1] < 0, -q, q))


def quat_to_axis_angle(q):
    """(axes (..., 3), angles (...) in [0, pi]) of unit quaternions; the identity gives axis X."""
    r = quat_to_rotvec(q)
    angle = np.linalg.norm(r, axis=-1)
    axis = np.divide(r, angle[..., None], out=np.zeros_like(r), where=angle[..., None] > 1e-300)
    axis[angle <= 1e-300] = [1.0, 0.0, 0.0]
    return axis, angle


def matrix_to_rotvec(m):
    """Rotation vectors (..., 3) (axis times angle in [0, pi]) of rotation matrices (..., 3, 3)."""
    return quat_to_rotvec(matrix_to_quat(m))


def rotvec_to_matrix(r):
    """Rotation matrices (..., 3, 3) of rotation vectors (..., 3)."""
    return quat_to_matrix(rotvec_to_quat(r))


def scale_rotation(matrices, factors):
    """Rotation matrices (..., 3, 3) turned `factors` (...) of the way from the identity to
    `matrices` (..., 3, 3), about their own axes (0: none, 1: all; beyond half a turn the shorter way)."""
    return rotvec_to_matrix(matrix_to_rotvec(matrices) * np.asarray(factors, dtype=float)[..., None])


def slerp(q0, q1, t):
    """Spherical linear interpolation along the shorter arc; t = 0 gives q0, t = 1 gives q1 (or -q1).

    q0, q1 (..., 4) and t (...) broadcast against each other: q0, q1 of shape (4,) with t of
    shape (N,) give (N, 4); q0, q1 of shape (N, 4) with t of shape (N,) give (N, 4). Nearly equal
    inputs fall back to normalised linear interpolation (no division by a vanishing sine).
    """
    q0 = np.asarray(q0, dtype=float)
    q1 = np.asarray(q1, dtype=float)
    t = np.asarray(t, dtype=float)[..., None]
    dot = np.sum(q0 * q1, axis=-1, keepdims=True)
    q1 = np.where(dot < 0, -q1, q1)
    dot = np.minimum(np.abs(dot), 1.0)
    angle = np.arccos(dot)
    sin_angle = np.sin(angle)
    close = sin_angle < 1e-6
    safe = np.where(close, 1.0, sin_angle)
    w0 = np.where(close, 1.0 - t, np.sin((1.0 - t) * angle) / safe)
    w1 = np.where(close, t, np.sin(t * angle) / safe)
    return quat_normalize(w0 * q0 + w1 * q1)


def compose_trs(translation, rotation, scale=1.0):
    """4x4 matrices (..., 4, 4) = T(translation) @ R(rotation (..., 3, 3)) @ S(scale, scalar or (..., 3))."""
    rotation = np.asarray(rotation, dtype=float)
    scale = np.asarray(scale, dtype=float)
    if scale.ndim == 0 or scale.shape[-1:] != (3,):
        scale = scale[..., None] * np.ones(3)
    shape = np.broadcast_shapes(rotation.shape[:-2], np.shape(translation)[:-1], scale.shape[:-1])
    m = np.zeros(shape + (4, 4))
    m[..., :3, :3] = rotation * scale[..., None, :]
    m[..., :3, 3] = translation
    m[..., 3, 3] = 1.0
    return m


def decompose_trs(m):
    """(translation (..., 3), rotation (..., 3, 3), scale (..., 3)) of affine matrices without shear.

    The rotation is proper; a mirroring (negative determinant) shows as a negative x scale.
    """
    m = np.asarray(m, dtype=float)
    linear = m[..., :3, :3]
    scale = np.linalg.norm(linear, axis=-2)
    scale[..., 0] *= np.where(np.linalg.det(linear) < 0, -1.0, 1.0)
    return m[..., :3, 3].copy(), linear / scale[..., None, :], scale


def swing(a, b):
    """Rotation matrices (..., 3, 3) turning directions a onto b (..., 3) by the smallest angle
    (about a x b); opposite directions turn half a turn about an axis perpendicular to a."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    v = np.cross(a, b)
    c = np.sum(a * b, axis=-1)[..., None, None]
    cross = np.zeros(v.shape + (3,))
    cross[..., 0, 1], cross[..., 0, 2], cross[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    cross = cross - np.swapaxes(cross, -1, -2)
    opposite = c[..., 0, 0] < -1.0 + 1e-12
    out = np.eye(3) + cross + (cross @ cross) / np.where(opposite[..., None, None], 1.0, 1.0 + c)
    if np.any(opposite):  # half a turn about the coordinate axis least aligned with a, made perpendicular
        axis = np.eye(3)[np.argmin(np.abs(a), axis=-1)]
        axis -= np.sum(axis * a, axis=-1, keepdims=True) * a
        axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
        half = 2.0 * axis[..., :, None] * axis[..., None, :] - np.eye(3)
        out = np.where(opposite[..., None, None], half, out)
    return out


def euler_dual(angles):
    """The other Euler angles of the same rotations: (a, b, c) and (a + pi, pi - b, c + pi) give one
    matrix in every order of three different axes."""
    angles = np.asarray(angles, dtype=float)
    return np.stack([angles[..., 0] + np.pi, np.pi - angles[..., 1], angles[..., 2] + np.pi], axis=-1)


def _wrapped(x):
    """x moved by whole turns into [-pi, pi]."""
    return x - 2.0 * np.pi * np.round(x / (2.0 * np.pi))


def euler_nearest(angles, reference):
    """Of the angles (..., 3) equal to `angles` as rotations (either triple of euler_dual, each angle
    moved by whole turns), those nearest `reference` (..., 3)."""
    reference = np.asarray(reference, dtype=float)
    candidates = [reference + _wrapped(np.asarray(a, dtype=float) - reference) for a in (angles, euler_dual(angles))]
    other = np.sum((candidates[1] - reference) ** 2, axis=-1) < np.sum((candidates[0] - reference) ** 2, axis=-1)
    return np.where(other[..., None], candidates[1], candidates[0])


def euler_continuity(angles, axis=0):
    """Euler angles (..., 3) of the same rotations without jumps along `axis` (time): each frame takes
    whichever triple of euler_dual lies nearer its predecessor, then whole turns are unwrapped. Curves
    pass smoothly through the middle angle's +-90 degrees instead of flipping two angles by half a turn."""
    angles = np.moveaxis(np.asarray(angles, dtype=float), axis, 0)
    if len(angles) < 2:
        return np.moveaxis(angles.copy(), 0, axis)
    step = np.sum(_wrapped(angles[1:] - angles[:-1]) ** 2, axis=-1)
    step_dual = np.sum(_wrapped(euler_dual(angles[1:]) - angles[:-1]) ** 2, axis=-1)
    flips = np.cumsum(step_dual < step, axis=0) % 2  # the dual of the dual is the same triple
    odd = np.concatenate([np.zeros((1,) + flips.shape[1:], bool), flips == 1])
    out = np.where(odd[..., None], euler_dual(angles), angles)
    out[1:] -= 2.0 * np.pi * np.cumsum(np.round(np.diff(out, axis=0) / (2.0 * np.pi)), axis=0)  # unwrapped
    return np.moveaxis(out, 0, axis)
