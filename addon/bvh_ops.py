"""BVH import/export operators, menus and drag-and-drop; the work itself is in plain functions
(`import_bvh`, `export_bvh`) that scripts can call too."""

import math
import os
import warnings
from fractions import Fraction

import bpy
import numpy as np
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from .. import core
from ..core.frame_rate import snap_rate
from . import file_record
from .armature_build import add_action, build_armature, skeleton_matches
from .armature_read import armature_motion
from .failures import InFile, message
from .progress import run
from .registration import DroppableImport, file_format
from .transaction import all_or_nothing
from .units import AXES, axis_matrix, guess_scale, key_frames, scene_fps, scene_rate

_ORDERS = [
    (o, o, f"Euler {o} (BVH channel order: {o[0]} then {o[1]} then {o[2]})")
    for o in ("ZXY", "XYZ", "XZY", "YXZ", "YZX", "ZYX")
]


def import_bvh(context, paths, **options):
    """Import BVH files; returns (armature objects, messages). All or nothing: on any error no
    new data-block is left and the error (a core.ParseError for bad files) propagates, with the
    file it concerns as its `import_file` (see failures.py).
    Options: see `import_bvh_steps`."""
    return run(import_bvh_steps(context, paths, **options), context, "Importing BVH")


def import_bvh_steps(
    context,
    paths,
    *,
    scale=1.0,
    auto_scale=False,
    axis_forward="-Z",
    axis_up="Y",
    rotation_mode="QUATERNION",
    frame_start=1,
    frame_rate="SNAP",
    update_frame_range=True,
    positions="replace",
    strict=True,
    one_armature=False,
    action_from_file=True,
):
    """`import_bvh` as a generator of progress steps (see progress.py); returns its result."""
    messages, motions = [], []
    for i, path in enumerate(paths):
        yield 0.2 * i / len(paths), f"reading {os.path.basename(path)}"
        with warnings.catch_warnings(record=True) as caught, InFile(path):
            warnings.simplefilter("always")
            motions.append(core.read(path, positions=positions, strict=strict))
        messages += [str(w.message) for w in caught]
    axes = axis_matrix(axis_forward, axis_up)
    scene = context.scene
    keep, render_rate, keys_at = frame_rate == "KEEP", None, []
    for path, motion in zip(paths, motions):  # rates and frames checked before anything is built
        try:
            file_rate = _file_rate(motion, exact=frame_rate == "EXACT")
            if not keep and render_rate is None:  # the first file's rate becomes the scene's
                render_rate = scene_rate(file_rate)
            keys_at.append(
                key_frames(frame_start, motion.frame_count, file_rate, scene_fps(scene) if keep else file_rate)
            )
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
    objects, last_frame = [], frame_start
    total, done = sum(m.skeleton.joint_count for m in motions), 0
    with all_or_nothing(context), InFile() as current:
        for path, motion, frames in zip(paths, motions, keys_at):
            current.path = path
            name = os.path.splitext(os.path.basename(path))[0]
            factor = scale
            if auto_scale:
                factor, unit, reason = guess_scale(motion.pose_extent(0).max() if motion.frame_count else 0.0)
                messages.append(f"{name}: read as {unit} (scale {factor:g}) because {reason}")
            obj = objects[0] if one_armature and objects and skeleton_matches(objects[0], motion.skeleton) else None
            if obj is None:
                obj = build_armature(context, motion.skeleton, name, axes, factor)
                file_record.remember_skeleton(obj.data, motion.skeleton, axes, factor)
                objects.append(obj)
            keys = add_action(
                obj,
                motion,
                name if action_from_file else obj.name + "Action",
                axes,
                factor,
                rotation_mode=rotation_mode,
                frames=frames,
            )
            for j, joint in enumerate(keys):
                yield 0.2 + 0.8 * (done + j) / max(total, 1), joint
            action = obj.animation_data.action
            file_record.remember_take(action, motion)
            action.use_fake_user = one_armature and len(motions) > 1
            done += motion.skeleton.joint_count
            if len(frames):
                last_frame = max(last_frame, int(np.ceil(frames[-1])))
        if render_rate is not None:  # last: nothing after it can fail
            scene.render.fps, scene.render.fps_base = render_rate
        if update_frame_range and motions:
            scene.frame_start, scene.frame_end = frame_start, max(last_frame, frame_start)
    if one_armature and objects and len(motions) > 1:
        messages.append(f"{len(motions)} actions on one armature (kept with a fake user)")
    return objects, messages


