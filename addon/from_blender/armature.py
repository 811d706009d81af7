"""Read an armature's animation back into a core Motion (the mirror of to_blender.armature)."""

from fractions import Fraction

import bpy
import numpy as np

from ... import core
from ...core import rotations
from ...core.frame_rate import snap_rate
from ...core.rotations import multiply_each
from ...core.skeleton import POSITION_CHANNELS, ROTATION_CHANNELS, euler_order
from ..common import compat, file_record
from ..common.compat import sample
from ..common.pose_space import basis_local, file_locals
from ..common.progress import scene_frames
from ..common.units import scene_fps
from ..to_blender.armature import bone_rest_matrices


def needs_evaluation(obj):
    """Whether the pose depends on more than the assigned action's keys and the bones' rotations
    and locations (constraints, drivers, NLA, bone scale, non-default inheritance), so that export
    must evaluate the scene frame by frame."""
    animation = obj.animation_data
    if animation is None or animation.action is None:
        return True
    if len(animation.drivers) or any(t.strips for t in animation.nla_tracks) or obj.constraints:
        return True
    if any(p.constraints or tuple(p.scale) != (1.0, 1.0, 1.0) for p in obj.pose.bones):
        return True
    if any(
        c.data_path in ("location", "rotation_euler", "rotation_quaternion", "scale") or c.data_path.endswith(".scale")
        for c in compat.action_fcurves(obj)
    ):
        return True  # the object itself moves, or a bone scales
    return any(
        not b.use_inherit_rotation or b.inherit_scale != "FULL" or not b.use_local_location for b in obj.data.bones
    )


def armature_motion(
    context, obj, frames, axes, scale, *, source="AUTO", rotation_order="FILE", position_channels="FILE", fps=None
):
    """The Motion of armature `obj` over the scene frames `frames` (between whole frames too) at
    `fps` (a Fraction; None: the scene's rate).

    source            "ACTION" reads the rotation and location keys of the assigned action (fast,
                      no chain to evaluate), "EVALUATED" steps the scene through every frame
                      (constraints, drivers, NLA, scale), "AUTO" picks ACTION unless the rig needs
                      evaluation
    rotation_order    "FILE" (each joint's channels as imported, see file_record; else as NATIVE),
                      "NATIVE" (each bone's Euler mode; ZXY for quaternion bones) or e.g. "ZXY"
    position_channels "FILE" (as imported; else as ROOT), "ROOT" or "ALL"
    Joint names (Blender cuts them to 63 bytes) are the imported file's while the bones are its
    joints; OFFSETs, End Sites and the Frame Time text while the bones still match them (to single
    precision) and the rate is still the one it stands for.
    """
    context.view_layer.update()  # matrix_world of an object moved since the last evaluation
    names, parents = bone_hierarchy(obj)
    rest = bone_rest_matrices(obj, names)
    object_matrix = np.array(obj.matrix_world)
    if source == "EVALUATED" or (source == "AUTO" and needs_evaluation(obj)):
        poses, world = _evaluated_poses(context, obj, names, frames)
        world_rotation, world_position = _to_world(world, poses[..., :3, :3], poses[..., :3, 3])
        local, translations = file_locals(parents, rest[:, :3, :3], world_rotation, world_position, axes, scale)
    else:
        local, translations = _action_locals(obj, names, parents, rest, object_matrix, frames, axes, scale)
    rest_rotation, rest_position = _to_world(object_matrix[None], rest[None, :, :3, :3], rest[None, :, :3, 3])
    offsets = file_locals(parents, rest[:, :3, :3], rest_rotation, rest_position, axes, scale)[1][:, 0]
    record = file_record.recall_skeleton(obj.data, names, parents, axes, scale)
    modes = [obj.pose.bones[n].rotation_mode for n in names]
    layouts = [
        _layout(record.channels[j] if record else None, parents[j] < 0, modes[j], rotation_order, position_channels)
        for j in range(len(names))
    ]
    orders = [order for order, _ in layouts]
    channels = [channel_list for _, channel_list in layouts]
    euler = np.empty((len(frames), len(names), 3))
    for j, order in enumerate(orders):
        euler[:, j] = rotations.quat_to_euler(local[j], order)
    euler = rotations.unwrap_euler(euler)
    for j, order in enumerate(orders):
        unused = [slot for slot, axis in enumerate(order) if axis + "rotation" not in channels[j]]
        if np.abs(euler[:, j, unused]).max(initial=0.0) <= 1e-6:
            euler[:, j, unused] = 0.0  # single-precision noise about an axis without a channel
    translations = np.ascontiguousarray(np.swapaxes(translations, 0, 1))
    size = np.abs(rest_position).max(initial=0.0) / scale
    if record is not None and np.abs(record.offsets - offsets).max(initial=0.0) <= 1e-6 * size:
        offsets, end_parents, end_offsets = record.offsets, record.end_site_parents, record.end_site_offsets
    else:
        end_parents, end_offsets = _tips(
            obj, names, parents, rest, axes, scale / np.cbrt(abs(np.linalg.det(object_matrix[:3, :3])))
        )
    noise = 1e-5 * max(np.abs(offsets).max(initial=0.0), 1e-9)  # Blender stores poses in single precision
    for j, c in enumerate(channels):
        if (
            not any(name in POSITION_CHANNELS for name in c)
            and np.abs(translations[:, j] - offsets[j]).max(initial=0.0) <= noise
        ):
            translations[:, j] = offsets[j]  # a bone that does not stretch
    skeleton = core.Skeleton(
        record.names if record else names,
        parents,
        offsets,
        channels=channels,
        end_site_parents=end_parents,
        end_site_offsets=end_offsets,
    )
    action = obj.animation_data.action if obj.animation_data else None
    frame_time = file_record.recall_frame_time(action) if action is not None else None
    if fps is None:
        likely = (snap_rate(frame_time), Fraction(1.0 / float(frame_time))) if frame_time else ()
        fps = scene_fps(context.scene, likely)
    return core.Motion(skeleton, float(fps), euler, orders, translations, frame_time_text=frame_time)


