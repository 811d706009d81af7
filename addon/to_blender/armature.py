"""Build an armature object and its actions from a core Motion (one straight pass, no parsing)."""

import bpy
import numpy as np

from ...core import rotations
from ...core.errors import first_nonfinite
from ...core.parallel import parallel_map
from ...core.skeleton import child_lists
from ..common import compat
from ..common.names import blender_names
from ..common.pose_space import bone_basis


def skeleton_matches(obj, skeleton):
    """Whether the armature `obj` has exactly this skeleton's joints and hierarchy."""
    bones = obj.data.bones
    names = blender_names(skeleton.names)
    parents = {b.name: (b.parent.name if b.parent else None) for b in bones}
    return len(bones) == skeleton.joint_count and all(
        name in parents and parents[name] == (names[p] if p >= 0 else None) for name, p in zip(names, skeleton.parents)
    )


def build_armature(context, skeleton, name, axes, scale, bone_axes="ROLL"):
    """A new armature object, linked to the active collection: one bone per joint, head at the
    joint's zero-pose position. Bones are named by names.blender_names (joint names beyond 63 bytes
    shortened, clashes numbered).

    Without rest rotations (BVH) a bone's tail points toward its children (or End Sites), roll 0.
    With them (ASF axes, HTR base rotations) the bone's axes follow its joint's, by `bone_axes`:
    "ROLL" keeps the tail toward the children and rolls the bone so that its axes are the joint's
    turned the least; "EXACT" makes them the joint's axes (pose values are then the file's local
    rotations; the tail follows the joint's Y axis, wherever that points).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # refused just below
        heads, tails = _bone_ends(skeleton, axes, scale)
    _require_float32(heads, tails, skeleton.names)
    rolls = None
    if skeleton.rest_rotations is not None:
        tails, rolls = _follow_joint_axes(axes @ skeleton.rest_world()[0], heads, tails, bone_axes)
    names = blender_names(skeleton.names)
    armature = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, armature)
    context.collection.objects.link(obj)
    for other in context.view_layer.objects.selected:
        other.select_set(False)
    context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit_bones = []
        for j, joint in enumerate(names):
            bone = armature.edit_bones.new(joint)
            bone.head, bone.tail, bone.roll = heads[j], tails[j], 0.0
            if rolls is not None:
                bone.align_roll(rolls[j])
            if skeleton.parents[j] >= 0:
                bone.parent = edit_bones[skeleton.parents[j]]
            edit_bones.append(bone)
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def _follow_joint_axes(frames, heads, tails, bone_axes):
    """Tails (J, 3) and the Z axis (J, 3) to roll each bone to, so that its axes follow the joint
    axes `frames` (J, 3, 3) in armature space (see build_armature)."""
    y, z = frames[:, :, 1], frames[:, :, 2]
    lengths = np.linalg.norm(tails - heads, axis=1)
    if bone_axes == "EXACT":
        return heads + lengths[:, None] * y, z
    along = (tails - heads) / lengths[:, None]
    cos = np.einsum("ij,ij->i", y, along)
    cross = np.cross(y, along)
    # the least rotation taking y onto `along`, applied to z (Rodrigues, with sin folded into cross);
    # a bone pointing against its joint's Y turns half a turn about the joint's X axis
    with np.errstate(divide="ignore", invalid="ignore"):
        turned = z * cos[:, None] + np.cross(cross, z) + cross * (np.einsum("ij,ij->i", cross, z) / (1 + cos))[:, None]
    return tails, np.where((cos < -1 + 1e-9)[:, None], -z, turned)


def _require_float32(heads, tails, names):
    """Refuse bone ends beyond Blender's float range (offsets of 1e308 are finite in the file)."""
    with np.errstate(over="ignore"):
        bad = first_nonfinite(np.stack([heads, tails], axis=1).astype(np.float32))
    if bad is not None:
        raise ValueError(
            f"joint {names[bad[0]][:80]!r}: rest position beyond Blender's float range "
            "(OFFSETs too large for the scale)"
        )


def _bone_ends(skeleton, axes, scale):
    """Heads and tails (J, 3) in armature space."""
    rest_rotation, rest_position = skeleton.rest_world()
    heads = scale * rest_position @ axes.T
    ends = rest_position[skeleton.end_site_parents] + np.einsum(
        "nij,nj->ni", rest_rotation[skeleton.end_site_parents], skeleton.end_site_offsets
    )
    ends = scale * ends @ axes.T
    extent = np.ptp(np.vstack([heads, ends]), axis=0).max() if len(heads) > 1 or len(ends) else 0.0
    fallback = 0.1 * extent if extent > 0 else 0.1 * scale
    tails = np.empty_like(heads)
    children, sites = child_lists(skeleton.parents), child_lists(skeleton.end_site_parents, skeleton.joint_count)
    for j in range(skeleton.joint_count):
        targets = heads[children[j]] if children[j] else ends[sites[j]]
        tail = targets.mean(axis=0) if len(targets) else heads[j]
        if np.linalg.norm(tail - heads[j]) < 1e-4 * max(fallback, 1e-9):
            parent = skeleton.parents[j]
            direction = tails[parent] - heads[parent] if parent >= 0 else np.array([0.0, 0.0, 1.0])
            tail = heads[j] + fallback * direction / np.linalg.norm(direction)
        tails[j] = tail
    return heads, tails


