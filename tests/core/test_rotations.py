"""Rotation math against mathutils (Blender's own, an independent implementation) and identities."""

import numpy as np
import pytest

from mocap_io.core import rotations as r

pytest.importorskip("bpy")  # the pip wheel provides mathutils once bpy is imported
import mathutils  # noqa: E402

ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
RNG = np.random.default_rng(11)


def mu_matrix(m):
    return mathutils.Matrix([list(row) for row in m])


def as_array(x):
    return np.array([list(row) for row in x]) if hasattr(x[0], "__len__") else np.array(list(x))


def random_quats(n):
    return r.quat_normalize(RNG.normal(size=(n, 4)))


@pytest.mark.parametrize("order", ORDERS)
def test_euler_to_matrix_matches_mathutils_and_inverts(order):
    angles = RNG.uniform(-np.pi, np.pi, (200, 3))
    angles[:, 1] = RNG.uniform(-np.pi / 2, np.pi / 2, 200)
    ours = r.euler_to_matrix(angles, order)
    for a, m in zip(angles[:20], ours):
        theirs = mathutils.Euler([a[order.index(axis)] for axis in "XYZ"], order[::-1]).to_matrix()
        np.testing.assert_allclose(m, as_array(theirs), atol=1e-6)  # mathutils is single precision
    back = r.matrix_to_euler(ours, order)
    np.testing.assert_allclose(back, angles, atol=1e-9)
    np.testing.assert_allclose(r.euler_to_quat(angles, order), r.matrix_to_quat(ours) * np.sign(
        r.euler_to_quat(angles, order)[:, :1]), atol=1e-12)
    for m in ours[:10]:  # mathutils reads the same angles back from our matrices
        theirs = mu_matrix(m).to_euler(order[::-1])
        np.testing.assert_allclose(r.euler_to_matrix(r.matrix_to_euler(m, order), order),
                                   as_array(theirs.to_matrix()), atol=1e-6)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("middle", [np.pi / 2, -np.pi / 2])
def test_gimbal_lock_is_deterministic_and_exact(order, middle):
    angles = np.array([[0.3, middle, -1.1], [2.0, middle, 0.0], [-0.4, middle, 0.4]])
    m = r.euler_to_matrix(angles, order)
    back = r.matrix_to_euler(m, order)
    np.testing.assert_allclose(back[:, 2], 0.0)
    np.testing.assert_allclose(back[:, 1], middle, atol=1e-7)
    np.testing.assert_allclose(r.euler_to_matrix(back, order), m, atol=1e-12)


def test_quaternions_match_mathutils_including_half_turns():
    q = random_quats(50)
    half_turns = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0.6, 0.8, 0], [0, 0.48, 0.6, 0.64]])
    q = np.vstack([q, half_turns, [[1, 0, 0, 0]]])
    m = r.quat_to_matrix(q)
    for qi, mi in zip(q, m):
        np.testing.assert_allclose(mi, as_array(mathutils.Quaternion(qi).to_matrix()), atol=1e-6)
        theirs = as_array(mu_matrix(mi).to_quaternion())
        back = r.matrix_to_quat(mi)
        np.testing.assert_allclose(back * np.sign(np.dot(back, theirs)), theirs, atol=1e-6)
    np.testing.assert_allclose(r.quat_to_matrix(r.matrix_to_quat(m)), m, atol=1e-12)
    assert np.all(r.matrix_to_quat(m)[:, 0] >= 0)


def test_products_inverse_and_rotation_of_vectors():
    a, b = random_quats(30), random_quats(30)
    ab = r.quat_multiply(a, b)
    for x, y, z in zip(a, b, ab):
        np.testing.assert_allclose(z, as_array(mathutils.Quaternion(x) @ mathutils.Quaternion(y)), atol=1e-6)
    np.testing.assert_allclose(r.quat_to_matrix(ab), r.quat_to_matrix(a) @ r.quat_to_matrix(b), atol=1e-12)
    np.testing.assert_allclose(r.quat_multiply(a, r.quat_inverse(a)), np.tile([1, 0, 0, 0], (30, 1)), atol=1e-12)
    v = RNG.normal(size=(30, 3))
    np.testing.assert_allclose(r.quat_rotate(a, v), np.einsum("nij,nj->ni", r.quat_to_matrix(a), v), atol=1e-12)
    np.testing.assert_allclose((r.quat_product_matrix(a) @ b[..., None])[..., 0], ab, atol=1e-12)
    np.testing.assert_allclose((r.quat_product_matrix(b, left=False) @ a[..., None])[..., 0], ab, atol=1e-12)


