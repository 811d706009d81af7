"""Rotation math, vectorised over any leading shape.

Conventions: angles in radians; column vectors (``p' = R @ p``); quaternions (w, x, y, z) as in
mathutils. An Euler `order` lists the axes in the order their matrices are multiplied, left to
right: order "ZXY" means ``R = Rz(a[0]) @ Rx(a[1]) @ Ry(a[2])`` (the BVH channel convention,
intrinsic rotations). Blender's Euler order string is the reverse: mathutils
``Euler((x, y, z), "XYZ")`` equals order "ZYX" with angles (z, y, x).

The examples assume ``import numpy as np`` and ``from mocap_io.core import rotations``.
"""

import numpy as np
from numpy.typing import ArrayLike

_AXES = {"X": 0, "Y": 1, "Z": 2}


def _axis_indices(order):
    order = order.upper()
    if sorted(order) != ["X", "Y", "Z"]:
        raise ValueError(f"Euler order must be a permutation of XYZ, not {order!r}")
    return [_AXES[a] for a in order]


def axis_rotation(axis: str, angle: ArrayLike) -> np.ndarray:
    """Rotation matrices about a coordinate axis.

    Parameters
    ----------
    axis : {"X", "Y", "Z"}
        The axis (either case).
    angle : array_like, shape (...)
        Angles in radians.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> (rotations.axis_rotation("Z", np.pi / 2) @ [1.0, 0.0, 0.0]).round(12)
    array([0., 1., 0.])
    >>> rotations.axis_rotation("x", [0.0, 0.1, 0.2]).shape
    (3, 3, 3)
    """
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


def euler_to_matrix(angles: ArrayLike, order: str) -> np.ndarray:
    """Rotation matrices of Euler angles: ``R = R_order[0](a[0]) @ R_order[1](a[1]) @ R_order[2](a[2])``.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles in radians; ``angles[..., i]`` turns about axis ``order[i]``.
    order : str
        A permutation of "XYZ" (either case), e.g. "ZXY" for BVH's "Zrotation Xrotation Yrotation".

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        If `order` is not a permutation of "XYZ".

    Examples
    --------
    >>> angles = [0.3, -0.2, 1.1]
    >>> m = rotations.euler_to_matrix(angles, "ZXY")
    >>> z, x, y = (rotations.axis_rotation(a, t) for a, t in zip("ZXY", angles))
    >>> np.allclose(m, z @ x @ y)
    True
    """
    components = euler_to_matrix_components(angles, order)
    return np.ascontiguousarray(np.moveaxis(components, (0, 1), (-2, -1)))


def euler_to_matrix_components(angles: ArrayLike, order: str) -> np.ndarray:
    """`euler_to_matrix` laid out as a structure of arrays, for long vectorised chains (forward kinematics).

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles in radians, as for `euler_to_matrix`.
    order : str
        A permutation of "XYZ".

    Returns
    -------
    ndarray, shape (3, 3, ...)
        Row, column, then the leading shape of `angles`.

    Examples
    --------
    >>> angles = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    >>> components = rotations.euler_to_matrix_components(angles, "XYZ")
    >>> components.shape
    (3, 3, 2)
    >>> np.allclose(np.moveaxis(components, (0, 1), (-2, -1)), rotations.euler_to_matrix(angles, "XYZ"))
    True
    """
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


def matrix_to_euler(m: ArrayLike, order: str) -> np.ndarray:
    """Euler angles of rotation matrices: the inverse of `euler_to_matrix`.

    The middle angle lies in [-pi/2, pi/2]; at gimbal lock the last angle is 0. Every angle is an
    arctan2 of well-conditioned entries (no arcsin), and the first angle is read after undoing the
    last, so that near gimbal lock, where each of the two alone is ill-conditioned, their product
    still gives back the matrix; a matrix slightly off orthonormal (float32 data) gives the angles
    of the rotation nearest to it.

    Parameters
    ----------
    m : array_like, shape (..., 3, 3)
        Rotation matrices.
    order : str
        A permutation of "XYZ".

    Returns
    -------
    ndarray, shape (..., 3)
        Angles in radians, ``angles[..., i]`` about axis ``order[i]``.

    Examples
    --------
    >>> m = rotations.euler_to_matrix([0.3, -0.2, 1.1], "ZXY")
    >>> rotations.matrix_to_euler(m, "ZXY").round(12)
    array([ 0.3, -0.2,  1.1])
    """
    m = np.asarray(m, dtype=float)
    return _euler_from_entries(lambda row, column: m[..., row, column], order)


