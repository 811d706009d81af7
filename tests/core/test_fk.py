"""Forward kinematics against an independent per-frame computation with mathutils."""

import numpy as np
import pytest

from mocap_io import core
from bvh_samples import random_motion

pytest.importorskip("bpy")  # the pip wheel provides mathutils once bpy is imported
import mathutils  # noqa: E402


def mathutils_world(motion, frame):
    """World matrices of one frame, joint by joint, with mathutils (Blender's Euler order is reversed)."""
    s = motion.skeleton
    world = []
    for j in range(s.joint_count):
        order = motion.euler_orders[j]
        angles = motion.euler[frame, j]
        euler = mathutils.Euler([angles[order.index(a)] for a in "XYZ"], order[::-1])
        local = mathutils.Matrix.Translation(motion.translations[frame, j]) @ euler.to_matrix().to_4x4()
        world.append(local if s.parents[j] < 0 else world[s.parents[j]] @ local)
    return np.array([[list(row) for row in m] for m in world])


def test_world_matrices_match_mathutils():
    m = random_motion(frames=7, seed=3)
    ours = m.world_matrices()
    assert ours.shape == (7, 4, 4, 4)
    for f in range(7):  # mathutils computes in single precision
        np.testing.assert_allclose(ours[f], mathutils_world(m, f), rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(m.world_positions(), ours[..., :3, 3], atol=1e-12)


def test_end_sites_and_rest_rotations_and_scales():
    m = random_motion(frames=3, seed=4)
    world = m.world_matrices()
    expected = np.einsum("fij,j->fi", world[:, 2, :3, :3], [1, 2, 3]) + world[:, 2, :3, 3]
    np.testing.assert_allclose(m.end_site_positions()[:, 0], expected, atol=1e-9)
    # a 90-degree rest rotation on joint a and a scale of 2 on it move its children accordingly
    rest = np.broadcast_to(np.eye(3), (4, 3, 3)).copy()
    rest[1] = core.rotations.axis_rotation("Z", np.pi / 2)
    s = m.skeleton
    skeleton = core.Skeleton(s.names, s.parents, s.offsets, rest_rotations=rest)
    scales = np.ones((3, 4))
    scales[:, 1] = 2.0
    moved = core.Motion(skeleton, m.fps, np.zeros_like(m.euler), m.euler_orders, m.translations, scales)
    positions = moved.world_positions()
    root = m.translations[:, 0]
    np.testing.assert_allclose(positions[:, 1], root + [0, 10, 0])
    np.testing.assert_allclose(positions[:, 2], root + [0, 10, 0] + 2 * np.array([0, 5, 1]), atol=1e-12)
