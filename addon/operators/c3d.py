"""C3D import/export operators, menus and drag-and-drop; the work is done by
to_blender.markers.import_markers and from_blender.markers.export_markers."""

import bpy
from bpy.props import BoolProperty, StringProperty

from ..common.registration import axis_properties, file_format
from ..to_blender.markers import AXES
from .markers import MarkerExport, MarkerImport

_FORWARD, _UP = axis_properties(*AXES[".c3d"])


class ImportC3D(bpy.types.Operator, MarkerImport):
    """Import marker trajectories from C3D files (several at once), as keyed empties or a point cloud"""

    bl_idname = "import_anim.mocap_c3d"
    bl_label = "Import C3D (Mocap I/O)"

    filename_ext = ".c3d"
    filter_glob: StringProperty(default="*.c3d", options={"HIDDEN"})
    axis_forward: _FORWARD
    axis_up: _UP
    strict: BoolProperty(
        name="Strict",
        default=False,
        description="Refuse parameter sections whose pointers and sizes disagree, and files that end inside a "
        "frame (off: follow the pointers and read the whole frames, with a warning)",
    )


class ExportC3D(bpy.types.Operator, MarkerExport):
    """Export the selected empties (or the active mesh's vertices) as C3D marker trajectories"""

    bl_idname = "export_anim.mocap_c3d"
    bl_label = "Export C3D (Mocap I/O)"

    filename_ext = ".c3d"
    filter_glob: StringProperty(default="*.c3d", options={"HIDDEN"})
    axis_forward: _FORWARD
    axis_up: _UP


CLASSES, MENUS = file_format("c3d", "C3D", ".c3d", ImportC3D, ExportC3D)
