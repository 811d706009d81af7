"""Acclaim ASF/AMC import/export: the operators, menus and drag-and-drop, and the plain functions
behind them (`import_asf`, `export_asf`) that scripts can call too."""

import os

import bpy
from bpy.props import BoolProperty, FloatProperty, StringProperty

from ... import core
from ...core.formats.asf import find_asf, read_asf
from ..common.progress import run
from ..common.registration import file_format
from ..to_blender.motions import build_motions, read_takes
from .motion import JointAxes, MotionExport, MotionImport, export_motion


def import_asf(context, paths, **options):
    """Import an .asf with .amc files, or .amc files alone (each with the .asf beside it); returns
    (armature objects, Messages). All or nothing, like import_bvh. Options: see `import_asf_steps`."""
    return run(import_asf_steps(context, paths, **options), context, "Importing ASF/AMC")


def import_asf_steps(context, paths, *, metres=True, fps=120.0, fill_missing=False, **options):
    """`import_asf` as a generator of progress steps (see progress.py); returns its result.

    metres        lengths in metres by the ASF's :units (CMU: `length 0.45` is 1/0.45 inch), times
                  `scale` when one is given; off: lengths as written, times `scale` (or Auto Scale's)
    fps           the AMC frame rate when the file does not say (CMU and HDM05 record at 120)
    fill_missing  a bone missing from an AMC frame keeps its previous values (else an error)
    options       those of to_blender.motions.build_motions
    An .asf alone gives its armature in the rest pose, with no keys.
    """
    asfs = [p for p in paths if os.path.splitext(p)[1].lower() == ".asf"]
    amcs = [p for p in paths if os.path.splitext(p)[1].lower() != ".asf"]
    if len(asfs) > 1:
        raise ValueError(f"{len(asfs)} .asf files picked: pick one .asf and its .amc files")
    skeletons = {}  # .asf path -> Skeleton: the takes of one skeleton share it

    def read(amc):
        asf = asfs[0] if asfs else str(find_asf(amc))
        if asf not in skeletons:
            skeletons[asf] = read_asf(asf, metres=metres)
        return core.read(amc, skeleton=skeletons[asf], fps=fps, fill_missing=fill_missing)

    if amcs:
        sources = [(amc, lambda amc=amc: read(amc)) for amc in amcs]
    else:
        sources = [(asfs[0], lambda: core.read(asfs[0], metres=metres, fps=fps))]
    takes, messages = yield from read_takes(sources)
    if metres:
        options["file_unit"] = ("metres", 1.0)
    objects, notes = yield from build_motions(context, takes, **options)
    messages.notes += notes
    return objects, messages


def export_asf(context, obj, path, **options):
    """Write the animation of armature `obj` (its take by default) as `path` (.asf) and the .amc
    beside it, replaced together; bone axes and dofs are chosen from the motion (see
    core.formats.asf.writer). Options: those of operators.motion.export_motion (the writer's: precision)."""
    return export_motion(context, obj, path, **options)


class ImportASF(bpy.types.Operator, MotionImport, JointAxes):
    """Import Acclaim motion capture: an .asf skeleton with .amc motions (or .amc files alone), as an
    armature with one action per motion"""

    bl_idname = "import_anim.mocap_asf"
    bl_label = "Import ASF/AMC (Mocap I/O)"
    label = "ASF/AMC"
    import_steps = staticmethod(import_asf_steps)

    filename_ext = ".asf"
    filter_glob: StringProperty(default="*.asf;*.amc", options={"HIDDEN"})
    metres: BoolProperty(
        name="Metres From Units",
        default=True,
        description="Lengths in metres by the skeleton's :units (CMU: 1/0.45 inch), times Scale; "
        "off: lengths as written, times Scale",
    )
    fps: FloatProperty(
        name="AMC Frame Rate",
        default=120.0,
        min=1e-3,
        max=1e5,
        description="Frames per second of motions that do not say (AMC files rarely do; CMU and HDM05: 120)",
    )
    fill_missing: BoolProperty(
        name="Fill Missing Bones",
        default=False,
        description="A bone missing from a frame keeps its values of the previous frame (off: an error)",
    )


class ExportASF(bpy.types.Operator, MotionExport):
    """Export the active armature's animation as an Acclaim .asf skeleton and .amc motion"""

    bl_idname = "export_anim.mocap_asf"
    bl_label = "Export ASF/AMC (Mocap I/O)"
    export = staticmethod(export_asf)

    filename_ext = ".asf"
    filter_glob: StringProperty(default="*.asf", options={"HIDDEN"})


CLASSES, MENUS = file_format("asf", "Acclaim ASF/AMC", ".asf;.amc", ImportASF, ExportASF)