def quat_to_euler(q: ArrayLike, order: str) -> np.ndarray:
    """Euler angles of unit quaternions: `matrix_to_euler` of their matrices, computing only the
    seven entries it reads.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions (w, x, y, z).
    order : str
        A permutation of "XYZ".

    Returns
    -------
    ndarray, shape (..., 3)
        Angles in radians.

    Examples
    --------
    >>> q = rotations.euler_to_quat([0.3, -0.2, 1.1], "YXZ")
    >>> rotations.quat_to_euler(q, "YXZ").round(12)
    array([ 0.3, -0.2,  1.1])
    """
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


def nearest_rotation(m: ArrayLike) -> np.ndarray:
    """The rotation matrices nearest to matrices `m`: the orthogonal factor of their polar
    decomposition (rotations stored in single precision, made orthonormal again).

    Parameters
    ----------
    m : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Proper rotations (determinant +1).

    Examples
    --------
    >>> m = rotations.axis_rotation("Y", 0.5).astype(np.float32)
    >>> r = rotations.nearest_rotation(m)
    >>> np.allclose(r @ r.T, np.eye(3), atol=1e-15), np.allclose(r, m, atol=1e-7)
    (True, True)
    """
    u, _, vt = np.linalg.svd(np.asarray(m, dtype=float))
    flip = np.linalg.det(u @ vt) < 0
    u[flip, :, 2] *= -1.0
    return u @ vt


def quat_normalize(q: ArrayLike) -> np.ndarray:
    """Quaternions scaled to unit length.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> rotations.quat_normalize([2.0, 0.0, 0.0, 2.0]).round(6)
    array([0.707107, 0.      , 0.      , 0.707107])
    """
    return _unit(q)


def quat_to_matrix(q: ArrayLike) -> np.ndarray:
    """Rotation matrices of unit quaternions.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions (w, x, y, z), as in mathutils.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> half = np.sqrt(0.5)
    >>> np.allclose(rotations.quat_to_matrix([half, 0.0, 0.0, half]), rotations.axis_rotation("Z", np.pi / 2))
    True
    """
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=-1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=-1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1),
        ],
        axis=-2,
    )


def matrix_to_quat(m: ArrayLike) -> np.ndarray:
    """Unit quaternions of rotation matrices, w >= 0 (Shepperd's method).

    Parameters
    ----------
    m : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 4)
        (w, x, y, z) with w >= 0.

    Examples
    --------
    >>> rotations.matrix_to_quat(rotations.axis_rotation("X", np.pi / 3)).round(6)
    array([0.866025, 0.5     , 0.      , 0.      ])
    """
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


def axis_angle_to_quat(axis: ArrayLike, angle: ArrayLike) -> np.ndarray:
    """Quaternions turning by `angle` about `axis`.

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        Directions, of any length (a zero axis gives the identity).
    angle : array_like, shape (...)
        Angles in radians.

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> rotations.axis_angle_to_quat([0.0, 0.0, 2.0], np.pi).round(12)
    array([0., 0., 0., 1.])
    """
    axis = np.asarray(axis, dtype=float)
    half = 0.5 * np.asarray(angle, dtype=float)
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = np.divide(axis, norm, out=np.zeros_like(axis), where=norm > 0)
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * unit], axis=-1)


def unwrap_euler(angles: ArrayLike, axis: int = 0) -> np.ndarray:
    """Euler angles with the jumps of a whole turn along `axis` (time) removed: numpy.unwrap bit
    for bit, its modular arithmetic done on the steps of half a turn or more only (few, or none).

    Parameters
    ----------
    angles : array_like
        Angles in radians.
    axis : int, optional
        The time axis (default 0).

    Returns
    -------
    ndarray
        A new array of the shape of `angles`.

    Examples
    --------
    >>> rotations.unwrap_euler([3.0, -3.0, -2.5]).round(6)
    array([3.      , 3.283185, 3.783185])
    """
    angles = np.asarray(angles, dtype=float)
    out = np.array(np.moveaxis(angles, axis, 0), order="C")  # a copy, time first
    flat = out.reshape(len(out), int(np.prod(out.shape[1:])))
    if len(flat) > 1:
        step = np.diff(flat, axis=0)
        np.abs(step, out=step)
        times, columns = np.nonzero(~(step < np.pi))  # as numpy.unwrap: NaN steps too
        if len(times):
            jump = flat[times + 1, columns] - flat[times, columns]
            wrapped = np.mod(jump + np.pi, 2.0 * np.pi) - np.pi
            wrapped[(wrapped == -np.pi) & (jump > 0)] = np.pi
            some, where = np.unique(columns, return_inverse=True)  # the columns with jumps alone
            correction = np.zeros((len(step), len(some)))
            correction[times, where] = wrapped - jump
            flat[1:, some] += np.cumsum(correction, axis=0)
    return np.moveaxis(out, 0, axis)


