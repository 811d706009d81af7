"""What the marker formats' operators (C3D, TRC) share: the import options of build.markers, the
export options of read.markers, and their execute. A format's module sets its extension, its
axes' defaults and any option of its own reader."""

from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty
from bpy_extras.io_utils import ExportHelper

from ...core.errors import one_line
from ..build.markers import import_markers_steps
from ..common.failures import message
from ..common.registration import FilesImport
from ..common.units import AXES
from ..read.markers import export_markers

_LENGTHS = [
    ("mm", "Millimetres", "Millimetres (mm)"),
    ("cm", "Centimetres", "Centimetres (cm)"),
    ("m", "Metres", "Metres (m)"),
    ("in", "Inches", "Inches (in)"),
]


def axes(forward, up):
    """(forward, up) axis properties with a format's defaults."""
    return (
        EnumProperty(name="Forward", items=AXES, default=forward, description="The file's forward axis"),
        EnumProperty(name="Up", items=AXES, default=up, description="The file's up axis"),
    )


class MarkerImport(FilesImport):
    """Operator mixin for importing marker files (several at once), each as empties under a parent
    or as a point-cloud mesh; see build.markers.build_markers for the options."""

    bl_options = {"REGISTER", "UNDO", "PRESET"}
    import_steps = staticmethod(import_markers_steps)

    representation: EnumProperty(
        name="Markers As",
        default="EMPTIES",
        items=[
            ("EMPTIES", "Empties", "An empty per marker, keyed where seen, under an empty per file"),
            (
                "POINT_CLOUD",
                "Point Cloud",
                "One mesh, a vertex per marker, played from a .pc2 cache written beside the file (fast for many "
                "markers and long takes; a vertex holds its last position through a gap)",
            ),
        ],
        description="What each marker becomes",
    )
    units: EnumProperty(
        name="Units",
        default="FILE",
        items=[("FILE", "From File", "The file's length unit (millimetres when it names none we know)")] + _LENGTHS,
        description="The file's length unit: positions become metres",
    )
    frame_start: IntProperty(name="Start Frame", default=1, description="Scene frame of the first file frame")
    frame_rate: EnumProperty(
        name="Frame Rate",
        default="SNAP",
        items=[
            (
                "SNAP",
                "From File",
                "Set the scene rate from the file; a rate within single precision of a standard rate "
                "(59.94, 30000/1001) is that rate",
            ),
            ("EXACT", "Exactly as Stored", "Set the scene rate to the file's rate as stored (single precision in C3D)"),
            ("KEEP", "Keep Scene Rate", "Keep the scene rate and place keys in time (one key per file frame)"),
        ],
        description="Scene frame rate",
    )
    update_frame_range: BoolProperty(
        name="Update Frame Range", default=True, description="Set the scene start/end to the imported frames"
    )
    hide_gaps: BoolProperty(
        name="Hide in Gaps",
        default=True,
        description="Empties: key the viewport visibility off while a marker is unseen "
        "(Blender deselects objects while they are hidden)",
    )
    marker_size: FloatProperty(
        name="Marker Size",
        default=0.01,
        min=1e-5,
        soft_max=0.1,
        subtype="DISTANCE",
        description="Radius of a marker's sphere",
    )

    def finished(self, context, result):
        objects, messages = result
        paths = tuple(self.paths())
        for text in messages:  # the reader's warnings name the file
            self.report({"WARNING"} if text.startswith(paths) else {"INFO"}, one_line(text))  # pyright: ignore[reportAttributeAccessIssue]
        self.report({"INFO"}, f"Imported {len(paths)} file(s)")  # pyright: ignore[reportAttributeAccessIssue]


class MarkerExport(ExportHelper):
    """Operator mixin for exporting the selected empties (a parent stands for its markers) or the
    active mesh's vertices over a frame range; see read.markers.export_markers."""

    bl_options = {"REGISTER", "PRESET"}
    units: EnumProperty(name="Units", default="mm", items=_LENGTHS, description="The file's length unit")
    use_scene_range: BoolProperty(name="Scene Frame Range", default=True, description="Export the scene's frame range")
    frame_start: IntProperty(name="Start", default=1, description="First frame (when not using the scene range)")
    frame_end: IntProperty(name="End", default=250, description="Last frame (when not using the scene range)")

    @classmethod
    def poll(cls, context):
        active = context.active_object
        return (active is not None and active.type == "MESH") or any(
            o.type == "EMPTY" for o in context.selected_objects
        )

    def execute(self, context):
        active = context.active_object
        objects = [active] if active is not None and active.type == "MESH" else list(context.selected_objects)
        ignore = ("filepath", "filter_glob", "check_existing", "use_scene_range")
        options = self.as_keywords(ignore=ignore)  # pyright: ignore[reportAttributeAccessIssue] - an Operator's
        if self.use_scene_range:
            options.update(frame_start=None, frame_end=None)
        path = self.filepath  # pyright: ignore[reportAttributeAccessIssue] - ExportHelper's, missing from the stubs
        try:
            markers = export_markers(context, objects, path, **options)
        except Exception as error:
            self.report({"ERROR"}, message(error, path))  # pyright: ignore[reportAttributeAccessIssue]
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {markers.marker_count} markers x {markers.frame_count} frames")  # pyright: ignore[reportAttributeAccessIssue]
        return {"FINISHED"}
