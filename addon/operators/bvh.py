"""BVH import/export: the operators, menus and drag-and-drop, and the plain functions behind them
(`import_bvh`, `export_bvh`) that scripts can call too."""

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ... import core
from ..common.progress import run
from ..common.registration import file_format
from ..to_blender.motions import build_motions, read_takes
from .motion import MotionExport, MotionImport, export_motion


def import_bvh(context, paths, **options):
    """Import BVH files; returns (armature objects, Messages). All or nothing: on any error no
    new data-block is left and the error (a core.ParseError for bad files) propagates, with the
    file it concerns as its `import_file` (see failures.py).
    Options: see `import_bvh_steps`."""
    return run(import_bvh_steps(context, paths, **options), context, "Importing BVH")


def import_bvh_steps(context, paths, *, positions="REPLACE", strict=True, **options):
    """`import_bvh` as a generator of progress steps (see progress.py); returns its result.

    positions  "REPLACE" (position channels give the joint's translation) or "ADD" (to its OFFSET);
               the lower-case values of earlier versions too
    strict     refuse a motion with fewer or more frames than declared (else read them and warn)
    options    those of to_blender.motions.build_motions
    """
    positions = positions.lower()
    sources = [(path, lambda path=path: core.read(path, positions=positions, strict=strict)) for path in paths]
    takes, messages = yield from read_takes(sources)
    objects, notes = yield from build_motions(context, takes, **options)
    messages.notes += notes
    return objects, messages


def export_bvh(context, obj, path, **options):
    """Write the animation of armature `obj` (its take by default: its action's frames at the
    rate it was imported at) to a BVH file; by default with the channels, OFFSETs, End Sites, scale
    and Frame Time of the file it was imported from. Options: those of
    operators.motion.export_motion (the writer's: precision, ...)."""
    return export_motion(context, obj, path, **options)


class ImportBVH(bpy.types.Operator, MotionImport):
    """Import motion capture from BVH files (several at once), as armatures with actions"""

    bl_idname = "import_anim.mocap_bvh"
    bl_label = "Import BVH (Mocap I/O)"
    label = "BVH"
    import_steps = staticmethod(import_bvh_steps)

    filename_ext = ".bvh"
    filter_glob: StringProperty(default="*.bvh", options={"HIDDEN"})
    positions: EnumProperty(
        name="Position Channels",
        default="REPLACE",
        items=[
            (
                "REPLACE",
                "Replace Offset",
                "Position channels give the joint's translation (Blender, Bandai Namco, "
                "MotionBuilder and other 6-channel files)",
            ),
            ("ADD", "Add to Offset", "Position channels are added to the joint's OFFSET (the format's original text)"),
        ],
        description="How position channels combine with a joint's OFFSET",
    )
    strict: BoolProperty(
        name="Strict",
        default=True,
        description="Refuse files whose motion has fewer or more frames than declared "
        "(off: read the frames present and warn)",
    )


class ExportBVH(bpy.types.Operator, MotionExport):
    """Export the active armature's animation to a BVH file"""

    bl_idname = "export_anim.mocap_bvh"
    bl_label = "Export BVH (Mocap I/O)"
    export = staticmethod(export_bvh)

    filename_ext = ".bvh"
    filter_glob: StringProperty(default="*.bvh", options={"HIDDEN"})
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


CLASSES, MENUS = file_format("bvh", "BVH", ".bvh", ImportBVH, ExportBVH)
