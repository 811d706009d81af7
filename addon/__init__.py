"""The Blender layer: operators and menus that turn core models into Blender data and back.
Nothing here parses a file; nothing in core knows Blender.

Scripts call the plain functions behind the operators: `import_bvh`, `export_bvh`, `import_memg`,
`export_memg`, `import_famc`, `export_famc`, `import_asf`, `export_asf`, `import_htr`,
`export_htr`, `import_markers` and `export_markers` (C3D and TRC), `clean_markers` (fill or
filter imported markers), `retarget_armature` (see each for its options)."""

import bpy

from .from_blender.markers import export_markers
from .from_blender.mesh import export_famc, export_memg
from .operators import asf, bvh, c3d, cleanup, famc, htr, memg, retarget, trc
from .operators.asf import export_asf, import_asf
from .operators.bvh import export_bvh, import_bvh
from .operators.htr import export_htr, import_htr
from .to_blender.animated_mesh import import_famc
from .to_blender.cleanup import clean_markers
from .to_blender.ensemble import import_memg
from .to_blender.markers import import_markers
from .to_blender.retarget import retarget_armature

__all__ = [
    "clean_markers",
    "export_asf",
    "import_asf",
    "export_bvh",
    "export_famc",
    "export_htr",
    "export_markers",
    "export_memg",
    "import_bvh",
    "import_famc",
    "import_htr",
    "import_markers",
    "import_memg",
    "register",
    "retarget_armature",
    "unregister",
]
_MODULES = (bvh, asf, htr, memg, famc, c3d, trc, retarget, cleanup)


def register():
    for module in _MODULES:
        for cls in module.CLASSES:
            bpy.utils.register_class(cls)
        for owner, name, prop in getattr(module, "PROPERTIES", ()):
            setattr(owner, name, prop)
        for menu, function in module.MENUS:
            menu.append(function)


def unregister():
    for module in reversed(_MODULES):
        for menu, function in module.MENUS:
            menu.remove(function)
        for owner, name, _ in getattr(module, "PROPERTIES", ()):
            delattr(owner, name)
        for cls in reversed(module.CLASSES):
            bpy.utils.unregister_class(cls)
