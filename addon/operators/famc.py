"""MPEG-4 FAMC (.famc with its .obj) import/export operators, menus and drag-and-drop; the work
is done by to_blender.animated_mesh.import_famc_steps and from_blender.mesh.export_famc."""

import bpy
from bpy.props import EnumProperty, StringProperty

from ..common import timing
from ..common.registration import (
    MeshAnimationExport,
    MeshFileImport,
    RangeExport,
    file_format,
)
from ..from_blender.mesh import export_famc
from ..to_blender.animated_mesh import import_famc_steps


class ImportFAMC(bpy.types.Operator, MeshFileImport):
    """Import an MPEG-4 FAMC stream (.famc with its .obj) as an animated mesh"""

    bl_idname = "import_mesh.famc"
    bl_label = "Import FAMC (Mocap I/O)"

    filename_ext = ".famc"
    import_steps = staticmethod(import_famc_steps)
    filter_glob: StringProperty(default="*.famc", options={"HIDDEN"})
    mode: EnumProperty(
        name="Mode",
        default="CACHE",
        items=[
            (
                "CACHE",
                "Mesh Cache",
                "The decoded frames in a .pc2 (in mocap_io_cache beside the .blend) played by Mesh Cache",
            ),
            ("SHAPE_KEYS", "Shape Keys", "One shape key per frame, kept in the .blend (heavier; no file beside it)"),
        ],
        description="How the animation is built",
    )


class ExportFAMC(bpy.types.Operator, MeshAnimationExport, RangeExport):
    """Export the active mesh's animation (shape keys, armature, modifiers: as evaluated) as MPEG-4 FAMC"""

    bl_idname = "export_mesh.famc"
    bl_label = "Export FAMC (Mocap I/O)"

    filename_ext = ".famc"
    filter_glob: StringProperty(default="*.famc", options={"HIDDEN"})
    byte_order: EnumProperty(
        name="Byte Order",
        default="STANDARD",
        items=[
            ("STANDARD", "Standard", "The standard's bit syntax (most significant byte first)"),
            ("REFERENCE", "Reference Software", "Fixed-length fields little-endian, as the MPEG reference software"),
        ],
        description="Byte order of the fixed-length fields",
    )

    def export_range(self, context, path, *, relative, **options):
        written = export_famc(context, context.active_object, path, relative=relative == "RELATIVE", **options)
        rate, error = written.bits_per_vertex_frame, written.max_error  # pyright: ignore[reportAttributeAccessIssue] - write_famc's
        return (
            f"Exported {written.frame_count} frames at {timing.rate_text(written.fps)} fps of "
            f"{len(written.mesh.vertices)} vertices: "
            f"{rate:.3g} bits per vertex per frame, largest error {error:.3g}"
        )


CLASSES, MENUS = file_format("famc", "MPEG-4 FAMC", ".famc", ImportFAMC, ExportFAMC)
