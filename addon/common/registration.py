"""What every file format registers: menu entries, drag-and-drop on the 3D viewport, and the
invoke that lets a dropped file skip the file browser."""

import os

import bpy
from bpy.props import CollectionProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from .progress import SteppedImport


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

    def steps(self, context):
        ignore = ("filepath", "files", "directory", "filter_glob", "check_existing", "interactive")
        return self.import_steps(context, self.paths(), **self.as_keywords(ignore=ignore))  # pyright: ignore[reportAttributeAccessIssue]


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
