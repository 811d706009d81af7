"""Bones of a skeleton with joint axes (ASF axes, HTR base rotations) follow those axes: exactly
(pose values are the file's local rotations) or rolled about a tail that points at the children.
Both give the core's world positions."""

import numpy as np
import pytest

from blender_scene import assert_heads_match_core, bpy, fresh_scene
from mocap_io import core
from mocap_io.addon.common.progress import run
from mocap_io.addon.common.units import axis_matrix
from mocap_io.addon.to_blender.motions import build_motions
from mocap_io.core import rotations

HALF_TURN_X = np.diag([1.0, -1.0, -1.0])


def _turn_y_onto(direction, spin):
    """A rotation whose Y axis is `direction`, spun by `spin` radians about it."""
    y = direction / np.linalg.norm(direction)
    x = np.cross(y, [0.3, 0.5, 0.8])
    x /= np.linalg.norm(x)
    frame = np.stack([x, y, np.cross(x, y)], axis=1)
    return frame @ rotations.euler_to_matrix(np.array([0.0, np.degrees(spin), 0.0]), "XYZ")


def axes_motion(frames=12):
    """root -> a (axes along the bone) -> b (axes against the bone) -> c (any axes) -> d (a leaf),
    built from world rest frames W and positions P: rest rotation W_p^T W_j, offset W_p^T (P_j - P_p)."""
    rng = np.random.default_rng(7)
    positions = np.array([[0, 0, 0], [0, 10, 0], [5, 20, 3], [5, 28, -4], [12, 30, -1.0]])
    world = [
        rotations.euler_to_matrix(np.array([10.0, 20, 30]), "ZXY"),
        _turn_y_onto(positions[2] - positions[1], 0.7),
        _turn_y_onto(positions[2] - positions[3], -1.1),
        rotations.euler_to_matrix(np.array([-50.0, 70, 5]), "XYZ"),
        rotations.euler_to_matrix(np.array([0.0, 0, 0]), "XYZ"),
    ]
    parents = [-1, 0, 1, 2, 3]
    rest, offsets = [world[0]], [positions[0]]
    for j in range(1, 5):
        p = parents[j]
        rest.append(world[p].T @ world[j])
        offsets.append(world[p].T @ (positions[j] - positions[p]))
    skeleton = core.Skeleton(
        ["root", "a", "b", "c", "d"],
        parents,
        offsets,
        channels=[("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")] + [()] * 4,
        rest_rotations=rest,
    )
    euler = rng.uniform(-60, 60, (frames, 5, 3))
    translations = np.broadcast_to(skeleton.offsets, (frames, 5, 3)).copy()
    translations[:, 0] += rng.uniform(-3, 3, (frames, 3))
    return core.Motion(skeleton, 30, euler, ["XYZ", "ZXY", "YZX", "XYZ", "ZYX"], translations), world, positions


@pytest.mark.parametrize("bone_axes", ["ROLL", "EXACT"])
def test_world_positions_are_the_cores(bone_axes):
    motion, _, _ = axes_motion()
    fresh_scene()
    (obj,), _ = run(
        build_motions(bpy.context, [("axes.bvh", motion)], bone_axes=bone_axes, scale=1.0), bpy.context, "test"
    )
    assert_heads_match_core(obj, motion, range(motion.frame_count), 1e-5 * 40)


def _pose_rotations(obj, motion, frame):
    bpy.context.scene.frame_set(1 + frame)
    return {
        j: rotations.quat_to_matrix(np.array(obj.pose.bones[n].rotation_quaternion))
        for j, n in enumerate(motion.skeleton.names)
    }


def test_exact_axes_make_pose_values_the_files_rotations():
    motion, world, _ = axes_motion()
    fresh_scene()
    (obj,), _ = run(
        build_motions(bpy.context, [("axes.bvh", motion)], bone_axes="EXACT", scale=1.0), bpy.context, "test"
    )
    axes = axis_matrix("-Z", "Y")
    for j, name in enumerate(motion.skeleton.names):
        bone_frame = np.array(obj.data.bones[name].matrix_local)[:3, :3]
        np.testing.assert_allclose(bone_frame, axes @ world[j], atol=1e-6)
    for frame in (0, 5, 11):
        pose = _pose_rotations(obj, motion, frame)
        for j in range(5):
            np.testing.assert_allclose(pose[j], motion.local_rotation(j)[frame], atol=2e-6)


def test_rolled_bones_point_at_their_children_with_the_joint_axes_turned_the_least():
    motion, world, positions = axes_motion()
    fresh_scene()
    (obj,), _ = run(build_motions(bpy.context, [("axes.bvh", motion)], bone_axes="ROLL"), bpy.context, "test")
    axes = axis_matrix("-Z", "Y")
    bones = obj.data.bones
    for j, child in [(0, 1), (1, 2), (2, 3), (3, 4)]:
        along = np.array(bones[j].tail_local) - np.array(bones[j].head_local)
        toward = axes @ (positions[child] - positions[j])
        np.testing.assert_allclose(along / np.linalg.norm(along), toward / np.linalg.norm(toward), atol=1e-6)
    frames = {name: np.array(bones[name].matrix_local)[:3, :3] for name in ("a", "b")}
    np.testing.assert_allclose(frames["a"], axes @ world[1], atol=1e-6)  # Y along the bone: the joint's axes
    np.testing.assert_allclose(frames["b"], axes @ world[2] @ HALF_TURN_X, atol=1e-6)  # Y against it: half a turn
    pose = _pose_rotations(obj, motion, 3)
    np.testing.assert_allclose(pose[1], motion.local_rotation(1)[3], atol=2e-6)
    np.testing.assert_allclose(pose[2], HALF_TURN_X @ motion.local_rotation(2)[3] @ HALF_TURN_X, atol=2e-6)