def quat_continuity(q: ArrayLike, axis: int = 0) -> np.ndarray:
    """Quaternions with signs flipped so that neighbours along `axis` have a non-negative dot product.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions.
    axis : int, optional
        The time axis (default 0).

    Returns
    -------
    ndarray
        A new array of the shape of `q`: the same rotations.

    Examples
    --------
    >>> rotations.quat_continuity([[0.5, 0.5, 0.5, 0.5], [-0.5, -0.5, -0.5, -0.5]])
    array([[0.5, 0.5, 0.5, 0.5],
           [0.5, 0.5, 0.5, 0.5]])
    """
    q = np.moveaxis(np.asarray(q, dtype=float), axis, 0)
    if len(q) < 2:
        return np.moveaxis(q.copy(), 0, axis)
    flips = np.einsum("...i,...i->...", q[1:], q[:-1]) < 0  # no (F, 4) product in memory
    if not flips.any():  # (the usual: smooth motion)
        return np.moveaxis(q.copy(), 0, axis)
    signs = np.concatenate([np.ones((1,) + flips.shape[1:]), np.cumprod(np.where(flips, -1.0, 1.0), axis=0)])
    return np.moveaxis(q * signs[..., None], 0, axis)


def multiply_each(left: ArrayLike, matrices: ArrayLike, right: ArrayLike) -> np.ndarray:
    """``left @ m @ right`` for each matrix m of a stack and constant 3x3 factors, as one GEMM.

    The product is linear in each matrix: flattened row-major it is ``m @ kron(left, right.T).T``,
    much faster than broadcasting small matrix products over the stack.

    Parameters
    ----------
    left, right : array_like, shape (3, 3)
        The constant factors.
    matrices : array_like, shape (..., 3, 3)
        The stack.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> left, right = rotations.axis_rotation("X", 0.4), rotations.axis_rotation("Z", -1.2)
    >>> stack = rotations.euler_to_matrix(np.random.default_rng(0).normal(size=(5, 3)), "XYZ")
    >>> np.allclose(rotations.multiply_each(left, stack, right), left @ stack @ right)
    True
    """
    matrices = np.asarray(matrices, dtype=float)
    flat = matrices.reshape(-1, 9) @ np.kron(left, np.transpose(right)).T
    return flat.reshape(matrices.shape)


