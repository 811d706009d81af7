"""Motions -> Blender: read a set of files through the core, then build one armature per skeleton
(or one for all) with one action per take. Every motion format's import goes through here."""

import math
import os
from fractions import Fraction

import numpy as np

from ...core.frame_rate import snap_rate
from ..common import file_record
from ..common.failures import InFile
from ..common.messages import Messages
from ..common.selection import select_only
from ..common.transaction import all_or_nothing
from ..common.units import axis_matrix, guess_scale, key_frames, scene_fps, scene_rate
from .armature import add_action, build_armature, skeleton_matches
from .retarget import retarget_take

READING = 0.2  # the share of the progress bar that reading the files takes


def read_takes(sources):
    """A generator of progress steps that reads `sources` [(path, read)], where read() returns the
    file's model (a Motion, Markers); returns ([(path, model)], Messages of what the readers said:
    their warnings and notes, each of its kind). An error propagates with the file it concerns as
    its `import_file` (see failures.py)."""
    takes, messages = [], Messages()
    for i, (path, read) in enumerate(sources):
        yield READING * i / len(sources), f"reading {os.path.basename(path)}"
        with messages.reading(), InFile(path):
            takes.append((path, read()))
    return takes, messages


def build_motions(
    context,
    takes,
    *,
    scale=None,
    auto_scale=None,
    file_unit=None,
    axis_forward="-Z",
    axis_up="Y",
    rotation_mode="QUATERNION",
    frame_start=1,
    frame_rate="SNAP",
    update_frame_range=True,
    one_armature=False,
    action_from_file=True,
    bone_axes="ROLL",
    retarget=False,
):
    """Armatures with actions for `takes` [(path, Motion)]; a generator of progress steps (see
    progress.py) that returns the armature objects. All or nothing: on any error no new data-block
    is left and the error propagates with its file as `import_file`.

    scale, auto_scale     Blender units per file unit, exactly; or (auto_scale, the default when no
                          scale is given) the unit the file names (file_unit), else the one
                          guess_scale finds from the figure's size: reported, and remembered on
                          the armature (file_record) for export to give back the file's numbers
    file_unit             (name, metres per file unit) the files name (an HTR's CalibrationUnits,
                          an ASF's :units), or None: times `scale` when one is given
    axis_forward, axis_up the file's axes
    rotation_mode         "QUATERNION", or "NATIVE" (Euler keys in each joint's order from the file)
    frame_start           scene frame of each take's first frame
    frame_rate            "SNAP" (the scene takes the first file's rate, a rounded Frame Time giving
                          its standard rate), "EXACT" (1 / Frame Time) or "KEEP" (the scene's rate;
                          keys placed in time)
    one_armature          one armature for takes of the same skeleton, one action per take
    action_from_file      name actions after their files (else after the armature)
    bone_axes             how bones follow joint axes where the file has them: "ROLL" or "EXACT"
                          (see armature.build_armature)
    retarget              retarget every take onto the active armature (a new action each, bones
                          mapped by core.auto_map, core.retarget's defaults: root motion scaled by
                          leg length, feet fixed; see retarget.retarget_take) instead of building
                          armatures; without an active armature, build them
    Returns (objects, notes): the notes for the user (see common.messages).
    """
    axes = axis_matrix(axis_forward, axis_up)
    auto = scale is None if auto_scale is None else auto_scale
    scene = context.scene
    render_rate, keys_at, timings = frame_plan(scene, takes, _file_rate, frame_start, frame_rate)
    objects, last_frame, messages = [], frame_start, []
    onto = context.active_object if retarget else None
    if retarget and (onto is None or onto.type != "ARMATURE"):
        onto = None
        messages.append("no active armature to retarget onto: new armatures were built")
    if onto is not None:
        objects.append(onto)
    total, done = sum(m.skeleton.joint_count for _, m in takes), 0
    with all_or_nothing(context), InFile() as current:
        for (path, motion), frames, (rate, step) in zip(takes, keys_at, timings):
            current.path = path
            name = os.path.splitext(os.path.basename(path))[0]
            factor, unit = _scale(motion, name, scale, auto, file_unit, messages)
            obj = onto
            if obj is None and one_armature and objects and skeleton_matches(objects[0], motion.skeleton):
                obj = objects[0]
            if obj is None:
                obj = build_armature(context, motion.skeleton, name, axes, factor, bone_axes)
                file_record.remember_skeleton(obj.data, motion.skeleton, axes, factor, unit)
                objects.append(obj)
            done += motion.skeleton.joint_count
            if not motion.frame_count:  # a skeleton alone (an .asf): the rest pose, no action
                continue
            action_name = name if action_from_file else obj.name + "Action"
            if onto is not None:
                keys = retarget_take(motion, onto, action_name, axes, factor, frames)
            else:
                keys = add_action(obj, motion, action_name, axes, factor, rotation_mode=rotation_mode, frames=frames)
            for j, joint in enumerate(keys):
                yield READING + (1 - READING) * (done - motion.skeleton.joint_count + j) / max(total, 1), joint
            action = obj.animation_data.action
            file_record.remember_take(action, motion, rate, step)
            action.use_fake_user = (one_armature or onto is not None) and len(takes) > 1
            if len(frames):
                last_frame = max(last_frame, int(np.ceil(frames[-1])))
        select_only(context, objects)
        update_scene(scene, render_rate, (frame_start, last_frame) if update_frame_range and takes else None)
    if (one_armature or onto is not None) and objects and len(takes) > 1:
        messages.append(f"{len(takes)} actions on one armature (kept with a fake user)")
    return objects, messages


