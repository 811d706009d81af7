"""Read an armature's animation back into a core Motion (the mirror of armature_build)."""

import bpy
import numpy as np

from .. import core
from ..core import rotations
from ..core.rotations import sandwich
from . import compat
from .armature_build import bone_rest_matrices
from .pose_space import file_locals

_LINEAR = 1  # Keyframe.interpolation enum value of 'LINEAR'


def needs_evaluation(obj):
    """Whether the pose depends on more than the assigned action's keys (constraints, drivers, NLA,
    non-default inheritance), so that export must evaluate the scene frame by frame."""
    animation = obj.animation_data
    if animation is None or animation.action is None:
        return True
    if len(animation.drivers) or any(t.strips for t in animation.nla_tracks) or obj.constraints:
        return True
    if any(p.constraints for p in obj.pose.bones):
        return True
    if any(c.data_path in ("location", "rotation_euler", "rotation_quaternion", "scale")
           for c in compat.action_fcurves(obj)):
        return True  # the object itself moves
    return any(not b.use_inherit_rotation or b.inherit_scale != "FULL" or not b.use_local_location
               for b in obj.data.bones)


def armature_motion(context, obj, frames, axes, scale, *, source="AUTO", rotation_order="NATIVE",
                    position_channels="ROOT"):
    """The Motion of armature `obj` over the scene frames `frames` (ints).

    source            "ACTION" reads the keys of the assigned action (fast, numpy FK),
                      "EVALUATED" steps the scene through every frame (constraints, drivers, NLA),
                      "AUTO" picks ACTION unless the rig needs evaluation
    rotation_order    "NATIVE" (each bone's Euler mode; ZXY for quaternion bones) or e.g. "ZXY"
    position_channels "ROOT" or "ALL"
    """
    context.view_layer.update()  # matrix_world of an object moved since the last evaluation
    names, parents = _hierarchy(obj)
    rest = bone_rest_matrices(obj, names)
    if source == "EVALUATED" or (source == "AUTO" and needs_evaluation(obj)):
        poses, world = _evaluated_poses(context, obj, names, frames)
        pose_rotations, pose_positions = poses[..., :3, :3], poses[..., :3, 3]
    else:
        pose_rotations, pose_positions = _action_poses(obj, names, parents, rest, frames)
        world = np.array(obj.matrix_world)[None]
    world_rotation, world_position = _to_world(world, pose_rotations, pose_positions)
    rest_rotation, rest_position = _to_world(np.array(obj.matrix_world)[None], rest[None, :, :3, :3],
                                             rest[None, :, :3, 3])
    local, translations = file_locals(parents, rest[:, :3, :3], world_rotation, world_position, axes, scale)
    offsets = file_locals(parents, rest[:, :3, :3], rest_rotation, rest_position, axes, scale)[1][0]
    orders = [_euler_order(obj.pose.bones[n].rotation_mode, rotation_order) for n in names]
    euler = np.stack([rotations.unwrap_euler(rotations.matrix_to_euler(local[:, j], orders[j]))
                      for j in range(len(names))], axis=1) if len(frames) else np.zeros((0, len(names), 3))
    channels = [(("Xposition", "Yposition", "Zposition") if p < 0 or position_channels == "ALL" else ())
                + tuple(a + "rotation" for a in order) for p, order in zip(parents, orders)]
    noise = 1e-5 * max(np.abs(offsets).max(), 1e-9)  # Blender stores poses in single precision
    for j, c in enumerate(channels):
        if not c[0].endswith("position") and np.abs(translations[:, j] - offsets[j]).max() <= noise:
            translations[:, j] = offsets[j]  # a bone that does not stretch
    leaves = [j for j in range(len(names)) if j not in parents]
    tails = np.array([(rest[j] @ [0.0, obj.data.bones[names[j]].length, 0.0, 1.0])[:3] for j in leaves])
    tip_offsets = (tails - rest[leaves, :3, 3]) @ axes / scale if leaves else None
    skeleton = core.Skeleton(names, parents, offsets, channels=channels,
                             end_site_parents=leaves, end_site_offsets=tip_offsets)
    fps = context.scene.render.fps / context.scene.render.fps_base
    return core.Motion(skeleton, fps, euler, orders, translations)


def _hierarchy(obj):
    """Bone names with every parent before its children, and parent indices."""
    names, parents = [], []
    pending = [b for b in obj.data.bones if b.parent is None]
    while pending:
        bone = pending.pop(0)
        names.append(bone.name)
        parents.append(names.index(bone.parent.name) if bone.parent else -1)
        pending[0:0] = list(bone.children)
    return names, parents


def _euler_order(mode, rotation_order):
    if rotation_order != "NATIVE":
        return rotation_order
    return mode[::-1] if len(mode) == 3 else "ZXY"


