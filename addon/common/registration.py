"""What every file format registers: menu entries, drag-and-drop on the 3D viewport, and the
invoke that lets a dropped file skip the file browser."""

import os

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import compat, timing
from .failures import message
from .progress import SteppedImport
from .units import AXES


class DroppableImport(SteppedImport, ImportHelper):
    """ImportHelper whose invoke shows the options only, when the file came from a drop; a user's
    import runs modally (see SteppedImport)."""

    def invoke(self, context, event):
        self.interactive = True
        if self.filepath or getattr(self, "files", None):  # pyright: ignore[reportAttributeAccessIssue]
            return self.invoke_popup(context) if hasattr(self, "invoke_popup") else self.execute(context)
        return ImportHelper.invoke(self, context, event)


class FilesImport(DroppableImport):
    """A DroppableImport of several files at once: a format sets `import_steps(context, paths,
    **options)` (a generator of progress steps, see progress.py); the operator's other properties
    are its options."""

    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    def paths(self):
        return [os.path.join(self.directory, f.name) for f in self.files if f.name] or [self.filepath]  # pyright: ignore[reportAttributeAccessIssue]

    def import_options(self):
        """The options of import_steps: the operator's other properties."""
        ignore = ("filepath", "files", "directory", "filter_glob", "check_existing", "interactive")
        return self.as_keywords(ignore=ignore)  # pyright: ignore[reportAttributeAccessIssue]

    def steps(self, context):
        return self.import_steps(context, self.paths(), **self.import_options())  # pyright: ignore[reportAttributeAccessIssue]


def axis_properties(forward, up):
    """(forward, up) axis properties with a format's defaults."""
    return (
        EnumProperty(name="Forward", items=AXES, default=forward, description="The file's forward axis"),
        EnumProperty(name="Up", items=AXES, default=up, description="The file's up axis"),
    )


OBJ_FORWARD, OBJ_UP = axis_properties("-Z", "Y")  # the axes of an .obj (and of the mesh animations that use one)


class SceneTiming:
    """Import mixin: where the file's frames land in the scene (see to_blender.motions.frame_plan)."""

    frame_start: IntProperty(name="Start Frame", default=1, description="Scene frame of the file's first frame")
    frame_rate: EnumProperty(
        name="Frame Rate",
        default="SNAP",
        items=[
            (
                "SNAP",
                "From File",
                "Set the scene rate from the file; a rate the file rounded (Frame Time 0.033333, a C3D's "
                "single-precision 59.94) is the standard rate it stands for, anything else is kept exactly",
            ),
            (
                "EXACT",
                "Exactly as Stored",
                "Set the scene rate to the file's rate as stored (Frame Time 0.033333 -> 30.0003 fps)",
            ),
            ("KEEP", "Keep Scene Rate", "Keep the scene rate and place keys in time (one key per file frame)"),
        ],
        description="Scene frame rate",
    )
    update_frame_range: BoolProperty(
        name="Update Frame Range", default=True, description="Set the scene start/end to the imported frames"
    )


def static_mesh_property():
    """The importer option naming the .obj that holds a mesh animation's mesh."""
    return StringProperty(
        name="OBJ",
        default="",
        subtype="FILE_PATH",
        options={"SKIP_SAVE"} | compat.BLEND_RELATIVE,  # pyright: ignore[reportArgumentType] - not carried over
        description="The static mesh (default: the .obj of the same name beside the file)",
    )


class MeshAnimationExport:
    """Export mixin: the active mesh's evaluated animation, encoded within a tolerance."""

    tolerance: FloatProperty(
        name="Tolerance",
        default=1e-3,
        min=1e-9,
        max=1.0,
        precision=6,
        description="Largest allowed distance between an exported and a shown vertex",
    )
    relative: EnumProperty(
        name="Tolerance Is",
        default="RELATIVE",
        items=[
            ("RELATIVE", "Relative", "A fraction of the animation's bounding-box diagonal"),
            ("ABSOLUTE", "Absolute", "A distance in Blender units"),
        ],
        description="How the tolerance is measured",
    )

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "MESH"