def frame_plan(scene, takes, file_rate, frame_start, frame_rate):
    """Rates and frames of `takes` [(path, take with a frame_count)], checked before anything is
    built: (render.fps and fps_base of the first take's rate, or None for "KEEP"; per take, the
    scene frames of its frames; per take, (its rate, the scene frames between its frames), both
    Fractions, for file_record). `file_rate(take, exact)` gives a take's rate (a Fraction);
    frame_rate as in build_motions. A ValueError names the file."""
    render_rate, keys_at, timings = None, [], []
    for path, take in takes:
        try:
            rate = file_rate(take, exact=frame_rate == "EXACT")
            if frame_rate != "KEEP" and render_rate is None:  # the first file's rate becomes the scene's
                render_rate = scene_rate(rate)
            played = scene_fps(scene) if frame_rate == "KEEP" else rate
            keys_at.append(key_frames(frame_start, take.frame_count, rate, played))
            timings.append((rate, played / rate))
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
    return render_rate, keys_at, timings


def update_scene(scene, render_rate, frame_range):
    """The scene's rate (render.fps, fps_base; None keeps it) and frame range ((first, last); None
    keeps it). Last in an import: nothing after it can fail."""
    if render_rate is not None:
        scene.render.fps, scene.render.fps_base = render_rate
    if frame_range is not None:
        scene.frame_start, scene.frame_end = frame_range[0], max(frame_range)


def _scale(motion, name, scale, auto, file_unit, messages):
    """(Blender units per file unit, (unit name, metres per file unit) or None) of a take, the
    choice reported in `messages` (see build_motions)."""
    if file_unit is not None:
        unit, metres = file_unit
        factor = metres * (1.0 if scale is None or auto else scale)
        messages.append(f"{name}: read in {unit}, as the file says (scale {factor:g})")
        return factor, (unit, metres)
    if not auto:
        return (1.0 if scale is None else scale), None
    factor, unit, reason = guess_scale(motion.pose_extent(0).max() if motion.frame_count else 0.0)
    messages.append(f"{name}: read as {unit} (scale {factor:g}) because {reason}")
    return factor, (unit, factor)


def _file_rate(motion, exact):
    """The frame rate of a motion (a Fraction): exactly 1 / Frame Time, or the standard rate that
    Frame Time was rounded from (see core.frame_rate)."""
    if exact or motion.frame_time_text is None:
        if not math.isfinite(motion.fps):
            raise ValueError(f"{motion.fps} fps is no frame rate")
        return Fraction(motion.fps)
    return snap_rate(motion.frame_time_text)
