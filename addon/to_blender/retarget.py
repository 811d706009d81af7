"""Retargeting in Blender: the animation of one armature, or an imported take, baked onto another
armature through core.retarget, in a new action (slot-aware from 4.4: see compat)."""

import contextlib
import math

import numpy as np

from ... import core
from ...core import rotations
from ...core.rebase import rebase
from ..common import compat
from ..common.progress import run
from ..common.transaction import all_or_nothing
from ..common.units import scene_fps
from ..from_blender.armature import armature_motion, armature_skeleton, bone_hierarchy, needs_evaluation
from .armature import add_action


def retarget_armature(context, source, target, bone_map=None, **options):
    """Bake the animation of armature `source` onto armature `target`; returns the new action.
    All or nothing: on any error no data-block is left and the target is as it was.
    Options: see `retarget_armature_steps`."""
    return run(retarget_armature_steps(context, source, target, bone_map, **options), context, "Retargeting")


def retarget_armature_steps(context, source, target, bone_map=None, *, resample=False, name=None, **options):
    """`retarget_armature` as a generator of progress steps (see progress.py); returns its result.

    bone_map  {source bone: target bone} (default: core.auto_map of the two rest poses)
    resample  key the target on whole scene frames, resampling (core.resample) a source keyed
              between them; else on the frames the source is read at (see `source_frames`)
    name      the new action's name (default: the source action's, then the target's)
    options   those of core.retarget: root_scale ("legs" or a number, default "legs"), fix_feet
              (default on: feet held on the target's floor while the source's stand), ...

    The source is read (from_blender.armature.armature_motion) over its action's frame range, in world
    axes and about its object's origin, its rest pose standing as its object stands (see
    `_rest_in_world`); the target moves the same way about its own origin, so it walks from where
    it stands.
    """
    for obj, role in ((source, "source"), (target, "target")):
        _usable(obj, role)
    if source == target:
        raise ValueError(f"{source.name!r} cannot be retargeted onto itself")
    frames = source_frames(source)
    yield 0.0, f"reading {source.name}"
    rate = float(scene_fps(context.scene))
    motion = armature_motion(context, source, frames, np.eye(3), 1.0)
    skeleton = motion.skeleton
    skeleton.names = bone_hierarchy(source)[0]  # not an imported file's joint names: the bone map's
    translations = motion.translations
    _from_origin(skeleton, translations, np.array(source.matrix_world)[:3, 3])
    times = (frames - frames[0]) / rate
    fps = (len(frames) - 1) / times[-1] if len(frames) > 1 else rate
    motion = _rest_in_world(core.Motion(skeleton, fps, motion.euler, motion.euler_orders, translations), source)
    if resample and np.any(frames != np.round(frames)):
        whole = np.arange(math.ceil(frames[0]), math.floor(frames[-1]) + 1, dtype=float)
        motion = core.resample(motion, fps=rate, times=(whole - frames[0]) / rate, source_times=times)
        frames = whole
    name = name or f"{compat.assignment(source)[0].name}_{target.name}"
    with all_or_nothing(context):
        keys = retarget_take(motion, target, name, np.eye(3), 1.0, frames, bone_map, **options)
        for i, bone in enumerate(keys):
            yield 0.1 + 0.9 * i / len(target.data.bones), bone
    return compat.assignment(target)[0]


def retarget_take(motion, target, name, axes, scale, frames, bone_map=None, **options):
    """Key `motion` retargeted onto armature `target` (core.retarget with `options`, else its
    defaults: root motion scaled by leg length, feet fixed) in a new action called `name`,
    assigned to the target: a generator that yields each keyed bone's name, like
    armature.add_action, which it calls.

    axes, scale  the motion's coordinates: world = scale * axes @ file, about the target's origin
    frames       (F,) scene frame of each motion frame
    bone_map     {motion joint: target bone} (default: core.auto_map)

    Keyed are the mapped bones and the unmapped ones between them (at rest relative to their
    parents); the others keep their pose. Each bone keeps its rotation mode (axis-angle becomes
    quaternion). On an error the target's action, slot and rotation modes are given back; the
    caller's transaction.all_or_nothing removes the new action.
    """
    _usable(target, "target")
    skeleton = armature_skeleton(target, axes, scale)
    matrix = np.array(target.matrix_world)
    _from_origin(skeleton, None, axes.T @ matrix[:3, 3] / scale)
    if bone_map is None:
        bone_map = core.auto_map(motion.skeleton, skeleton)
    if not bone_map:
        raise ValueError(f"no joint of the motion maps onto a bone of {target.name!r}: give a bone map")
    moved = core.retarget(motion, skeleton, bone_map, **options)
    modes = [target.pose.bones[n].rotation_mode for n in skeleton.names]
    modes = ["QUATERNION" if m in ("QUATERNION", "AXIS_ANGLE") else "NATIVE" for m in modes]
    # into the target's armature space: O^-1 (world - origin), O a rotation times a uniform scale
    to_armature = rotations.nearest_rotation(matrix[:3, :3]).T @ axes
    size = scale / np.cbrt(abs(np.linalg.det(matrix[:3, :3])))
    with _given_back_on_error(target):
        yield from add_action(
            target,
            moved,
            name,
            to_armature,
            size,
            rotation_mode=modes,
            frames=frames,
            joints=_keyed(skeleton, bone_map.values()),
        )


