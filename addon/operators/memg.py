"""Mesh-ensemble (.obj + .memg) import/export operators, menus and drag-and-drop; the work is
done by build.ensemble.import_memg_steps and read.mesh.export_memg."""

import bpy
from bpy.props import EnumProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..build.ensemble import import_memg_steps
from ..common.failures import message
from ..common.registration import MeshAnimationExport, MeshFileImport, file_format, static_mesh_property
from ..common.units import AXES
from ..read.mesh import export_memg


class ImportMEMG(bpy.types.Operator, MeshFileImport):
    """Import a mesh ensemble (.memg with its .obj) as an animated mesh"""

    bl_idname = "import_mesh.memg"
    bl_label = "Import Mesh Ensemble (Mocap I/O)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

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
            ("BAKED", "Baked", "Plain vertex data: a .pc2 cache beside the file, played by a Mesh Cache modifier"),
        ],
        description="How the animation is built",
    )
    obj_path: static_mesh_property()
    layout: EnumProperty(
        name="Matrix Order",
        default="auto",
        items=[
            ("auto", "Detect", "Decode both orders of U and Q and keep the smoother animation"),
            ("column", "Column-major", "U and Q stored column by column"),
            ("row", "Row-major", "U and Q stored row by row"),
        ],
        description="Storage order of the basis and coefficient matrices (the format does not say)",
    )
    axis_forward: EnumProperty(name="Forward", items=AXES, default="-Z", description="The file's forward axis")
    axis_up: EnumProperty(name="Up", items=AXES, default="Y", description="The file's up axis")
    frame_start: IntProperty(name="Start Frame", default=1, description="Scene frame of the first timestep")


class ExportMEMG(bpy.types.Operator, MeshAnimationExport, ExportHelper):
    """Export the active mesh's animation (shape keys, armature, modifiers: as evaluated) as a mesh ensemble"""

    bl_idname = "export_mesh.memg"
    bl_label = "Export Mesh Ensemble (Mocap I/O)"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".memg"
    filter_glob: StringProperty(default="*.memg", options={"HIDDEN"})
    grouping: EnumProperty(
        name="Groups",
        default="components",
        items=[
            ("components", "Connected Parts", "One group (rigid frame + basis) per connected part of the mesh"),
            ("groups", "Vertex Groups", "One group per vertex group (faces entirely inside it)"),
        ],
        description="How the mesh is split into groups",
    )

    def execute(self, context):
        path = self.filepath  # pyright: ignore[reportAttributeAccessIssue] - ExportHelper's, missing from the stubs
        try:
            animation = export_memg(
                context,
                context.active_object,
                path,
                tolerance=self.tolerance,
                relative=self.relative == "RELATIVE",
                grouping=self.grouping,
            )
        except Exception as error:
            self.report({"ERROR"}, message(error, path))
            return {"CANCELLED"}
        ranks = sum(g.rank for g in animation.groups)
        self.report(
            {"INFO"},
            f"Exported {animation.frame_count} frames: {len(animation.groups)} groups, "
            f"{ranks} basis vectors, largest error {animation.max_error:.3g}",  # pyright: ignore[reportAttributeAccessIssue]
        )
        return {"FINISHED"}


CLASSES, MENUS = file_format("memg", "Mesh Ensemble", ".memg", ImportMEMG, ExportMEMG)
