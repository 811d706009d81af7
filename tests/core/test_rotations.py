"""Rotation math against scipy's Rotation (an independent implementation, with or without Blender)
and identities; one test pins the mapping to Blender's mathutils where bpy is present.

Conventions matched: our Euler order "ZXY" is R = Rz @ Rx @ Ry, scipy's intrinsic "ZXY"
(upper case); our quaternions are (w, x, y, z), scipy's `scalar_first=True`; scipy's `p * q` is
the matrix product p @ q.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mocap_io.core import rotations as r

ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
RNG = np.random.default_rng(11)
HALF_TURNS = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0.6, 0.8, 0], [0, 0.48, 0.6, 0.64]])


def random_quats(n):
    return r.quat_normalize(RNG.normal(size=(n, 4)))


def scipy_quats(q):
    return Rotation.from_quat(q, scalar_first=True)


def same_rotation(q, reference):
    """q equals reference up to the sign (q and -q are the same rotation)."""
    signs = np.where(np.sum(q * reference, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    np.testing.assert_allclose(q * signs, reference, atol=1e-12)


def euler_angles(n):
    angles = RNG.uniform(-np.pi, np.pi, (n, 3))
    angles[:, 1] = RNG.uniform(-np.pi / 2, np.pi / 2, n)
    return angles


@pytest.mark.parametrize("order", ORDERS)
def test_euler_matches_scipy_intrinsic_and_inverts(order):
    angles = euler_angles(500)
    reference = Rotation.from_euler(order, angles)
    ours = r.euler_to_matrix(angles, order)
    np.testing.assert_allclose(ours, reference.as_matrix(), atol=1e-12)
    np.testing.assert_allclose(r.matrix_to_euler(ours, order), angles, atol=1e-9)
    np.testing.assert_allclose(r.matrix_to_euler(ours, order), reference.as_euler(order), atol=1e-9)
    same_rotation(r.euler_to_quat(angles, order), reference.as_quat(scalar_first=True))
    first = r.axis_rotation(order[0], angles[:, 0])
    # angles (N, 1) for one axis: scipy 1.17 takes (N,) as one rotation of N axes and refuses it
    np.testing.assert_allclose(first, Rotation.from_euler(order[0], angles[:, :1]).as_matrix(), atol=1e-12)


def test_bvh_channel_order_is_the_product_in_file_order():
    """'Zrotation Xrotation Yrotation' 10, 20, 30 degrees is Rz(10) @ Rx(20) @ Ry(30)."""
    angles = np.radians([10.0, 20.0, 30.0])
    product = np.linalg.multi_dot([Rotation.from_euler(axis, a).as_matrix() for axis, a in zip("zxy", angles)])
    np.testing.assert_allclose(r.euler_to_matrix(angles, "ZXY"), product, atol=1e-15)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("middle", [np.pi / 2, -np.pi / 2])
def test_gimbal_lock_is_deterministic_and_exact(order, middle):
    angles = np.array([[0.3, middle, -1.1], [2.0, middle, 0.0], [-0.4, middle, 0.4]])
    m = r.euler_to_matrix(angles, order)
    back = r.matrix_to_euler(m, order)
    np.testing.assert_allclose(back[:, 2], 0.0)
    np.testing.assert_allclose(back[:, 1], middle, atol=1e-7)
    np.testing.assert_allclose(r.euler_to_matrix(back, order), m, atol=1e-12)


def test_quaternions_and_matrices_match_scipy_including_half_turns():
    q = np.vstack([random_quats(200), HALF_TURNS, [[1, 0, 0, 0]]])
    m = r.quat_to_matrix(q)
    np.testing.assert_allclose(m, scipy_quats(q).as_matrix(), atol=1e-12)
    back = r.matrix_to_quat(m)
    same_rotation(back, Rotation.from_matrix(m).as_quat(canonical=True, scalar_first=True))
    assert np.all(back[:, 0] >= 0)
    np.testing.assert_allclose(r.quat_to_matrix(back), m, atol=1e-12)


def test_products_inverse_and_rotation_of_vectors_match_scipy():
    a, b = random_quats(100), random_quats(100)
    ab = r.quat_multiply(a, b)
    same_rotation(ab, (scipy_quats(a) * scipy_quats(b)).as_quat(scalar_first=True))
    same_rotation(r.quat_conjugate(a), scipy_quats(a).inv().as_quat(scalar_first=True))
    np.testing.assert_allclose(r.quat_multiply(a, r.quat_inverse(2 * a)), np.tile([0.5, 0, 0, 0], (100, 1)), atol=1e-12)
    v = RNG.normal(size=(100, 3))
    np.testing.assert_allclose(r.quat_rotate(a, v), scipy_quats(a).apply(v), atol=1e-12)
    np.testing.assert_allclose((r.quat_product_matrix(a) @ b[..., None])[..., 0], ab, atol=1e-12)
    np.testing.assert_allclose((r.quat_product_matrix(b, left=False) @ a[..., None])[..., 0], ab, atol=1e-12)


def test_rotation_vectors_axis_angle_and_exp_log_match_scipy():
    axes = RNG.normal(size=(20, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = np.concatenate([[1e-12, 1e-8, np.pi - 1e-9, np.pi], RNG.uniform(0, np.pi, 16)])
    rotvec = axes * angles[:, None]
    reference = Rotation.from_rotvec(rotvec)
    q = r.axis_angle_to_quat(axes, angles)
    same_rotation(q, reference.as_quat(scalar_first=True))
    same_rotation(r.rotvec_to_quat(rotvec), reference.as_quat(scalar_first=True))
    np.testing.assert_allclose(r.quat_to_rotvec(q), rotvec, atol=1e-9)
    np.testing.assert_allclose(r.quat_to_rotvec(q[4:]), reference[4:].as_rotvec(), atol=1e-12)
    np.testing.assert_allclose(r.quat_log(q), rotvec / 2, atol=1e-9)
    np.testing.assert_allclose(r.quat_exp(r.quat_log(q)), q, atol=1e-12)
    axis, angle = r.quat_to_axis_angle(q[4:])
    np.testing.assert_allclose(angle, angles[4:], atol=1e-12)
    np.testing.assert_allclose(axis, axes[4:], atol=1e-9)
    np.testing.assert_allclose(r.quat_log([1.0, 0, 0, 0]), [0, 0, 0])  # no division by zero
    identity_axis, identity_angle = r.quat_to_axis_angle(np.array([1.0, 0, 0, 0]))
    assert identity_angle == 0 and list(identity_axis) == [1, 0, 0]


def test_slerp_follows_the_shorter_arc_at_constant_speed():
    """Against q0 (q0^-1 q1)^t computed by scipy, the rotation vector taking the shorter way."""
    q0, q1 = random_quats(50), random_quats(50)
    step = (scipy_quats(q0).inv() * scipy_quats(q1)).as_rotvec()
    for t in (0.0, 0.25, 0.5, 0.9, 1.0):
        reference = scipy_quats(q0) * Rotation.from_rotvec(t * step)
        same_rotation(r.slerp(q0, q1, np.full(50, t)), reference.as_quat(scalar_first=True))
    np.testing.assert_allclose(r.slerp(q0, -q1, 0.3), r.slerp(q0, q1, 0.3), atol=1e-12)  # shortest arc
    same = r.slerp(q0[0], q0[0] + 1e-12, np.linspace(0, 1, 5))
    assert same.shape == (5, 4) and np.isfinite(same).all()
    np.testing.assert_allclose(same, np.tile(q0[0], (5, 1)), atol=1e-9)
    half = r.slerp([1.0, 0, 0, 0], [0.0, 0, 0, 1], 0.5)  # rotations 180 degrees apart
    np.testing.assert_allclose(half, [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=1e-12)


def test_compose_and_decompose_trs():
    t = RNG.normal(size=(10, 3))
    rotation = Rotation.random(10, random_state=5)
    s = RNG.uniform(0.5, 2, (10, 3))
    s[0, 0] *= -1  # a mirroring
    m = r.compose_trs(t, rotation.as_matrix(), s)
    points = RNG.normal(size=(10, 3))  # T @ R @ S: scale first, then rotate, then move
    moved = np.einsum("nij,nj->ni", m[:, :3, :3], points) + m[:, :3, 3]
    np.testing.assert_allclose(moved, rotation.apply(points * s) + t, atol=1e-12)
    np.testing.assert_allclose(m[:, 3], np.tile([0, 0, 0, 1.0], (10, 1)))
    t2, rot2, s2 = r.decompose_trs(m)
    np.testing.assert_allclose(r.compose_trs(t2, rot2, s2), m, atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(rot2), 1.0)
    np.testing.assert_allclose(t2, t)
    np.testing.assert_allclose(np.abs(s2), np.abs(s), atol=1e-12)
    np.testing.assert_allclose(rot2[1:], rotation[1:].as_matrix(), atol=1e-12)
    assert r.compose_trs([1, 2, 3], np.eye(3), 2.0).shape == (4, 4)


def test_unwrapping_and_hemisphere_continuity():
    angle = np.linspace(0, 6 * np.pi, 200)
    wrapped = np.angle(np.exp(1j * angle))  # into (-pi, pi]
    euler = np.stack([wrapped, np.zeros(200), -wrapped], axis=1)
    np.testing.assert_allclose(r.unwrap_euler(euler)[:, 0], angle, atol=1e-9)
    q = r.axis_angle_to_quat(np.tile([0.0, 0, 1], (200, 1)), angle)
    flipped = q * RNG.choice([-1.0, 1.0], size=(200, 1))
    smooth = r.quat_continuity(flipped)
    assert np.all(np.sum(smooth[1:] * smooth[:-1], axis=1) > 0)
    stacked = np.stack([flipped, -flipped], axis=0)  # time along axis 1
    fixed = r.quat_continuity(stacked, axis=1)
    assert np.all(np.sum(fixed[:, 1:] * fixed[:, :-1], axis=-1) > 0)


def test_shapes_are_preserved():
    a = RNG.uniform(-1, 1, (2, 5, 3))
    assert r.euler_to_matrix(a, "ZXY").shape == (2, 5, 3, 3)
    assert r.matrix_to_quat(r.euler_to_matrix(a, "ZXY")).shape == (2, 5, 4)
    assert r.euler_to_matrix(np.zeros(3), "XYZ").shape == (3, 3)
    assert r.quat_to_matrix([1.0, 0, 0, 0]).shape == (3, 3)
    assert r.slerp(random_quats(1)[0], random_quats(1)[0], 0.5).shape == (4,)
    np.testing.assert_allclose(
        r.multiply_each(np.eye(3) * 2, np.ones((2, 5, 3, 3)), np.eye(3)), 2 * np.ones((2, 5, 3, 3))
    )


def test_blender_euler_order_is_the_reverse():
    """mathutils Euler((x, y, z), order[::-1]) is our order with the angles in that order."""
    pytest.importorskip("bpy")  # the pip wheel provides mathutils once bpy is imported
    import mathutils

    for order in ORDERS:
        for a in euler_angles(20):
            theirs = mathutils.Euler([a[order.index(axis)] for axis in "XYZ"], order[::-1]).to_matrix()
            np.testing.assert_allclose(r.euler_to_matrix(a, order), np.array(theirs), atol=1e-6)  # float32


def test_rotation_between_is_the_smallest_turn_between_directions():
    a, b = RNG.normal(size=(100, 3)), RNG.normal(size=(100, 3))
    a[:3] = [[1, 0, 0], [0, 2, 0], [0, 0, 1]]
    b[:3] = [[1, 0, 0], [0, -1, 0], [0, 0, 3]]  # equal, opposite, parallel
    m = r.rotation_between(a, b)
    unit_a, unit_b = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in (a, b))
    np.testing.assert_allclose(np.einsum("nij,nj->ni", m, unit_a), unit_b, atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(m), 1.0)
    angle = Rotation.from_matrix(m).magnitude()  # no turn larger than the angle between them
    np.testing.assert_allclose(angle, np.arccos(np.clip(np.sum(unit_a * unit_b, axis=1), -1, 1)), atol=1e-7)
    np.testing.assert_allclose(m[2], np.eye(3), atol=1e-15)


@pytest.mark.parametrize("order", ORDERS)
def test_the_dual_euler_triple_and_the_nearest_branch(order):
    angles = RNG.uniform(-4, 4, (200, 3))
    same = r.euler_to_matrix(angles, order)
    np.testing.assert_allclose(r.euler_to_matrix(r.euler_dual(angles), order), same, atol=1e-12)
    reference = angles + RNG.normal(0, 0.1, angles.shape)
    back = r.euler_nearest(r.matrix_to_euler(same, order), reference)
    np.testing.assert_allclose(back, angles, atol=1e-9)


def test_euler_continuity_passes_through_gimbal_lock():
    """A turn about Y past 90 degrees in order ZYX: the canonical angles flip the first and last
    by half a turn there; continuous ones carry on with the middle angle past 90."""
    t = np.linspace(0, 1, 300)
    angles = np.stack([0.3 + t, np.linspace(0.5, 2.5, 300), 3.0 - 8 * t], axis=1)
    canonical = r.matrix_to_euler(r.euler_to_matrix(angles, "ZYX"), "ZYX")
    assert np.abs(np.diff(canonical, axis=0)).max() > 3
    smooth = r.euler_continuity(np.stack([canonical, canonical], axis=1), axis=0)
    np.testing.assert_allclose(smooth[:, 0], angles - angles[0] + smooth[0, 0], atol=1e-9)
    np.testing.assert_allclose(r.euler_to_matrix(smooth[:, 1], "ZYX"), r.euler_to_matrix(angles, "ZYX"), atol=1e-12)


def test_unwrap_euler_is_numpys_unwrap_bit_for_bit():
    walk = np.cumsum(RNG.normal(0, 1.5, (400, 2, 3)), axis=0)
    wrapped = np.angle(np.exp(1j * walk))  # many jumps
    wrapped[10, 0, 0] = wrapped[9, 0, 0] + np.pi  # steps of exactly half a turn, either way
    wrapped[20, 1, 2] = wrapped[19, 1, 2] - np.pi
    with_nan = wrapped.copy()
    with_nan[30, 0, 1] = np.nan
    for angles in (wrapped, with_nan, np.sin(walk), wrapped[:1], wrapped[:0]):
        for axis in range(3):
            ours, numpy_s = r.unwrap_euler(angles, axis=axis), np.unwrap(angles, axis=axis)
            np.testing.assert_array_equal(ours, numpy_s)
            assert np.array_equal(np.signbit(ours), np.signbit(numpy_s))