def _to_world(object_matrices, rotations, positions):
    """World rotations (F, J, 3, 3) and positions (F, J, 3) of armature-space poses.

    object_matrices (1 or F, 4, 4); the rotations drop any scale (object or bone, no shear).
    """
    if len(object_matrices) == 1:  # a constant object transform: one GEMM each
        matrix = object_matrices[0]
        positions = positions @ matrix[:3, :3].T + matrix[:3, 3]
        linear = sandwich(matrix[:3, :3], rotations, np.eye(3))
    else:
        positions = (object_matrices[:, None, :3, :3] @ positions[..., None])[..., 0] + object_matrices[:, None, :3, 3]
        linear = object_matrices[:, None, :3, :3] @ rotations
    return linear / np.linalg.norm(linear, axis=-2, keepdims=True), positions


def _evaluated_poses(context, obj, names, frames):
    """Pose matrices (F, J, 4, 4) and object matrices (F, 4, 4), stepping the scene frame by frame."""
    scene = context.scene
    current = scene.frame_current
    order = {b.name: i for i, b in enumerate(obj.pose.bones)}
    index = [order[n] for n in names]
    flat = np.empty(16 * len(obj.pose.bones), dtype=np.float32)
    poses = np.empty((len(frames), len(names), 4, 4))
    world = np.empty((len(frames), 4, 4))
    try:
        for f, frame in enumerate(frames):
            scene.frame_set(int(frame))
            obj.pose.bones.foreach_get("matrix", flat)
            poses[f] = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[index]
            world[f] = np.array(obj.matrix_world)
    finally:
        scene.frame_set(current)
    return poses, world


def _action_poses(obj, names, parents, rest, frames):
    """Armature-space pose rotations (F, J, 3, 3) (with bone scale) and positions (F, J, 3) from
    the action's keys, by forward kinematics in numpy."""
    curves = {(c.data_path, c.array_index): c for c in compat.action_fcurves(obj)}
    rotations_out = np.empty((len(names), len(frames), 3, 3))  # joint-major: per-joint slices are contiguous
    positions_out = np.empty((len(names), len(frames), 3))
    for j, name in enumerate(names):
        bone = obj.pose.bones[name]
        path = f'pose.bones["{bpy.utils.escape_identifier(name)}"].'

        def channel(prop, size, default):
            return np.stack([_sample(curves.get((path + prop, i)), frames, default[i]) for i in range(size)], axis=1)

        if bone.rotation_mode == "QUATERNION":
            rotation = rotations.quat_to_matrix(rotations.quat_normalize(
                channel("rotation_quaternion", 4, bone.rotation_quaternion)))
        elif bone.rotation_mode == "AXIS_ANGLE":
            axis_angle = channel("rotation_axis_angle", 4, bone.rotation_axis_angle)
            rotation = rotations.quat_to_matrix(rotations.axis_angle_to_quat(axis_angle[:, 1:], axis_angle[:, 0]))
        else:
            angles = channel("rotation_euler", 3, bone.rotation_euler)
            order = bone.rotation_mode[::-1]
            rotation = rotations.euler_to_matrix(angles[:, ["XYZ".index(a) for a in order]], order)
        rotation *= channel("scale", 3, bone.scale)[:, None, :]
        p = parents[j]
        relative = rest[j] if p < 0 else np.linalg.inv(rest[p]) @ rest[j]
        local_rotation = sandwich(relative[:3, :3], rotation, np.eye(3))
        local_position = relative[:3, 3] + channel("location", 3, bone.location) @ relative[:3, :3].T
        if p < 0:
            rotations_out[j], positions_out[j] = local_rotation, local_position
        else:
            rotations_out[j] = rotations_out[p] @ local_rotation
            positions_out[j] = positions_out[p] + (rotations_out[p] @ local_position[..., None])[..., 0]
    return np.swapaxes(rotations_out, 0, 1), np.swapaxes(positions_out, 0, 1)


def _sample(curve, frames, default):
    """Values of an F-curve at `frames`: the keys themselves when they sit on those frames, linear
    interpolation when every key is linear, else Blender's own evaluation."""
    if curve is None or not len(curve.keyframe_points):
        return np.full(len(frames), float(default))
    points = curve.keyframe_points
    co = np.empty(2 * len(points), dtype=np.float32)
    points.foreach_get("co", co)
    keys, values = co[0::2].astype(float), co[1::2].astype(float)
    if len(keys) == len(frames) and np.array_equal(keys, frames) and not curve.modifiers:
        return values
    kinds = np.empty(len(points), dtype=np.int32)
    points.foreach_get("interpolation", kinds)
    if np.all(kinds[:-1] == _LINEAR) and not curve.modifiers and curve.extrapolation == "CONSTANT":
        return np.interp(frames, keys, values)
    return np.array([curve.evaluate(float(f)) for f in frames])