class RangeExport(ExportHelper):
    """Export mixin over frames at a rate (by default the object's own take, see common.timing): a
    format sets `export_range(context, path, **options)`, which writes the file and returns the line
    to report; the options include frame_range, frame_rate and, for a Custom range, frame_start and
    frame_end."""

    bl_options = {"REGISTER", "PRESET"}
    frame_range: EnumProperty(
        name="Frame Range", default="TAKE", items=timing.RANGE_ITEMS, description="The frames written"
    )
    frame_rate: EnumProperty(
        name="Frame Rate",
        default="TAKE",
        items=timing.RATE_ITEMS,
        description="The rate written, and where frames are sampled",
    )
    frame_start: IntProperty(name="Start", default=1, description="First frame of a Custom range")
    frame_end: IntProperty(name="End", default=250, description="Last frame of a Custom range")
    # scripts of earlier versions: use_scene_range=True is Scene Range, False a Custom range
    use_scene_range: BoolProperty(options={"HIDDEN", "SKIP_SAVE"})

    def execute(self, context):
        ignore = ("filepath", "filter_glob", "check_existing", "use_scene_range")
        options = self.as_keywords(ignore=ignore)  # pyright: ignore[reportAttributeAccessIssue] - an Operator's
        props = self.properties  # pyright: ignore[reportAttributeAccessIssue]
        if props.is_property_set("use_scene_range") and not props.is_property_set("frame_range"):
            options["frame_range"] = "SCENE" if self.use_scene_range else "CUSTOM"
        if options["frame_range"] != "CUSTOM":
            options.update(frame_start=None, frame_end=None)
        path = self.filepath  # pyright: ignore[reportAttributeAccessIssue] - ExportHelper's, missing from the stubs
        try:
            done = self.export_range(context, path, **options)  # pyright: ignore[reportAttributeAccessIssue]
        except Exception as error:
            self.report({"ERROR"}, message(error, path))  # pyright: ignore[reportAttributeAccessIssue]
            return {"CANCELLED"}
        self.report({"INFO"}, done)  # pyright: ignore[reportAttributeAccessIssue]
        return {"FINISHED"}


class MeshFileImport(DroppableImport):
    """A DroppableImport of one mesh-animation file: a format sets `import_steps(context, path,
    **options)` (a generator of progress steps returning (object, Messages)); the operator's other
    properties are its options: those every mesh animation has are here."""

    bl_options = {"REGISTER", "UNDO", "PRESET"}
    obj_path: static_mesh_property()
    axis_forward: OBJ_FORWARD
    axis_up: OBJ_UP
    frame_start: IntProperty(name="Start Frame", default=1, description="Scene frame of the file's first frame")

    def steps(self, context):
        options = self.as_keywords(ignore=("filepath", "filter_glob", "interactive"))  # pyright: ignore[reportAttributeAccessIssue]
        options["obj_path"] = bpy.path.abspath(options["obj_path"]) if options["obj_path"] else ""
        return self.import_steps(context, self.filepath, **options)  # pyright: ignore[reportAttributeAccessIssue]

    def finished(self, context, result):
        obj, messages = result
        messages.report(self)
        take = timing.recorded_take(obj)
        frames = f", {take.count} frames at {timing.rate_text(take.rate)} fps" if take and take.rate else ""
        self.report({"INFO"}, f"Imported {obj.name!r}: {len(obj.data.vertices)} vertices{frames}")  # pyright: ignore[reportAttributeAccessIssue]


def _poll_drop(cls, context):
    return context.area is not None and context.area.type == "VIEW_3D"


def file_format(key, label, extension, importer, exporter):
    """(classes, menus) of one format: its two operators, a FileHandler and the File menu entries."""
    handler = type(
        f"MOCAP_FH_{key}",
        (bpy.types.FileHandler,),
        {
            "bl_idname": f"MOCAP_FH_{key}",
            "bl_label": f"{label} (Mocap I/O)",
            "bl_import_operator": importer.bl_idname,
            "bl_file_extensions": extension,
            "poll_drop": classmethod(_poll_drop),
        },
    )
    text = f"{label} (Mocap I/O) ({extension})"

    def import_menu(self, context):
        self.layout.operator(importer.bl_idname, text=text)

    def export_menu(self, context):
        self.layout.operator(exporter.bl_idname, text=text)

    return (
        (importer, exporter, handler),
        ((bpy.types.TOPBAR_MT_file_import, import_menu), (bpy.types.TOPBAR_MT_file_export, export_menu)),
    )
