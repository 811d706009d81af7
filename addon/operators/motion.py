"""What every motion format's operators share: the axis and unit options, the import options of
build.motions, the export options of read.armature, and their execute. A format's operators add
its own options and name the functions that do the work."""

from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from ... import core
from ..common.registration import FilesImport, RangeExport, SceneTiming, axis_properties
from ..common.units import axis_matrix, scene_range
from ..read.armature import armature_motion

_ORDERS = [
    (o, o, f"Euler {o} ({o[0]} then {o[1]} then {o[2]}, as BVH channels list them)")
    for o in ("ZXY", "XYZ", "XZY", "YXZ", "YZX", "ZYX")
]


_FORWARD, _UP = axis_properties("-Z", "Y")  # BVH's convention, and most motion files'


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
        description="Blender units per file unit (0.01 for a file in centimetres)",
    )


class MotionImport(FilesImport, Axes, SceneTiming):
    """Operator mixin for importing motion files as armatures with actions. A format sets `label`
    and `import_steps(context, paths, **options)` (a generator of progress steps returning
    (objects, Messages), see build.motions and common.messages)."""

    bl_options = {"REGISTER", "UNDO", "PRESET"}
    label = ""

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

    def finished(self, context, result):
        objects, messages = result
        messages.report(self)
        self.report({"INFO"}, f"Imported {len(self.paths())} {self.label} file(s) into {len(objects)} armature(s)")  # pyright: ignore[reportAttributeAccessIssue]


def export_motion(
    context,
    obj,
    path,
    *,
    frame_start=None,
    frame_end=None,
    axis_forward="-Z",
    axis_up="Y",
    scale=1.0,
    source="AUTO",
    rotation_order="FILE",
    position_channels="FILE",
    **write_options,
):
    """Write the Motion of armature `obj` over the frame range (the scene's by default) with
    core.write (the extension of `path` chooses the format; `write_options` are its writer's, e.g.
    precision); returns the Motion. See read.armature.armature_motion for the other options."""
    frames = scene_range(context.scene, frame_start, frame_end)
    motion = armature_motion(
        context,
        obj,
        frames,
        axis_matrix(axis_forward, axis_up),
        scale,
        source=source,
        rotation_order=rotation_order,
        position_channels=position_channels,
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
        motion = self.export(context, context.active_object, path, **options)  # pyright: ignore[reportAttributeAccessIssue]
        return f"Exported {motion.skeleton.joint_count} joints x {motion.frame_count} frames"