def quat_multiply(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Hamilton products: the rotations of ``quat_to_matrix(a) @ quat_to_matrix(b)``.

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
        Quaternions (w, x, y, z); the shapes broadcast.

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> i, j = [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]
    >>> rotations.quat_multiply(i, j)
    array([0., 0., 0., 1.])
    """
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


def quat_product_matrix(q: ArrayLike, left: bool = True) -> np.ndarray:
    """4x4 matrices of the linear maps p -> q p (`left`) or p -> p q (right multiplication).

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Quaternions (w, x, y, z).
    left : bool, optional
        Multiply by q on the left (default) or on the right.

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Examples
    --------
    >>> q, p = [0.5, 0.5, 0.5, 0.5], [0.0, 1.0, 0.0, 0.0]
    >>> np.allclose(rotations.quat_product_matrix(q) @ p, rotations.quat_multiply(q, p))
    True
    >>> np.allclose(rotations.quat_product_matrix(q, left=False) @ p, rotations.quat_multiply(p, q))
    True
    """
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    if left:
        rows = [[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]]
    else:
        rows = [[w, -x, -y, -z], [x, w, z, -y], [y, -z, w, x], [z, y, -x, w]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def quat_conjugate(q: ArrayLike) -> np.ndarray:
    """Conjugates: the inverse rotations of unit quaternions.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> rotations.quat_conjugate([0.5, 0.5, -0.5, 0.5])
    array([ 0.5, -0.5,  0.5, -0.5])
    """
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


def euler_to_quat(angles: ArrayLike, order: str) -> np.ndarray:
    """Unit quaternions of Euler angles (the convention of `euler_to_matrix`).

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles in radians; ``angles[..., i]`` turns about axis ``order[i]``.
    order : str
        A permutation of "XYZ".

    Returns
    -------
    ndarray, shape (..., 4)
        (w, x, y, z).

    Examples
    --------
    >>> q = rotations.euler_to_quat([0.3, -0.2, 1.1], "ZXY")
    >>> np.allclose(rotations.quat_to_matrix(q), rotations.euler_to_matrix([0.3, -0.2, 1.1], "ZXY"))
    True
    """
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


def quat_inverse(q: ArrayLike) -> np.ndarray:
    """Inverses of quaternions, unit or not.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> rotations.quat_inverse([1.0, 1.0, 1.0, 1.0])
    array([ 0.25, -0.25, -0.25, -0.25])
    """
    q = np.asarray(q, dtype=float)
    return quat_conjugate(q) / np.sum(q * q, axis=-1, keepdims=True)


def quat_rotate(q: ArrayLike, v: ArrayLike) -> np.ndarray:
    """Vectors rotated by unit quaternions.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions (w, x, y, z).
    v : array_like, shape (..., 3)
        Vectors; the shapes broadcast.

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> quarter = rotations.axis_angle_to_quat([0.0, 0.0, 1.0], np.pi / 2)
    >>> rotations.quat_rotate(quarter, [1.0, 0.0, 0.0]).round(12)
    array([0., 1., 0.])
    """
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    u, w = q[..., 1:], q[..., :1]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def _sinc(x):
    """sin(x) / x, exact at 0 (numpy's sinc is sin(pi x) / (pi x))."""
    return np.sinc(np.asarray(x, dtype=float) / np.pi)


def quat_exp(v: ArrayLike) -> np.ndarray:
    """exp of the pure quaternions (0, v): unit quaternions turning by 2 |v| about v.

    Parameters
    ----------
    v : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> rotations.quat_exp([0.0, 0.0, np.pi / 4]).round(6)
    array([0.707107, 0.      , 0.      , 0.707107])
    """
    v = np.asarray(v, dtype=float)
    theta = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.concatenate([np.cos(theta), _sinc(theta) * v], axis=-1)


def quat_log(q: ArrayLike) -> np.ndarray:
    """log of unit quaternions, as vectors: the inverse of `quat_exp` (half-angle up to pi/2 per
    half turn, so q and -q give results of opposite sign for the same rotation).

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions.

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> v = np.array([0.1, -0.3, 0.2])
    >>> np.allclose(rotations.quat_log(rotations.quat_exp(v)), v)
    True
    """
    q = np.asarray(q, dtype=float)
    vector_norm = np.linalg.norm(q[..., 1:], axis=-1, keepdims=True)
    theta = np.arctan2(vector_norm, q[..., :1])
    return q[..., 1:] / _sinc(theta)


def rotvec_to_quat(r: ArrayLike) -> np.ndarray:
    """Unit quaternions of rotation vectors.

    Parameters
    ----------
    r : array_like, shape (..., 3)
        Rotation vectors: axis times angle in radians.

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> rotations.rotvec_to_quat([np.pi, 0.0, 0.0]).round(12)
    array([0., 1., 0., 0.])
    """
    return quat_exp(0.5 * np.asarray(r, dtype=float))


def quat_to_rotvec(q: ArrayLike) -> np.ndarray:
    """Rotation vectors, angle in [0, pi], of unit quaternions.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 3)
        Axis times angle in radians.

    Examples
    --------
    >>> q = rotations.axis_angle_to_quat([0.0, 1.0, 0.0], 0.5)
    >>> rotations.quat_to_rotvec(q).round(12)
    array([0. , 0.5, 0. ])
    """
    q = np.asarray(q, dtype=float)
    return 2.0 * quat_log(np.where(q[..., :1] < 0, -q, q))


def quat_to_axis_angle(q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Axes and angles of unit quaternions; the identity gives axis X.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    axis : ndarray, shape (..., 3)
        Unit axes.
    angle : ndarray, shape (...)
        Angles in [0, pi].

    Examples
    --------
    >>> axis, angle = rotations.quat_to_axis_angle(rotations.axis_angle_to_quat([0.0, 0.0, -3.0], 2.0))
    >>> axis.round(12), round(float(angle), 12)
    (array([ 0.,  0., -1.]), 2.0)
    """
    r = quat_to_rotvec(q)
    angle = np.linalg.norm(r, axis=-1)
    axis = np.divide(r, angle[..., None], out=np.zeros_like(r), where=angle[..., None] > 1e-300)
    axis[angle <= 1e-300] = [1.0, 0.0, 0.0]
    return axis, angle


def matrix_to_rotvec(m: ArrayLike) -> np.ndarray:
    """Rotation vectors (axis times angle in [0, pi]) of rotation matrices.

    Parameters
    ----------
    m : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> rotations.matrix_to_rotvec(rotations.axis_rotation("Z", 0.25)).round(12)
    array([0.  , 0.  , 0.25])
    """
    return quat_to_rotvec(matrix_to_quat(m))


def rotvec_to_matrix(r: ArrayLike) -> np.ndarray:
    """Rotation matrices of rotation vectors (axis times angle in radians).

    Parameters
    ----------
    r : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> np.allclose(rotations.rotvec_to_matrix([0.0, 0.0, 0.25]), rotations.axis_rotation("Z", 0.25))
    True
    """
    return quat_to_matrix(rotvec_to_quat(r))


def scale_rotation(matrices: ArrayLike, factors: ArrayLike) -> np.ndarray:
    """Rotations turned `factors` of the way from the identity to `matrices`, about their own axes
    (beyond half a turn, the shorter way).

    Parameters
    ----------
    matrices : array_like, shape (..., 3, 3)
        Rotation matrices.
    factors : array_like, shape (...)
        0: no turn, 1: the whole turn; the shapes broadcast.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> half = rotations.scale_rotation(rotations.axis_rotation("X", 1.0), 0.5)
    >>> np.allclose(half, rotations.axis_rotation("X", 0.5))
    True
    """
    return rotvec_to_matrix(matrix_to_rotvec(matrices) * np.asarray(factors, dtype=float)[..., None])


def slerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike) -> np.ndarray:
    """Spherical linear interpolation of unit quaternions along the shorter arc.

    q0, q1 and t broadcast against each other: q0, q1 of shape (4,) with t of shape (N,) give
    (N, 4); q0, q1 of shape (N, 4) with t of shape (N,) give (N, 4). Nearly equal inputs fall back
    to normalised linear interpolation (no division by a vanishing sine).

    Parameters
    ----------
    q0, q1 : array_like, shape (..., 4)
        The ends.
    t : array_like, shape (...)
        0 gives q0, 1 gives q1 (or -q1, the same rotation).

    Returns
    -------
    ndarray, shape (..., 4)

    Examples
    --------
    >>> identity, quarter = [1.0, 0.0, 0.0, 0.0], rotations.axis_angle_to_quat([1.0, 0.0, 0.0], np.pi / 2)
    >>> eighth = rotations.slerp(identity, quarter, 0.5)
    >>> np.allclose(eighth, rotations.axis_angle_to_quat([1.0, 0.0, 0.0], np.pi / 4))
    True
    >>> rotations.slerp(identity, quarter, [0.0, 0.5, 1.0]).shape
    (3, 4)
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


def compose_trs(translation: ArrayLike, rotation: ArrayLike, scale: ArrayLike = 1.0) -> np.ndarray:
    """Affine matrices ``T(translation) @ R(rotation) @ S(scale)``.

    Parameters
    ----------
    translation : array_like, shape (..., 3)
    rotation : array_like, shape (..., 3, 3)
        Rotation matrices.
    scale : float or array_like, shape (...) or (..., 3), optional
        Uniform or per-axis scale (default 1); the shapes broadcast.

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Examples
    --------
    >>> rotations.compose_trs([1.0, 2.0, 3.0], np.eye(3), 2.0)
    array([[2., 0., 0., 1.],
           [0., 2., 0., 2.],
           [0., 0., 2., 3.],
           [0., 0., 0., 1.]])
    """
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


def decompose_trs(m: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Translation, rotation and scale of affine matrices without shear: the inverse of `compose_trs`.

    The rotation is proper; a mirroring (negative determinant) shows as a negative x scale.

    Parameters
    ----------
    m : array_like, shape (..., 4, 4)

    Returns
    -------
    translation : ndarray, shape (..., 3)
    rotation : ndarray, shape (..., 3, 3)
    scale : ndarray, shape (..., 3)

    Examples
    --------
    >>> m = rotations.compose_trs([1.0, 2.0, 3.0], rotations.axis_rotation("Y", 0.3), [1.0, 2.0, 4.0])
    >>> translation, rotation, scale = rotations.decompose_trs(m)
    >>> translation, scale.round(12)
    (array([1., 2., 3.]), array([1., 2., 4.]))
    >>> np.allclose(rotation, rotations.axis_rotation("Y", 0.3))
    True
    """
    m = np.asarray(m, dtype=float)
    linear = m[..., :3, :3]
    scale = np.linalg.norm(linear, axis=-2)
    scale[..., 0] *= np.where(np.linalg.det(linear) < 0, -1.0, 1.0)
    return m[..., :3, 3].copy(), linear / scale[..., None, :], scale


def _unit(v: ArrayLike) -> np.ndarray:
    """Vectors (..., n) (directions, quaternions) scaled to unit length."""
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def rotation_between(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """The rotations turning directions `a` onto directions `b` by the smallest angle (about a x b);
    opposite directions turn half a turn about an axis perpendicular to `a`.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)
        Directions, of any non-zero length; the shapes broadcast.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> turn = rotations.rotation_between([1.0, 0.0, 0.0], [0.0, 2.0, 0.0])
    >>> np.allclose(turn, rotations.axis_rotation("Z", np.pi / 2))
    True
    """
    a, b = _unit(a), _unit(b)
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
        axis = _unit(axis)
        half = 2.0 * axis[..., :, None] * axis[..., None, :] - np.eye(3)
        out = np.where(opposite[..., None, None], half, out)
    return out


def euler_dual(angles: ArrayLike) -> np.ndarray:
    """The other Euler angles of the same rotations: (a, b, c) and (a + pi, pi - b, c + pi) give
    one matrix in every order of three different axes.

    Parameters
    ----------
    angles : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> angles = np.array([0.3, -0.2, 1.1])
    >>> dual = rotations.euler_dual(angles)
    >>> np.allclose(rotations.euler_to_matrix(dual, "ZXY"), rotations.euler_to_matrix(angles, "ZXY"))
    True
    """
    angles = np.asarray(angles, dtype=float)
    return np.stack([angles[..., 0] + np.pi, np.pi - angles[..., 1], angles[..., 2] + np.pi], axis=-1)


def _wrapped(x):
    """x moved by whole turns into [-pi, pi]."""
    return x - 2.0 * np.pi * np.round(x / (2.0 * np.pi))


def euler_nearest(angles: ArrayLike, reference: ArrayLike) -> np.ndarray:
    """Of the Euler angles of the same rotations as `angles` (either triple of `euler_dual`, each
    angle moved by whole turns), those nearest `reference`.

    Parameters
    ----------
    angles, reference : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> rotations.euler_nearest([0.1, 0.0, 0.0], [6.3, 0.0, 0.0]).round(6)
    array([6.383185, 0.      , 0.      ])
    """
    reference = np.asarray(reference, dtype=float)
    candidates = [reference + _wrapped(np.asarray(a, dtype=float) - reference) for a in (angles, euler_dual(angles))]
    other = np.sum((candidates[1] - reference) ** 2, axis=-1) < np.sum((candidates[0] - reference) ** 2, axis=-1)
    return np.where(other[..., None], candidates[1], candidates[0])


def euler_continuity(angles: ArrayLike, axis: int = 0) -> np.ndarray:
    """Euler angles of the same rotations without jumps along `axis` (time): each frame takes
    whichever triple of `euler_dual` lies nearer its predecessor, then whole turns are unwrapped.
    Curves pass smoothly through the middle angle's +-90 degrees instead of flipping two angles by
    half a turn.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles in radians.
    axis : int, optional
        The time axis (default 0).

    Returns
    -------
    ndarray
        A new array of the shape of `angles`.

    Examples
    --------
    >>> rotations.euler_continuity([[3.1, 0.0, 0.0], [-3.1, 0.0, 0.0]]).round(6)
    array([[3.1     , 0.      , 0.      ],
           [3.183185, 0.      , 0.      ]])
    """
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
