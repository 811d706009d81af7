"""body.take_up: the one guess of a take's up direction, for retargeting and drawing (figure.Figure.up)."""

import numpy as np

from mocap_io import core
from mocap_io.core.body import sample_frames, take_up
from mocap_io.core.bone_map import find_roles
from mocap_io.core.figure import Figure
from mocap_io.core.formats.htr import HtrRecord
from sample_motion import cmu_like_motion


def turned(motion, rotation):
    """The motion with its roots turned by `rotation` (world positions turn with it)."""
    skeleton = motion.skeleton
    rest = np.broadcast_to(np.eye(3), (skeleton.joint_count, 3, 3)).copy()
    rest[skeleton.roots] = rotation
    offsets = skeleton.offsets.copy()
    offsets[skeleton.roots] = offsets[skeleton.roots] @ rotation.T
    moved = core.Skeleton(skeleton.names, skeleton.parents, offsets, channels=skeleton.channels, rest_rotations=rest)
    translations = motion.translations.copy()
    translations[:, skeleton.roots] = translations[:, skeleton.roots] @ rotation.T
    return core.Motion(moved, motion.fps, motion.euler, motion.euler_orders, translations)


def test_a_take_stands_on_the_axis_nearest_its_hips_to_head_direction():
    walk = cmu_like_motion(core, 60)
    assert take_up(walk).tolist() == [0, 1, 0]
    lying = turned(walk, np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]]))  # +Y onto +Z
    assert take_up(lying).tolist() == [0, 0, 1]
    roles = find_roles(walk.skeleton)
    assert take_up(lying, roles, lying.world_positions()).tolist() == [0, 0, 1]  # positions the caller has
    assert take_up(lying.take(slice(0, 0))).tolist() == [0, 0, 1]  # no frames: the rest pose
    assert take_up(walk, {}) is None  # no hips, no head: nothing tells


def test_the_files_own_up_axis_comes_first_and_drawing_takes_the_same_answer():
    walk = cmu_like_motion(core, 30)
    walk.record = HtrRecord(header=(("GlobalAxisofGravity", "z"),))  # as an HTR's
    assert take_up(walk).tolist() == [0, 0, 1] and Figure(walk).up.tolist() == [0, 0, 1]
    walk.record = {}
    assert Figure(walk).up.tolist() == take_up(walk).tolist() == [0, 1, 0]


def test_up_to_25_frames_are_looked_at_the_first_and_last_among_them():
    assert sample_frames(0).tolist() == [] and sample_frames(3).tolist() == [0, 1, 2]
    frames = sample_frames(1000)
    assert len(frames) == 25 and frames[0] == 0 and frames[-1] == 999
