"""matrix_to_euler near gimbal lock and on matrices that are not quite orthonormal (float32 data)."""

import numpy as np
import pytest

from mocap_io.core import rotations

ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]


def near_gimbal_angles(count, seed=0):
    """Euler angles whose middle angle is within 1e-12 .. 1e-1 rad of +-90 degrees (and exactly at it)."""
    rng = np.random.default_rng(seed)
    angles = rng.uniform(-np.pi, np.pi, (count, 3))
    sign = np.where(rng.random(count) < 0.5, -1.0, 1.0)
    angles[:, 1] = sign * (np.pi / 2 - 10.0 ** rng.uniform(-12, -1, count))
    angles[:10, 1] = np.pi / 2
    angles[10:20, 1] = -np.pi / 2
    return angles


def nearest_rotation(m):
    u, _, vt = np.linalg.svd(m)
    return u @ vt


@pytest.mark.parametrize("order", ORDERS)
def test_exact_rotations_come_back_near_gimbal_lock(order):
    m = rotations.euler_to_matrix(near_gimbal_angles(20_000), order)
    back = rotations.euler_to_matrix(rotations.matrix_to_euler(m, order), order)
    np.testing.assert_allclose(back, m, atol=2e-15)


@pytest.mark.parametrize("order", ORDERS)
def test_float32_matrices_give_the_nearest_rotation(order):
    """Matrices stored in single precision are off orthonormal by ~1e-7: the angles must give the
    rotation nearest to them within that noise, gimbal lock or not (an arcsin of a clipped entry
    lost up to 2.4e-4 here)."""
    rng = np.random.default_rng(1)
    angles = np.concatenate([near_gimbal_angles(20_000, seed=2), rng.uniform(-np.pi, np.pi, (20_000, 3))])
    m = rotations.euler_to_matrix(angles, order).astype(np.float32).astype(float)
    back = rotations.euler_to_matrix(rotations.matrix_to_euler(m, order), order)
    assert np.abs(back - nearest_rotation(m)).max() < 2e-7


@pytest.mark.parametrize("order", ORDERS)
def test_angles_away_from_gimbal_lock_are_the_ones_given(order):
    rng = np.random.default_rng(3)
    angles = rng.uniform(-np.pi, np.pi, (10_000, 3))
    angles[:, 1] *= 0.49
    np.testing.assert_allclose(
        rotations.matrix_to_euler(rotations.euler_to_matrix(angles, order), order), angles, atol=1e-12
    )


def test_gimbal_lock_puts_the_whole_turn_in_the_first_angle():
    m = rotations.euler_to_matrix([[0.3, np.pi / 2, 0.4]], "ZXY")
    first, middle, last = rotations.matrix_to_euler(m, "ZXY")[0]
    assert last == 0.0 and middle == pytest.approx(np.pi / 2, abs=1e-15) and first == pytest.approx(0.7, abs=1e-15)


def test_any_leading_shape():
    angles = near_gimbal_angles(24).reshape(2, 3, 4, 3)
    m = rotations.euler_to_matrix(angles, "YZX")
    out = rotations.matrix_to_euler(m, "YZX")
    assert out.shape == (2, 3, 4, 3)
    np.testing.assert_allclose(rotations.euler_to_matrix(out, "YZX"), m, atol=2e-15)
    assert rotations.matrix_to_euler(np.eye(3), "XYZ").shape == (3,)


def test_nearest_rotation_makes_single_precision_rotations_proper():
    m = rotations.euler_to_matrix(near_gimbal_angles(1000), "ZXY").astype(np.float32).astype(float)
    r = rotations.nearest_rotation(m)
    np.testing.assert_allclose(r @ np.swapaxes(r, -1, -2), np.broadcast_to(np.eye(3), r.shape), atol=4e-15)
    assert np.all(np.linalg.det(r) > 0) and np.abs(r - m).max() < 2e-7
    exact = rotations.euler_to_matrix(near_gimbal_angles(10), "XYZ")
    np.testing.assert_allclose(rotations.nearest_rotation(exact), exact, atol=1e-15)


@pytest.mark.parametrize("order", ORDERS)
def test_quaternions_give_the_angles_of_their_matrices(order):
    angles = np.concatenate([near_gimbal_angles(5000), np.random.default_rng(5).uniform(-np.pi, np.pi, (5000, 3))])
    q = rotations.euler_to_quat(angles, order)
    q[::2] *= -1.0  # either sign
    from_quat = rotations.quat_to_euler(q.reshape(100, 100, 4), order).reshape(-1, 3)
    np.testing.assert_allclose(from_quat, rotations.matrix_to_euler(rotations.quat_to_matrix(q), order), atol=1e-12)
    back = rotations.euler_to_matrix(from_quat, order)
    np.testing.assert_allclose(back, rotations.euler_to_matrix(angles, order), atol=2e-15)