def armature_skeleton(obj, axes, scale):
    """The rest pose of armature `obj` as a core Skeleton in the coordinates armature_motion reads
    its motion in (world = scale * axes @ file; the object's transform included): a joint per bone,
    named after it, in bone_hierarchy's order. Each joint's axes are its bone's (rest_rotations), so
    that a joint's local rotation is its bone's pose rotation; End Sites sit at the tails of the
    leaf bones; the channels follow each bone's rotation mode, with position channels on the roots."""
    names, parents = bone_hierarchy(obj)
    rest = bone_rest_matrices(obj, names)
    object_matrix = np.array(obj.matrix_world)
    rotation, position = _to_world(object_matrix[None], rest[None, :, :3, :3], rest[None, :, :3, 3])
    world, position = axes.T @ rotation[0], position[0] @ axes / scale
    parents = np.array(parents, dtype=np.intp)
    parent_world = np.where((parents >= 0)[:, None, None], world[np.maximum(parents, 0)], np.eye(3))
    parent_position = np.where((parents >= 0)[:, None], position[np.maximum(parents, 0)], 0.0)
    layouts = [_layout(None, p < 0, obj.pose.bones[n].rotation_mode, "NATIVE", "ROOT") for n, p in zip(names, parents)]
    leaves = [j for j in range(len(names)) if j not in parents]
    size = np.cbrt(abs(np.linalg.det(object_matrix[:3, :3]))) / scale  # file units per armature unit
    return core.Skeleton(
        names,
        parents,
        np.einsum("kji,kj->ki", parent_world, position - parent_position),
        channels=[channels for _, channels in layouts],
        end_site_parents=leaves,
        end_site_offsets=[(0.0, size * obj.data.bones[names[j]].length, 0.0) for j in leaves],
        rest_rotations=np.swapaxes(parent_world, 1, 2) @ world,
    )


def _layout(recorded, root, mode, rotation_order, position_channels):
    """(Euler order, channel names) of a joint: its channels as imported (`recorded`, or None) or
    as the options ask."""
    if rotation_order == "FILE" and recorded is not None:
        rotation = [c for c in recorded if c in ROTATION_CHANNELS]
        order = euler_order(rotation)
    else:
        order = rotation_order if rotation_order not in ("FILE", "NATIVE") else mode[::-1] if len(mode) == 3 else "ZXY"
        rotation = [a + "rotation" for a in order]
    if position_channels == "FILE" and recorded is not None:
        position = [c for c in recorded if c in POSITION_CHANNELS]
        rotation_first = bool(recorded) and recorded[0] in ROTATION_CHANNELS
    else:
        position = list(POSITION_CHANNELS) if root or position_channels == "ALL" else []
        rotation_first = False
    return order, tuple(rotation + position if rotation_first else position + rotation)


