"""TRC import/export operators, menus and drag-and-drop; the work is done by
to_blender.markers.import_markers and from_blender.markers.export_markers."""

import bpy
from bpy.props import StringProperty

from ..common.registration import axis_properties, file_format
from ..to_blender.markers import AXES
from .markers import MarkerExport, MarkerImport

_FORWARD, _UP = axis_properties(*AXES[".trc"])


class ImportTRC(bpy.types.Operator, MarkerImport):
    """Import marker trajectories from TRC files (several at once), as keyed empties or a point cloud"""

    bl_idname = "import_anim.mocap_trc"
    bl_label = "Import TRC (Mocap I/O)"

    filename_ext = ".trc"
    filter_glob: StringProperty(default="*.trc", options={"HIDDEN"})
    axis_forward: _FORWARD
    axis_up: _UP


class ExportTRC(bpy.types.Operator, MarkerExport):
    """Export the selected empties (or the active mesh's vertices) as TRC marker trajectories"""

    bl_idname = "export_anim.mocap_trc"
    bl_label = "Export TRC (Mocap I/O)"

    filename_ext = ".trc"
    filter_glob: StringProperty(default="*.trc", options={"HIDDEN"})
    axis_forward: _FORWARD
    axis_up: _UP


CLASSES, MENUS = file_format("trc", "TRC", ".trc", ImportTRC, ExportTRC)