def _file_rate(motion, exact):
    """The frame rate of a motion (a Fraction): exactly 1 / Frame Time, or the standard rate that
    Frame Time was rounded from (see core.frame_rate)."""
    if exact or motion.frame_time_text is None:
        if not math.isfinite(motion.fps):
            raise ValueError(f"{motion.fps} fps is no frame rate")
        return Fraction(motion.fps)
    return snap_rate(motion.frame_time_text)


def export_bvh(
    context,
    obj,
    path,
    *,
    frame_start=None,
    frame_end=None,
    scale=1.0,
    axis_forward="-Z",
    axis_up="Y",
    rotation_order="FILE",
    position_channels="FILE",
    source="AUTO",
    precision=6,
):
    """Write the animation of armature `obj` (scene range by default) to a BVH file; by default
    with the channels, OFFSETs, End Sites and Frame Time of the file it was imported from (see
    armature_read.armature_motion)."""
    scene = context.scene
    first = scene.frame_start if frame_start is None else frame_start
    last = scene.frame_end if frame_end is None else frame_end
    motion = armature_motion(
        context,
        obj,
        np.arange(first, last + 1),
        axis_matrix(axis_forward, axis_up),
        scale,
        source=source,
        rotation_order=rotation_order,
        position_channels=position_channels,
    )
    core.write(motion, path, precision=precision)
    return motion


class _Axes:
    axis_forward: EnumProperty(
        name="Forward", items=AXES, default="-Z", description="The file's forward axis (BVH convention: -Z)"
    )
    axis_up: EnumProperty(name="Up", items=AXES, default="Y", description="The file's up axis (BVH convention: Y)")
    scale: FloatProperty(
        name="Scale",
        default=1.0,
        min=1e-6,
        max=1e6,
        soft_min=0.001,
        soft_max=1000,
        description="Blender units per file unit (0.01 for a file in centimetres)",
    )


class ImportBVH(bpy.types.Operator, DroppableImport, _Axes):
    """Import motion capture from BVH files (several at once), as armatures with actions"""

    bl_idname = "import_anim.mocap_bvh"
    bl_label = "Import BVH (Mocap I/O)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".bvh"
    filter_glob: StringProperty(default="*.bvh", options={"HIDDEN"})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    auto_scale: BoolProperty(
        name="Auto Scale",
        default=False,
        description="Guess the file's unit (cm, m, mm, inches, CMU ASF units) from the "
        "skeleton's size, scale to metres and report the choice (replaces Scale)",
    )
    rotation_mode: EnumProperty(
        name="Rotation",
        default="QUATERNION",
        items=[
            ("QUATERNION", "Quaternion", "Quaternion keys: no gimbal lock, smooth interpolation"),
            ("NATIVE", "Euler (file order)", "Euler keys in each joint's rotation order from the file"),
        ],
        description="How bone rotations are keyed",
    )
    frame_start: IntProperty(name="Start Frame", default=1, description="Scene frame of the first motion frame")
    frame_rate: EnumProperty(
        name="Frame Rate",
        default="SNAP",
        items=[
            (
                "SNAP",
                "From File",
                "Set the scene rate from the file; a rounded Frame Time (0.033333) "
                "gives its standard rate (30 fps), anything else is kept exactly",
            ),
            (
                "EXACT",
                "Exactly 1 / Frame Time",
                "Set the scene rate to exactly 1 / Frame Time (0.033333 -> 30.0003 fps)",
            ),
            ("KEEP", "Keep Scene Rate", "Keep the scene rate and place keys in time (one key per file frame)"),
        ],
        description="Scene frame rate",
    )
    update_frame_range: BoolProperty(
        name="Update Frame Range", default=True, description="Set the scene start/end to the imported frames"
    )
    positions: EnumProperty(
        name="Position Channels",
        default="replace",
        items=[
            (
                "replace",
                "Replace Offset",
                "Position channels give the joint's translation (Blender, Bandai Namco, "
                "MotionBuilder and other 6-channel files)",
            ),
            ("add", "Add to Offset", "Position channels are added to the joint's OFFSET (the format's original text)"),
        ],
        description="How position channels combine with a joint's OFFSET",
    )
    one_armature: BoolProperty(
        name="One Armature",
        default=False,
        description="With several files of the same skeleton: one armature, one action per file",
    )
    action_from_file: BoolProperty(
        name="Action Named After File",
        default=True,
        description="Name each action after its file (else after the armature)",
    )
    strict: BoolProperty(
        name="Strict",
        default=True,
        description="Refuse files whose motion has fewer or more frames than declared "
        "(off: read the frames present and warn)",
    )

    def paths(self):
        return [os.path.join(self.directory, f.name) for f in self.files if f.name] or [self.filepath]  # pyright: ignore[reportAttributeAccessIssue]

    def steps(self, context):
        options = self.as_keywords(
            ignore=("filepath", "files", "directory", "filter_glob", "check_existing", "interactive")
        )
        return import_bvh_steps(context, self.paths(), **options)  # pyright: ignore[reportCallIssue]

    def finished(self, context, result):
        objects, messages = result
        for text in messages:
            self.report({"WARNING"} if "line" in text else {"INFO"}, text)
        self.report({"INFO"}, f"Imported {len(self.paths())} BVH file(s) into {len(objects)} armature(s)")


