"""Forward kinematics against an independent per-frame, per-joint computation with scipy."""

import numpy as np
from scipy.spatial.transform import Rotation

from bvh_samples import random_motion
from mocap_io import core


def reference_world(motion):
    """World matrices (F, J, 4, 4), joint by joint with scipy's rotations: G_child = G_parent @ T @ R."""
    s = motion.skeleton
    frames = len(motion.euler)
    world = []
    for j in range(s.joint_count):
        local = np.tile(np.eye(4), (frames, 1, 1))
        local[:, :3, :3] = Rotation.from_euler(motion.euler_orders[j], motion.euler[:, j]).as_matrix()
        local[:, :3, 3] = motion.translations[:, j]
        world.append(local if s.parents[j] < 0 else world[s.parents[j]] @ local)
    return np.stack(world, axis=1)


def test_world_matrices_match_a_per_joint_reference():
    m = random_motion(frames=5000, seed=3)  # more frames than one parallel chunk
    ours = m.world_matrices()
    assert ours.shape == (5000, 4, 4, 4)
    np.testing.assert_allclose(ours, reference_world(m), atol=1e-9)
    np.testing.assert_allclose(m.world_positions(), ours[..., :3, 3], atol=1e-12)


def test_end_sites_and_rest_rotations_and_scales():
    m = random_motion(frames=3, seed=4)
    world = m.world_matrices()
    expected = np.einsum("fij,j->fi", world[:, 2, :3, :3], [1, 2, 3]) + world[:, 2, :3, 3]
    np.testing.assert_allclose(m.end_site_positions()[:, 0], expected, atol=1e-9)
    # a 90-degree rest rotation on joint a turns its children; a scale of 2 on a sizes a's own
    # segment only (HTR's SF): its children stay where its rotation puts them
    rest = np.broadcast_to(np.eye(3), (4, 3, 3)).copy()
    rest[1] = core.rotations.axis_rotation("Z", np.pi / 2)
    s = m.skeleton
    skeleton = core.Skeleton(
        s.names, s.parents, s.offsets, rest_rotations=rest, end_site_parents=[1, 2], end_site_offsets=[[0, 3, 0]] * 2
    )
    scales = np.ones((3, 4))
    scales[:, 1] = 2.0
    scales[:, 2] = 0.5
    moved = core.Motion(skeleton, m.fps, np.zeros_like(m.euler), m.euler_orders, m.translations, scales)
    positions = moved.world_positions()
    root = m.translations[:, 0]
    np.testing.assert_allclose(positions[:, 1], root + [0, 10, 0])
    np.testing.assert_allclose(positions[:, 2], root + [0, 10, 0] + [0, 5, 1], atol=1e-12)
    np.testing.assert_allclose(moved.end_site_positions()[:, 0], root + [0, 10, 0] + 2 * np.array([-3, 0, 0]))
    np.testing.assert_allclose(moved.end_site_positions()[:, 1], positions[:, 2] + 0.5 * np.array([-3, 0, 0]))
    linear = moved.world_matrices()[..., :3, :3]
    np.testing.assert_allclose(linear[:, 1], 2 * np.broadcast_to(rest[1], (3, 3, 3)), atol=1e-12)
    np.testing.assert_allclose(linear[:, 3], np.broadcast_to(rest[1], (3, 3, 3)), atol=1e-12)
