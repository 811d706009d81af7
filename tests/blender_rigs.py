"""Blender's rigs as core Skeletons, for measuring retargets onto them without baking (the core
retargets onto the Skeleton that the add-on reads of the armature, as addon/to_blender/retarget.py does).

Blender's rigs stand Z up, facing -Y; the corpus takes are Y up, facing +Z. The rigs are read in
the takes' axes: `armature_skeleton(obj, Y_UP, 1.0)` with world = Y_UP @ file, so a skeleton comes
back Y up, facing +Z, left at +X, in metres, and the takes need no turning.

Needs the bpy module. Each function starts from an empty scene.
"""

import bpy
import numpy as np

from mocap_io.addon.from_blender.armature import armature_skeleton
from mocap_io.core import rotations

Y_UP = rotations.axis_rotation("X", np.pi / 2)  # Y up, +Z forward (file) to Z up, -Y forward (Blender)

# CesiumMan's joints by role (find_roles reads its names as twist segments and its legs as arms):


def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def rigify_metarig():
    """Blender's human metarig (Rigify, enabled here) in an empty scene: the armature object.
    RuntimeError when this Blender has no Rigify."""
    import addon_utils

    empty_scene()
    addon_utils.enable("rigify", default_set=True)
    if not hasattr(bpy.ops.object, "armature_human_metarig_add"):
        raise RuntimeError("no Rigify in this Blender")
    bpy.ops.object.armature_human_metarig_add()
    bpy.ops.object.mode_set(mode="OBJECT")
    return bpy.context.active_object


def rigify_metarig_skeleton():
    """The metarig's rest pose as a Skeleton (Y up, metres; 159 bones with the face's)."""
    return armature_skeleton(rigify_metarig(), Y_UP, 1.0)


def gltf_armature(path):
    """The armature object of a glTF file imported (Blender's importer, defaults) into an empty scene."""
    empty_scene()
    bpy.ops.import_scene.gltf(filepath=str(path))
    (armature,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    return armature


def gltf_skeleton(path):
    """The rest pose of a glTF file's armature as a Skeleton (Y up, metres; the object's own
    transform included, as the importer sets it)."""
    return armature_skeleton(gltf_armature(path), Y_UP, 1.0)


def cesiumman_skeleton(path):
    """Khronos's CesiumMan (the corpus .glb) as a Skeleton, without End Sites: the importer's leaf
    bones point sideways (its default bone heuristic), so their tails are no points of the body
    (the toe bones' would sit 7 cm beside the feet)."""
    skeleton = gltf_skeleton(path)
    skeleton.end_site_parents, skeleton.end_site_offsets = np.zeros(0, dtype=np.intp), np.zeros((0, 3))
    return skeleton


def roles_by_name(skeleton, roles):
    """{role: joint index or list} from {role: joint name or list of names}."""
    return {r: [skeleton.index(n) for n in v] if isinstance(v, list) else skeleton.index(v) for r, v in roles.items()}
