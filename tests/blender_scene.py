"""Helpers for tests that run inside the bpy module: a fresh scene, the add-on, pose-bone heads."""

import numpy as np
import pytest

bpy = pytest.importorskip("bpy")

import mocap_io  # noqa: E402

mocap_io.register()  # once per process (this module is imported once): classes survive read_factory_settings


def fresh_scene():
    """An empty scene (the add-on stays registered)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    return bpy.context.scene


def armature_in_edit_mode(name):
    """A new armature object in an empty scene, linked, active and in edit mode: (data, object)."""
    fresh_scene()
    armature = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, armature)
    bpy.context.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    return armature, obj


def world_heads(obj, frame):
    """(J, 3) world-space head of every pose bone at `frame`, in pose-bone order, and the names."""
    bpy.context.scene.frame_set(frame)
    bones = obj.pose.bones
    flat = np.empty(3 * len(bones), dtype=np.float32)
    bones.foreach_get("head", flat)
    matrix = np.array(obj.matrix_world)
    heads = flat.reshape(-1, 3).astype(float) @ matrix[:3, :3].T + matrix[:3, 3]
    return heads, [b.name for b in bones]


def data_counts():
    """Names of every data-block in the collections an import may touch."""
    return {
        name: sorted(b.name for b in getattr(bpy.data, name))
        for name in ("objects", "armatures", "actions", "meshes", "materials", "collections")
    }


def evaluated_vertices(obj, frame):
    """(V, 3) vertices of the evaluated mesh (shape keys, modifiers) at `frame`, object space."""
    bpy.context.scene.frame_set(frame)
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    try:
        flat = np.empty(3 * len(mesh.vertices), dtype=np.float32)
        mesh.vertices.foreach_get("co", flat)
    finally:
        evaluated.to_mesh_clear()
    return flat.reshape(-1, 3).astype(float)