class ExportBVH(bpy.types.Operator, ExportHelper, _Axes):
    """Export the active armature's animation to a BVH file"""

    bl_idname = "export_anim.mocap_bvh"
    bl_label = "Export BVH (Mocap I/O)"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".bvh"
    filter_glob: StringProperty(default="*.bvh", options={"HIDDEN"})
    use_scene_range: BoolProperty(name="Scene Frame Range", default=True, description="Export the scene's frame range")
    frame_start: IntProperty(name="Start", default=1, description="First frame (when not using the scene range)")
    frame_end: IntProperty(name="End", default=250, description="Last frame (when not using the scene range)")
    rotation_order: EnumProperty(
        name="Rotation Order",
        default="FILE",
        items=[
            ("FILE", "As Imported", "Each joint's channel order in the file the armature came from (else Native)"),
            ("NATIVE", "Native", "Each bone's Euler mode (ZXY for quaternion bones)"),
        ]
        + _ORDERS,
        description="Euler order of the rotation channels",
    )
    position_channels: EnumProperty(
        name="Position Channels",
        default="FILE",
        items=[
            (
                "FILE",
                "As Imported",
                "The joints and channel layout of the file the armature came from (else Root Only)",
            ),
            ("ROOT", "Root Only", "Position channels on the root only (what most tools expect)"),
            ("ALL", "All Joints", "Position channels on every joint (stretching bones)"),
        ],
        description="Which joints get position channels",
    )
    source: EnumProperty(
        name="Source",
        default="AUTO",
        items=[
            (
                "AUTO",
                "Automatic",
                "The action's keys, or the evaluated scene when constraints, drivers or NLA move the rig",
            ),
            ("ACTION", "Action Keys", "The keys of the assigned action (fast)"),
            ("EVALUATED", "Evaluated Scene", "Step through every frame (follows constraints, drivers, NLA)"),
        ],
        description="Where the motion comes from",
    )
    precision: IntProperty(name="Decimals", default=6, min=1, max=12, description="Decimals of every number")

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "ARMATURE"

    def execute(self, context):
        options = self.as_keywords(ignore=("filepath", "filter_glob", "check_existing", "use_scene_range"))
        if self.use_scene_range:
            options.update(frame_start=None, frame_end=None)  # pyright: ignore[reportAttributeAccessIssue]
        path = self.filepath  # pyright: ignore[reportAttributeAccessIssue] - ExportHelper's, missing from the stubs
        try:
            motion = export_bvh(context, context.active_object, path, **options)  # pyright: ignore[reportCallIssue]
        except Exception as error:
            self.report({"ERROR"}, message(error, path))
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {motion.skeleton.joint_count} joints x {motion.frame_count} frames")
        return {"FINISHED"}


CLASSES, MENUS = file_format("bvh", "BVH", ".bvh", ImportBVH, ExportBVH)
