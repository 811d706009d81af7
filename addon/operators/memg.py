"""Mesh-ensemble (.obj + .memg) import/export operators, menus and drag-and-drop; the work is
done by to_blender.ensemble.import_memg_steps and from_blender.mesh.export_memg."""

import bpy
from bpy.props import EnumProperty, StringProperty

from ..common import timing
from ..common.registration import (
    MeshAnimationExport,
    MeshFileImport,
    RangeExport,
    file_format,
)
from ..from_blender.mesh import export_memg
from ..to_blender.ensemble import import_memg_steps


class ImportMEMG(bpy.types.Operator, MeshFileImport):
    """Import a mesh ensemble (.memg with its .obj) as an animated mesh"""

    bl_idname = "import_mesh.memg"
    bl_label = "Import Mesh Ensemble (Mocap I/O)"

    filename_ext = ".memg"
    import_steps = staticmethod(import_memg_steps)
    filter_glob: StringProperty(default="*.memg", options={"HIDDEN"})
    mode: EnumProperty(
        name="Mode",
        default="BASIS",
        items=[
            (
                "BASIS",
                "Basis",
                "Exact and compact: one shape key per basis vector with animated values, "
                "one bone per group for its rigid motion",
            ),
            (
                "BAKED",
                "Baked",
                "Plain vertex data: a .pc2 cache (in mocap_io_cache beside the .blend) played by Mesh Cache",
            ),
        ],
        description="How the animation is built",
    )
    layout: EnumProperty(
        name="Matrix Order",
        default="AUTO",
        items=[
            ("AUTO", "Detect", "Decode both orders of U and Q and keep the smoother animation"),
            ("COLUMN", "Column-major", "U and Q stored column by column"),
            ("ROW", "Row-major", "U and Q stored row by row"),
        ],
        description="Storage order of the basis and coefficient matrices (the format does not say)",
    )


class ExportMEMG(bpy.types.Operator, MeshAnimationExport, RangeExport):
    """Export the active mesh's animation (shape keys, armature, modifiers: as evaluated) as a mesh ensemble"""

    bl_idname = "export_mesh.memg"
    bl_label = "Export Mesh Ensemble (Mocap I/O)"

    filename_ext = ".memg"
    filter_glob: StringProperty(default="*.memg", options={"HIDDEN"})
    grouping: EnumProperty(
        name="Groups",
        default="GROUPS",
        items=[
            (
                "GROUPS",
                "Vertex Groups",
                "One group (rigid frame + basis) per vertex group, the faces entirely inside it, as an imported "
                "ensemble's groups (connected parts for a mesh without vertex groups)",
            ),
            ("COMPONENTS", "Connected Parts", "One group per connected part of the mesh"),
        ],
        description="How the mesh is split into groups",
    )

    def export_range(self, context, path, *, relative, **options):
        animation = export_memg(context, context.active_object, path, relative=relative == "RELATIVE", **options)
        ranks = sum(g.rank for g in animation.groups)
        return (
            f"Exported {animation.frame_count} frames at {timing.rate_text(animation.fps)} fps: "
            f"{len(animation.groups)} groups, "
            f"{ranks} basis vectors, largest error {animation.max_error:.3g}"  # pyright: ignore[reportAttributeAccessIssue]
        )


CLASSES, MENUS = file_format("memg", "Mesh Ensemble", ".memg", ImportMEMG, ExportMEMG)