def source_frames(source):
    """(F,) scene frames to read armature `source` at: its action's keys where a curve has more of
    them than the action's frame range has whole frames (a take imported at its own rate into a
    slower scene), else every whole frame of that range."""
    action = compat.assignment(source)[0]
    if action is None:
        raise ValueError(f"{source.name!r} has no action to retarget")
    first, last = action.frame_range
    whole = np.arange(math.ceil(first), math.floor(last) + 1, dtype=float)
    curves = compat.action_fcurves(source)
    if needs_evaluation(source) or all(len(c.keyframe_points) <= len(whole) for c in curves):
        return whole
    keys = np.unique(np.concatenate([compat.key_arrays(curve)[0] for curve in curves]))
    return keys[(keys >= first) & (keys <= last)]


def _rest_in_world(motion, source):
    """`motion` (read from armature `source` by armature_motion) with its rest pose in world axes.

    armature_motion reads a take as the export path writes it: the rest pose in the armature's
    axes, the object's rotation carried by the roots' rotations (a BVH joint has no rest
    rotation). The world pose is right, but core.retarget also reads the source's rest pose as a
    standing body (up, floor, legs, feet, trunk: core.body), and an armature inside a turned object
    (an FBX import: 90 degrees about X) would lie on its back there. So the roots take the object's
    rotation as their rest rotation, and their rotations lose it: the same world pose, its rest now
    standing in the world as the object stands it."""
    turn = rotations.nearest_rotation(np.array(source.matrix_world)[:3, :3])
    if np.allclose(turn, np.eye(3), rtol=0.0, atol=1e-7):
        return motion
    skeleton = motion.skeleton
    rest = np.repeat(np.eye(3)[None], skeleton.joint_count, axis=0)
    if skeleton.rest_rotations is not None:
        rest = skeleton.rest_rotations.copy()
    rest[skeleton.roots] = turn @ rest[skeleton.roots]
    return rebase(motion, np.broadcast_to(np.eye(3), rest.shape), rest)  # every world frame as it was


def _usable(obj, role):
    """Refuse what is no armature, or one in edit mode (its bones are not yet its data's)."""
    if obj is None or obj.type != "ARMATURE":
        raise ValueError(f"the {role} must be an armature, not {obj.name if obj else 'nothing'!r}")
    if obj.mode == "EDIT":
        raise ValueError(f"{obj.name!r} is in edit mode: leave it to retarget")


def _from_origin(skeleton, translations, origin):
    """Move the roots of `skeleton` (and of the motion's `translations`, if given) by -origin."""
    roots = skeleton.roots
    skeleton.offsets[roots] -= origin
    if translations is not None:
        translations[:, roots] -= origin


def _keyed(skeleton, mapped):
    """Indices of the joints called `mapped` and of the joints between two of them."""
    mapped = {skeleton.index(n) for n in mapped}
    count, parents = skeleton.joint_count, skeleton.parents
    above, below = np.zeros(count, bool), np.zeros(count, bool)
    for k, p in enumerate(parents):
        above[k] = p >= 0 and (p in mapped or above[p])
    for k in reversed(range(count)):
        if parents[k] >= 0 and (k in mapped or below[k]):
            below[parents[k]] = True
    return [k for k in range(count) if k in mapped or (above[k] and below[k])]


@contextlib.contextmanager
def _given_back_on_error(obj):
    """Give back the action, slot and bone rotation modes of `obj` if the block raises."""
    had_animation = obj.animation_data is not None
    action, slot = compat.assignment(obj)
    modes = {bone.name: bone.rotation_mode for bone in obj.pose.bones}
    try:
        yield
    except BaseException:
        compat.assign(obj, action, slot)
        if not had_animation:
            obj.animation_data_clear()
        for bone in obj.pose.bones:
            bone.rotation_mode = modes[bone.name]
        raise
