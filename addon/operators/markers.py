"""What the marker formats' operators (C3D, TRC) share: the import options of to_blender.markers, the
export options of from_blender.markers, and their execute. A format's module sets its extension, its
axes' defaults and any option of its own reader."""

from bpy.props import BoolProperty, EnumProperty, FloatProperty

from ..common import timing
from ..common.registration import FilesImport, RangeExport, SceneTiming
from ..common.units import LENGTH_ITEMS
from ..from_blender.markers import export_markers
from ..to_blender.markers import import_markers_steps


class MarkerImport(FilesImport, SceneTiming):
    """Operator mixin for importing marker files (several at once), each as empties under a parent
    or as a point-cloud mesh; see to_blender.markers.build_markers for the options."""

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
                "One mesh, a vertex per marker, played from a .pc2 cache in mocap_io_cache (fast for many "
                "markers and long takes; a vertex holds its last position through a gap)",
            ),
        ],
        description="What each marker becomes",
    )
    units: EnumProperty(
        name="Units",
        default="FILE",
        items=[("FILE", "From File", "The file's length unit (millimetres when it names none we know)")] + LENGTH_ITEMS,
        description="The file's length unit: positions become metres",
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
        result[1].report(self)
        self.report({"INFO"}, f"Imported {len(self.paths())} file(s)")  # pyright: ignore[reportAttributeAccessIssue]


class MarkerExport(RangeExport):
    """Operator mixin for exporting the selected empties (a parent stands for its markers) or the
    active mesh's vertices over a frame range; see from_blender.markers.export_markers."""

    units: EnumProperty(name="Units", default="MM", items=LENGTH_ITEMS, description="The file's length unit")

    @classmethod
    def poll(cls, context):
        active = context.active_object
        return (active is not None and active.type == "MESH") or any(
            o.type == "EMPTY" for o in context.selected_objects
        )

    def export_range(self, context, path, **options):
        active = context.active_object
        objects = [active] if active is not None and active.type == "MESH" else list(context.selected_objects)
        markers = export_markers(context, objects, path, **options)
        rate = timing.rate_text(markers.rate)
        return f"Exported {markers.marker_count} markers x {markers.frame_count} frames at {rate} fps"