def test_exp_log_rotation_vectors_and_axis_angle():
    axes = r.quat_normalize(RNG.normal(size=(20, 4)))[:, 1:]
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = np.concatenate([[1e-12, 1e-8, np.pi - 1e-9, np.pi], RNG.uniform(0, np.pi, 16)])
    q = r.axis_angle_to_quat(axes, angles)
    for axis, angle, qi in zip(axes, angles, q):  # q and -q are the same rotation (at pi both occur)
        theirs = as_array(mathutils.Quaternion(axis, angle))
        np.testing.assert_allclose(qi * np.sign(np.dot(qi, theirs)), theirs, atol=1e-6)
    np.testing.assert_allclose(r.quat_exp(r.quat_log(q)), q, atol=1e-12)
    rotvec = r.quat_to_rotvec(q)
    np.testing.assert_allclose(np.linalg.norm(rotvec, axis=1), angles, atol=1e-9)
    np.testing.assert_allclose(r.quat_to_matrix(r.rotvec_to_quat(rotvec)), r.quat_to_matrix(q), atol=1e-12)
    axis, angle = r.quat_to_axis_angle(q[4:])
    np.testing.assert_allclose(angle, angles[4:], atol=1e-12)
    np.testing.assert_allclose(axis, axes[4:], atol=1e-9)
    np.testing.assert_allclose(r.quat_log([1.0, 0, 0, 0]), [0, 0, 0])  # no division by zero
    identity_axis, identity_angle = r.quat_to_axis_angle(np.array([1.0, 0, 0, 0]))
    assert identity_angle == 0 and list(identity_axis) == [1, 0, 0]


def test_slerp_matches_mathutils_and_is_stable():
    q0, q1 = random_quats(20), random_quats(20)
    for t in (0.0, 0.25, 0.5, 0.9, 1.0):
        ours = r.slerp(q0, q1, np.full(20, t))
        for a, b, c in zip(q0, q1, ours):
            theirs = as_array(mathutils.Quaternion(a).slerp(mathutils.Quaternion(b), t))
            np.testing.assert_allclose(c * np.sign(np.dot(c, theirs)), theirs, atol=1e-5)
    np.testing.assert_allclose(r.slerp(q0, -q1, 0.3), r.slerp(q0, q1, 0.3), atol=1e-12)  # shortest arc
    same = r.slerp(q0[0], q0[0] + 1e-12, np.linspace(0, 1, 5))
    assert same.shape == (5, 4) and np.isfinite(same).all()
    np.testing.assert_allclose(same, np.tile(q0[0], (5, 1)), atol=1e-9)
    half = r.slerp([1.0, 0, 0, 0], [0.0, 0, 0, 1], 0.5)  # rotations 180 degrees apart
    np.testing.assert_allclose(half, [np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=1e-12)


def test_compose_and_decompose_trs():
    t = RNG.normal(size=(10, 3))
    rot = r.quat_to_matrix(random_quats(10))
    s = RNG.uniform(0.5, 2, (10, 3))
    s[0, 0] *= -1  # a mirroring
    m = r.compose_trs(t, rot, s)
    theirs = mathutils.Matrix.LocRotScale(mathutils.Vector(t[1]), mu_matrix(rot[1]).to_quaternion(),
                                          mathutils.Vector(s[1]))
    np.testing.assert_allclose(m[1], as_array(theirs), atol=1e-5)
    t2, rot2, s2 = r.decompose_trs(m)
    np.testing.assert_allclose(r.compose_trs(t2, rot2, s2), m, atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(rot2), 1.0)
    np.testing.assert_allclose(t2, t)
    np.testing.assert_allclose(np.abs(s2), np.abs(s), atol=1e-12)
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
    np.testing.assert_allclose(r.sandwich(np.eye(3) * 2, np.ones((2, 5, 3, 3)), np.eye(3)), 2 * np.ones((2, 5, 3, 3)))
