"""Build Blender meshes (topology, uvs, materials, vertex groups) from a core Mesh."""

import bpy
import numpy as np

from ...core.errors import first_nonfinite
from ..common.names import blender_names


def build_mesh(mesh, name, vertices=None):
    """A new bpy.types.Mesh with the topology, uvs, normals, materials, smoothing and colours of a
    core Mesh (vertex positions from `vertices` if given)."""
    positions = float32_flat(mesh.vertices if vertices is None else vertices, "vertex")
    uvs = float32_flat(mesh.uvs, "uv")
    normals = float32_flat(mesh.normals, "normal")
    colours = (
        None
        if mesh.colours is None
        else float32_flat(np.hstack([mesh.colours, np.ones((len(mesh.colours), 1))]), "colour")
    )
    data = bpy.data.meshes.new(name)
    data.vertices.add(len(positions) // 3)
    data.vertices.foreach_set("co", positions)
    data.loops.add(len(mesh.face_vertices))
    data.loops.foreach_set("vertex_index", mesh.face_vertices.astype(np.int32))
    data.polygons.add(len(mesh.face_sizes))
    data.polygons.foreach_set("loop_start", mesh.face_starts.astype(np.int32))
    data.polygons.foreach_set("use_smooth", mesh.face_smooth > 0)
    if mesh.face_uvs is not None and len(mesh.uvs):
        layer = data.uv_layers.new(name="UVMap")
        uv = uvs.reshape(-1, 2)[np.maximum(mesh.face_uvs, 0)]
        uv[mesh.face_uvs < 0] = 0.0
        layer.data.foreach_set("uv", uv.ravel())
    for material in mesh.materials:
        data.materials.append(bpy.data.materials.get(material) or bpy.data.materials.new(material))
    if mesh.materials:
        data.polygons.foreach_set("material_index", np.maximum(mesh.face_materials, 0).astype(np.int32))
    if colours is not None:
        data.color_attributes.new("Col", "FLOAT_COLOR", "POINT").data.foreach_set("color", colours)  # pyright: ignore[reportAttributeAccessIssue]
    data.update()
    if mesh.face_normals is not None and len(mesh.normals):
        data.normals_split_custom_set(normals.reshape(-1, 3)[np.maximum(mesh.face_normals, 0)].tolist())
    data.validate(clean_customdata=False)
    return data


def float32_flat(values, what):
    """`values` as flat float32 for foreach_set; ValueError naming `what` and the row when one is
    not finite in float32 (NaN, infinity, beyond 3.4e38): nothing non-finite reaches Blender."""
    with np.errstate(over="ignore"):
        flat = np.asarray(values, dtype=np.float32)
    bad = first_nonfinite(flat)
    if bad is not None:
        raise ValueError(f"{what} {bad[0]}: {np.asarray(values)[bad[0]]} is beyond Blender's float range")
    return flat.ravel()


def add_vertex_groups(obj, groups):
    """A vertex group per (name, vertex indices), weight 1; returns the names given (names from
    names.blender_names, which Blender keeps as they are)."""
    names = blender_names([name for name, _ in groups])
    for name, (_, vertices) in zip(names, groups):
        obj.vertex_groups.new(name=name).add(np.asarray(vertices).tolist(), 1.0, "REPLACE")
    return names
