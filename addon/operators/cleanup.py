"""Fill Gaps (`mocap_io.fill_gaps`) and Filter (`mocap_io.filter_markers`) for imported markers,
and the Markers panel of the Mocap I/O sidebar that offers them; the work is done by
to_blender.cleanup.clean_markers. Each operator cleans the marker sets of the selected objects (a
marker's whole set, its parent's) and reports what it did; undoable; on an error nothing changes."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from ...core.gaps import MAX_GAP, METHODS
from ..common.failures import message
from ..to_blender.cleanup import clean_markers

_METHOD_TEXT = {
    "auto": "Rigid where three markers moving with the gapped one are seen throughout the gap, else "
    "Pattern where one is, else Spline",
    "rigid": "Placed on the body of the three markers that move most rigidly with it",
    "pattern": "The trajectory of the marker whose offset to it varies least, bent to meet both ends",
    "spline": "A cubic through the samples around the gap (short gaps)",
}


class _Clean:
    """What both operators share: poll, and execute around clean_markers."""

    bl_options = {"REGISTER", "UNDO"}
    operation = ""

    @classmethod
    def poll(cls, context):
        return any(o.type in ("EMPTY", "MESH") for o in context.selected_objects)

    def keywords(self):
        raise NotImplementedError

    def execute(self, context):
        try:
            done, warned = clean_markers(context, list(context.selected_objects), self.operation, **self.keywords())
        except Exception as error:
            self.report({"ERROR"}, message(error))  # pyright: ignore[reportAttributeAccessIssue]
            return {"CANCELLED"}
        for text in warned:
            self.report({"WARNING"}, text)  # pyright: ignore[reportAttributeAccessIssue]
        self.report({"INFO"}, "; ".join(done))  # pyright: ignore[reportAttributeAccessIssue]
        return {"FINISHED"}


class FillGaps(bpy.types.Operator, _Clean):
    """Fill the gaps of the selected marker sets (filled keys are of type Generated; a point cloud is filled
    from its file again, into a new cache)"""

    bl_idname = "mocap_io.fill_gaps"
    bl_label = "Fill Gaps"
    operation = "FILL"

    method: EnumProperty(
        name="Method",
        default="AUTO",
        items=[(m.upper(), m.capitalize(), _METHOD_TEXT[m]) for m in METHODS],
        description="How a gap is filled",
    )
    any_length: BoolProperty(name="Any Length", default=False, description="Fill gaps of any length")
    max_gap: FloatProperty(
        name="Max Gap",
        default=MAX_GAP,
        min=0.0,
        soft_max=2.0,
        unit="TIME_ABSOLUTE",
        description="Fill gaps no longer than this (seconds); longer ones are left",
    )

    def keywords(self):
        return {"method": self.method.lower(), "max_gap": None if self.any_length else self.max_gap}


class FilterMarkers(bpy.types.Operator, _Clean):
    """Low-pass filter the selected marker sets without lag (a Butterworth forward and backward, each run
    between gaps on its own)"""

    bl_idname = "mocap_io.filter_markers"
    bl_label = "Filter"
    operation = "FILTER"

    cutoff: FloatProperty(
        name="Cutoff",
        default=6.0,
        min=1e-3,
        soft_max=30.0,
        description="-3 dB frequency of one pass, in Hz (below half the take's rate)",
    )
    order: IntProperty(name="Order", default=4, min=1, max=12, description="Butterworth order of one pass")

    def keywords(self):
        return {"cutoff": self.cutoff, "order": self.order}


class VIEW3D_PT_mocap_io_markers(bpy.types.Panel):
    """Clean imported markers: fill their gaps, filter them"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Mocap I/O"
    bl_label = "Markers"

    def draw(self, context):
        column = self.layout.column(align=True)
        column.operator(FillGaps.bl_idname, icon="KEYFRAME_HLT")
        column.operator(FilterMarkers.bl_idname, icon="SMOOTHCURVE")


CLASSES = (FillGaps, FilterMarkers, VIEW3D_PT_mocap_io_markers)
MENUS = ()