def bone_rest_matrices(obj, names):
    """(J, 4, 4) armature-space rest matrix (bone.matrix_local) of the bones called `names`.

    Blender computes these in single precision along each chain: their rotations can be off
    orthonormal, and their translations off the bone heads, by 4e-6 of the chain's length. Here
    the rotations are the nearest rotations (import and export then invert each other exactly)
    and the translations are the heads as stored."""
    bones = obj.data.bones
    index = [{b.name: i for i, b in enumerate(bones)}[n] for n in names]
    flat = np.empty(16 * len(bones), dtype=np.float32)
    bones.foreach_get("matrix_local", flat)
    rest = flat.reshape(-1, 4, 4).transpose(0, 2, 1)[index].astype(float)
    rest[:, :3, :3] = rotations.nearest_rotation(rest[:, :3, :3])
    heads = np.empty(3 * len(bones), dtype=np.float32)
    bones.foreach_get("head_local", heads)
    rest[:, :3, 3] = heads.reshape(-1, 3)[index]
    return rest


def add_action(obj, motion, name, axes, scale, *, rotation_mode, frames, joints=None):
    """Key the bones of `obj` (one per joint of motion.skeleton, named after it) for all frames, in
    a new action assigned to `obj`. A generator: yields each joint's name once its keys are written.

    rotation_mode  "QUATERNION", or "NATIVE" for Euler in each joint's order from the file; or a
                   list of them, one per joint
    frames         (F,) scene frame of each motion frame
    joints         indices of the joints to key (default: all)
    A motion with scales (HTR's SF) keys each scaled bone's scale, which no bone inherits. A channel
    that never changes gets one key (a curve of one key holds its value on every frame; 4 of the 31
    joints of a CMU take never turn).

    Every joint's keys are computed first, on worker threads (numpy releases the GIL), then handed
    to Blender: a worker waiting for the GIL while this thread is inside Blender's calls would wait
    out Python's switch interval each time (keys interleaved with the calls took 0.14 s of a 10,000
    frame import, computed first 0.11 s).
    """
    skeleton = motion.skeleton
    names = blender_names(skeleton.names)
    modes = [rotation_mode] * skeleton.joint_count if isinstance(rotation_mode, str) else rotation_mode
    joints = range(skeleton.joint_count) if joints is None else joints
    paths = [f'pose.bones["{bpy.utils.escape_identifier(joint)}"]' for joint in names]
    basis = bone_basis(motion, axes, scale, bone_rest_matrices(obj, names)[:, :3, :3], skeleton.rest_world()[0])

    def keys(j):
        """[(data path, index)] of joint j's curves and their key_points."""
        quaternion, location = basis(j)
        if modes[j] == "QUATERNION":
            values, prop = rotations.quat_continuity(quaternion), ".rotation_quaternion"
        else:
            order = motion.euler_orders[j]
            angles = rotations.unwrap_euler(rotations.quat_to_euler(quaternion, order))
            values, prop = angles[:, [order.index(a) for a in "XYZ"]], ".rotation_euler"
        curves = [(paths[j] + prop, i) for i in range(values.shape[1])]
        if skeleton.has_positions(j) or np.any(location != 0):
            values = np.hstack([values, location])
            curves += [(paths[j] + ".location", i) for i in range(3)]
        if motion.scales is not None and np.any(motion.scales[:, j] != 1):
            values = np.hstack([values, np.repeat(motion.scales[:, j, None], 3, axis=1)])
            curves += [(paths[j] + ".scale", i) for i in range(3)]
        return curves, compat.key_points(frames, values, [f"{names[j]}: {p}[{i}]" for p, i in curves])

    if motion.scales is not None:  # a joint's scale sizes its own segment only (see core.motion)
        for joint in names:
            obj.data.bones[joint].inherit_scale = "NONE"
    _, fcurves = compat.new_action(obj, name)
    linear = compat.interpolations(len(frames))
    for j, (curves, co) in zip(joints, list(parallel_map(keys, joints))):
        order = motion.euler_orders[j]  # Blender names an Euler order the other way round
        obj.pose.bones[names[j]].rotation_mode = "QUATERNION" if modes[j] == "QUATERNION" else order[::-1]
        for (data_path, index), points in zip(curves, co):
            if np.all(points[3::2] == points[1]):  # a channel that never changes: one key holds it
                points = points[:2]
            compat.add_curve(fcurves, data_path, index, names[j], points, linear)
        yield names[j]
