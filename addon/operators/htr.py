"""Motion Analysis HTR/GTR import/export: the operators, menus and drag-and-drop, and the plain
functions behind them (`import_htr`, `export_htr`) that scripts can call too."""

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ... import core
from ...core.formats.htr import HtrRecord
from ..common import file_record
from ..common.progress import run
from ..common.registration import file_format
from ..common.units import LENGTH_ITEMS, LENGTHS, length_unit
from ..to_blender.motions import build_motions, read_takes
from .motion import JointAxes, MotionExport, MotionImport, export_motion

# the file's up axis (GlobalAxisofGravity) -> (forward, up) for the axis conversion
_FILE_AXES = {"X": ("-Y", "X"), "Y": ("-Z", "Y"), "Z": ("-Y", "Z")}


def import_htr(context, paths, **options):
    """Import HTR/GTR files; returns (armature objects, Messages). All or nothing, like import_bvh.
    Options: see `import_htr_steps`."""
    return run(import_htr_steps(context, paths, **options), context, "Importing HTR")


def import_htr_steps(context, paths, *, euler_reading="PRODUCT", strict=True, from_file=True, **options):
    """`import_htr` as a generator of progress steps (see progress.py); returns its result.

    euler_reading  how EulerRotationOrder reads ("PRODUCT": ZYX is Rz @ Ry @ Rx, see docs/htr.md;
                   or "APPLIED"; the lower-case values of earlier versions too)
    strict         refuse a file whose blocks hold more or fewer frames than NumFrames
    from_file      the first file's CalibrationUnits (to metres, times `scale` when one is given)
                   and its up axis (GlobalAxisofGravity) instead of the axis options
    options        those of to_blender.motions.build_motions
    """
    euler_reading = euler_reading.lower()
    sources = [(path, lambda path=path: core.read(path, euler_reading=euler_reading, strict=strict)) for path in paths]
    takes, messages = yield from read_takes(sources)
    record = takes[0][1].record if takes else None
    if from_file and isinstance(record, HtrRecord):
        units = record.calibration_units
        metres = core.htr.metres_per_unit(units)
        if metres:
            options["file_unit"] = (units, metres)
        options["axis_forward"], options["axis_up"] = _FILE_AXES.get(record.up_axis, _FILE_AXES["Y"])
    objects, notes = yield from build_motions(context, takes, **options)
    messages.notes += notes
    return objects, messages


def export_htr(context, obj, path, *, units="FILE", scale=None, auto_scale=None, **options):
    """Write the animation of armature `obj` (its take by default, see export_motion) to an HTR
    file (.gtr: every segment global), in HTR's base pose (bones along Y, see
    core.formats.htr.bvh_to_htr), with CalibrationUnits `units` ("FILE": the unit the armature
    was read in, else mm; or "MM", "CM", "M", "IN"); `scale` is Blender units per metre (with
    auto_scale, the default when no scale is given: the import's, so that an HTR comes back with
    its numbers; else 1 when None). Options: those of
    operators.motion.export_motion (the writer's: precision, ...)."""
    recalled = file_record.recall_scale(obj.data)
    unit = _file_length(recalled) if str(units).upper() == "FILE" else length_unit(units)
    if auto_scale or (auto_scale is None and scale is None):
        scale = recalled[0] / recalled[2] if recalled and recalled[2] else 1.0
    elif scale is None:
        scale = 1.0
    header = {"CalibrationUnits": unit}
    return export_motion(context, obj, path, scale=scale * LENGTHS[unit], header=header, **options)


def _file_length(recalled):
    """The unit of LENGTHS the armature was read in (file_record.recall_scale's), else "mm"."""
    if recalled is None or recalled[2] is None:
        return "mm"
    named = str(recalled[1]).lower()
    if named in LENGTHS:
        return named
    return next((unit for unit, metres in LENGTHS.items() if abs(metres - recalled[2]) <= 1e-12), "mm")


class ImportHTR(bpy.types.Operator, MotionImport, JointAxes):
    """Import Motion Analysis HTR/GTR motion capture, as armatures with actions (SF as bone scale)"""

    bl_idname = "import_anim.mocap_htr"
    bl_label = "Import HTR (Mocap I/O)"
    label = "HTR"
    import_steps = staticmethod(import_htr_steps)

    filename_ext = ".htr"
    filter_glob: StringProperty(default="*.htr;*.gtr", options={"HIDDEN"})
    from_file: BoolProperty(
        name="Units and Up Axis From File",
        default=True,
        description="Metres from CalibrationUnits (times Scale, when Auto Scale is off) and the up axis from "
        "GlobalAxisofGravity (off: the Auto Scale or Scale, Forward and Up options)",
    )
    euler_reading: EnumProperty(
        name="Euler Order Reads",
        default="PRODUCT",
        items=[
            (
                "PRODUCT",
                "As a Product",
                "EulerRotationOrder ZYX is Rz @ Ry @ Rx (Meredith and Maddock, Syzygy, the corpus)",
            ),
            ("APPLIED", "As Applied", "EulerRotationOrder ZYX turns about Z first: Rx @ Ry @ Rz"),
        ],
        description="How the file's EulerRotationOrder is read (producers differ: see docs/htr.md)",
    )
    strict: BoolProperty(
        name="Strict",
        default=True,
        description="Refuse files whose blocks hold more or fewer frames than NumFrames (off: read them and warn)",
    )


class ExportHTR(bpy.types.Operator, MotionExport):
    """Export the active armature's animation to a Motion Analysis HTR file"""

    bl_idname = "export_anim.mocap_htr"
    bl_label = "Export HTR (Mocap I/O)"
    export = staticmethod(export_htr)

    filename_ext = ".htr"
    filter_glob: StringProperty(default="*.htr;*.gtr", options={"HIDDEN"})
    units: EnumProperty(
        name="Units",
        default="FILE",
        items=[("FILE", "As Imported", "The unit the armature was read in (else mm)")] + LENGTH_ITEMS,
        description="CalibrationUnits of the file",
    )


CLASSES, MENUS = file_format("htr", "Motion Analysis HTR", ".htr;.gtr", ImportHTR, ExportHTR)
