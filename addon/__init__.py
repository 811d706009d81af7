"""The Blender layer: operators and menus that turn core models into Blender data and back.
Nothing here parses a file; nothing in core knows Blender."""

import bpy

from . import bvh_ops, memg_ops

_MODULES = (bvh_ops, memg_ops)


def register():
    for module in _MODULES:
        for cls in module.CLASSES:
            bpy.utils.register_class(cls)
        for menu, function in module.MENUS:
            menu.append(function)


def unregister():
    for module in reversed(_MODULES):
        for menu, function in module.MENUS:
            menu.remove(function)
        for cls in reversed(module.CLASSES):
            bpy.utils.unregister_class(cls)
