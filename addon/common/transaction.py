"""All or nothing: an import that fails leaves no new data-block behind."""

import contextlib

import bpy

# removal order: users before the data they use
_COLLECTIONS = ("objects", "collections", "actions", "armatures", "meshes", "materials", "images")


@contextlib.contextmanager
def all_or_nothing(context):
    """Remove every data-block created inside the block if it raises, then re-raise."""
    before = {name: {block.as_pointer() for block in getattr(bpy.data, name)} for name in _COLLECTIONS}
    try:
        yield
    except BaseException:
        if context.object is not None and context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        for name in _COLLECTIONS:
            blocks = getattr(bpy.data, name)
            for block in [b for b in blocks if b.as_pointer() not in before[name]]:
                blocks.remove(block)
        raise
