"""What every motion format's operators share: the axis and unit options, the import options of
to_blender.motions, the export options of from_blender.armature, and their execute. A format's operators add
its own options and name the functions that do the work."""

from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from ... import core
from ..common import file_record, timing
from ..common.registration import FilesImport, RangeExport, SceneTiming, axis_properties
from ..common.units import as_typed, axis_matrix
from ..from_blender.armature import armature_motion

_ORDERS = [
    (o, o, f"Euler {o} ({o[0]} then {o[1]} then {o[2]}, as BVH channels list them)")
    for o in ("ZXY", "XYZ", "XZY", "YXZ", "YZX", "ZYX")
]


_FORWARD, _UP = axis_properties("-Z", "Y")  # BVH's convention, and most motion files'


def _typed_scale(self, _context):
    """A Scale typed in (or passed by a script) is the scale used: Auto Scale goes off."""
    self.auto_scale = False


class Axes:
    axis_forward: _FORWARD
    axis_up: _UP
    scale: FloatProperty(
        name="Scale",
        default=1.0,
        min=1e-6,
        max=1e6,
        soft_min=0.001,
        soft_max=1000,
        update=_typed_scale,
        description="Blender units per file unit (0.01 for a file in centimetres); typing one turns Auto Scale off",
    )


class MotionImport(FilesImport, Axes, SceneTiming):
    """Operator mixin for importing motion files as armatures with actions. A format sets `label`
    and `import_steps(context, paths, **options)` (a generator of progress steps returning
    (objects, Messages), see to_blender.motions and common.messages)."""

    bl_options = {"REGISTER", "UNDO", "PRESET"}
    label = ""

    auto_scale: BoolProperty(
        name="Auto Scale",
        default=True,
        description="The file's unit as the file names it, else guessed from the skeleton's size (cm, m, mm, "
        "inches, CMU ASF units), to metres; the unit is reported and remembered for export (off: Scale)",
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
    retarget: BoolProperty(
        name="Retarget onto Active Armature",
        default=False,
        description="Give the active armature a new action per file, retargeted from the file's skeleton "
        "(bones mapped by name and structure, steps scaled by leg length, feet held while the file's stand, "
        "as the Retarget panel's defaults), instead of building new armatures",
    )

    def import_options(self):
        options = super().import_options()
        options["scale"] = as_typed(options["scale"])
        return options

    def finished(self, context, result):
        objects, messages = result
        messages.report(self)
        units = sorted({unit_text(o.data) for o in objects if o.type == "ARMATURE"} - {""})
        self.report(  # pyright: ignore[reportAttributeAccessIssue]
            {"INFO"},
            f"Imported {len(self.paths())} {self.label} file(s) into {len(objects)} armature(s)"  # pyright: ignore[reportAttributeAccessIssue]
            + (f", {'; '.join(units)}" if units else ""),
        )


def unit_text(armature):
    """How the armature data's lengths were read, for a report: "in centimetres (scale 0.01)", or
    "" without a record."""
    recalled = file_record.recall_scale(armature)
    if recalled is None:
        return ""
    scale, unit, _ = recalled
    return f"in {unit} (scale {scale:g})" if unit else f"scale {scale:g}"


def export_scale(obj, scale=None, auto_scale=None):
    """Blender units per file unit for an export of armature `obj`: with auto_scale (the default
    when no scale is given) the one it was imported with (its record; 1 without one), so that
    import -> export gives back the file's numbers; else `scale` (1 when None)."""
    if auto_scale or (auto_scale is None and scale is None):
        recalled = file_record.recall_scale(obj.data)
        return recalled[0] if recalled else 1.0
    return 1.0 if scale is None else scale


def export_motion(
    context,
    obj,
    path,
    *,
    frame_range="TAKE",
    frame_rate="TAKE",
    frame_start=None,
    frame_end=None,
    axis_forward="-Z",
    axis_up="Y",
    scale=None,
    auto_scale=None,
    source="AUTO",
    rotation_order="FILE",
    position_channels="FILE",
    **write_options,
):
    """Write the Motion of armature `obj` with core.write (the extension of `path` chooses the
    format; `write_options` are its writer's, e.g. precision); returns the Motion.

    frame_range, frame_rate, frame_start, frame_end  by default the take of its action: its frame
                range at the rate it was imported at, sampled at its own frames (see
                common.timing.export_frames); "SCENE" for the scene's range or rate
    scale       Blender units per file unit; None (or auto_scale=True): the inverse of the import's
                (the armature's record), so that import -> export gives back the file's numbers
    See from_blender.armature.armature_motion for the other options."""
    frames, rate = timing.export_frames(
        context.scene, timing.action_take(obj), frame_range, frame_rate, frame_start, frame_end
    )
    motion = armature_motion(
        context,
        obj,
        frames,
        axis_matrix(axis_forward, axis_up),
        export_scale(obj, scale, auto_scale),
        source=source,
        rotation_order=rotation_order,
        position_channels=position_channels,
        fps=rate,
    )
    core.write(motion, path, **write_options)
    return motion


class JointAxes:
    """Import mixin for formats whose joints have axes of their own (ASF axes, HTR base rotations)."""

    bone_axes: EnumProperty(
        name="Bone Axes",
        default="ROLL",
        items=[
            (
                "ROLL",
                "Along Bones, Rolled",
                "Bones point at their children, rolled so their axes are the file's turned the least",
            ),
            (
                "EXACT",
                "Exact",
                "Bone axes are the file's: pose values are the file's rotations (bones may point anywhere)",
            ),
        ],
        description="How bones follow the file's joint axes",
    )


class MotionExport(RangeExport, Axes):
    """Operator mixin for exporting the active armature's animation. A format sets
    `export(context, obj, path, **options)` (returns the Motion written)."""

    auto_scale: BoolProperty(
        name="Scale As Imported",
        default=True,
        description="The inverse of the scale the armature was imported with (its unit), so the file gets its "
        "numbers back; else 1 (off: Scale)",
    )

    rotation_order: EnumProperty(
        name="Rotation Order",
        default="FILE",
        items=[
            ("FILE", "As Imported", "Each joint's rotation order in the file the armature came from (else Native)"),
            ("NATIVE", "Native", "Each bone's Euler mode (ZXY for quaternion bones)"),
        ]
        + _ORDERS,
        description="Euler order of the rotations",
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

    precision: IntProperty(name="Decimals", default=6, min=1, max=12, description="Decimals of every number written")

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "ARMATURE"

    def export_range(self, context, path, **options):
        obj = context.active_object
        options["scale"] = as_typed(options["scale"])
        motion = self.export(context, obj, path, **options)  # pyright: ignore[reportAttributeAccessIssue]
        unit = unit_text(obj.data) if options.get("auto_scale") else ""
        return (
            f"Exported {motion.skeleton.joint_count} joints x {motion.frame_count} frames at "
            f"{timing.rate_text(motion.fps)} fps" + (f", {unit} as imported" if unit else "")
        )