def _tips(obj, names, parents, rest, axes, scale):
    """End Sites at the tails of the leaf bones: (E,) joint indices and (E, 3) offsets, `scale`
    armature units per file unit (Blender units per file unit over the object's scale, as the
    joints' offsets have it: an FBX import's 0.01 makes its bones' centimetres metres)."""
    leaves = [j for j in range(len(names)) if j not in parents]
    tails = np.array([(rest[j] @ [0.0, obj.data.bones[names[j]].length, 0.0, 1.0])[:3] for j in leaves])
    return leaves, ((tails - rest[leaves, :3, 3]) @ axes / scale if leaves else None)


def bone_hierarchy(obj):
    """Bone names with every parent before its children (depth first), and parent indices."""
    names, parents = [], []
    pending = [b for b in obj.data.bones if b.parent is None]
    while pending:
        bone = pending.pop(0)
        names.append(bone.name)
        parents.append(names.index(bone.parent.name) if bone.parent else -1)
        pending[0:0] = list(bone.children)
    return names, parents


def _to_world(object_matrices, rotations, positions):
    """World rotations (F, J, 3, 3) and positions (F, J, 3) of armature-space poses.

    object_matrices (1 or F, 4, 4); the rotations drop any scale (object or bone, no shear).
    """
    if len(object_matrices) == 1:  # a constant object transform: one GEMM each
        matrix = object_matrices[0]
        positions = positions @ matrix[:3, :3].T + matrix[:3, 3]
        linear = multiply_each(matrix[:3, :3], rotations, np.eye(3))
    else:
        positions = (object_matrices[:, None, :3, :3] @ positions[..., None])[..., 0] + object_matrices[:, None, :3, 3]
        linear = object_matrices[:, None, :3, :3] @ rotations
    return linear / np.linalg.norm(linear, axis=-2, keepdims=True), positions


def _evaluated_poses(context, obj, names, frames):
    """Pose matrices (F, J, 4, 4) and object matrices (F, 4, 4), stepping the scene frame by frame."""
    order = {b.name: i for i, b in enumerate(obj.pose.bones)}
    index = [order[n] for n in names]
    flat = np.empty(16 * len(obj.pose.bones), dtype=np.float32)
    poses = np.empty((len(frames), len(names), 4, 4))
    world = np.empty((len(frames), 4, 4))
    for f, _ in scene_frames(context, frames, "Sampling the armature"):
        obj.pose.bones.foreach_get("matrix", flat)
        poses[f] = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[index]
        world[f] = np.array(obj.matrix_world)
    return poses, world


def _action_locals(obj, names, parents, rest, object_matrix, frames, axes, scale):
    """Local rotations as unit quaternions (J, F, 4) and translations (J, F, 3) of the file joints
    from the rotation and location keys of the action: each from its own bone's keys (see pose_space)."""
    curves = {(c.data_path, c.array_index): c for c in compat.action_fcurves(obj)}
    local_rotations = np.empty((len(names), len(frames), 4))
    local_translations = np.empty((len(names), len(frames), 3))
    for j, name in enumerate(names):
        bone = obj.pose.bones[name]
        path = f'pose.bones["{bpy.utils.escape_identifier(name)}"].'

        def channel(prop, size, default):
            return np.stack([sample(curves.get((path + prop, i)), frames, default[i]) for i in range(size)], axis=1)  # noqa: B023 - called within this loop

        if bone.rotation_mode == "QUATERNION":
            rotation = rotations.quat_normalize(channel("rotation_quaternion", 4, bone.rotation_quaternion))
        elif bone.rotation_mode == "AXIS_ANGLE":
            axis_angle = channel("rotation_axis_angle", 4, bone.rotation_axis_angle)
            rotation = rotations.axis_angle_to_quat(axis_angle[:, 1:], axis_angle[:, 0])
        else:
            angles = channel("rotation_euler", 3, bone.rotation_euler)
            order = bone.rotation_mode[::-1]
            rotation = rotations.euler_to_quat(angles[:, ["XYZ".index(a) for a in order]], order)
        p = parents[j]
        local_rotations[j], local_translations[j] = basis_local(
            rest[p] if p >= 0 else None,
            rest[j],
            object_matrix,
            rotation,
            channel("location", 3, bone.location),
            axes,
            scale,
        )
    return local_rotations, local_translations
