"""Mesh animations decoded frame by frame (MeshAnimation) -> Blender: a mesh played from a .pc2
cache by a Mesh Cache modifier, or one shape key per frame (`import_famc`, which scripts can
call too)."""

import os

import bpy
import numpy as np

from ... import core
from ...core.formats.pc2 import write_pc2
from ..common import compat
from ..common.failures import InFile
from ..common.messages import Messages
from ..common.progress import run
from ..common.transaction import all_or_nothing
from ..common.units import axis_matrix, scene_rate
from .mesh import add_vertex_groups, build_mesh, float32_flat
from .motions import update_scene

_CHUNK = 64  # frames decoded per progress step


def import_famc(context, path, **options):
    """Import an MPEG-4 FAMC stream (.famc with its .obj); returns (the mesh object, Messages).
    All or nothing. Options: see `import_famc_steps`."""
    return run(import_famc_steps(context, path, **options), context, "Importing FAMC")


def import_famc_steps(context, path, *, mode="CACHE", obj_path="", axis_forward="-Z", axis_up="Y", frame_start=1):
    """`import_famc` as a generator of progress steps (see progress.py); returns its result.

    mode "CACHE": the decoded frames go to a .pc2 cache beside the .blend (beside the .famc while
    the .blend is unsaved), played by a Mesh Cache modifier; "SHAPE_KEYS": one shape key per frame,
    keyed to blend linearly between neighbouring frames. The mesh keeps the file's coordinates;
    the axis conversion is the object's transform.
    """
    yield 0.0, f"reading {os.path.basename(path)}"
    with InFile(path):
        animation = core.read(path, obj=obj_path or None)
        render_rate = scene_rate(animation.fps)  # checked before anything is built
        positions = np.empty((animation.frame_count,) + animation.mesh.vertices.shape, dtype=np.float32)
        for start in range(0, animation.frame_count, _CHUNK):
            yield 0.8 * start / animation.frame_count, f"decoding frame {start}"
            positions[start : start + _CHUNK] = animation.positions(slice(start, start + _CHUNK))
    name = os.path.splitext(os.path.basename(path))[0]
    axes = np.eye(4)
    axes[:3, :3] = axis_matrix(axis_forward, axis_up)
    messages = []
    with all_or_nothing(context), InFile(path):
        yield 0.8, "building the mesh"
        if mode == "CACHE":
            obj = cache_played(context, animation.mesh, name, frame_start)
            cache = _cache_path(path, obj.name)
            write_pc2(cache, positions)  # last: a failure above leaves no file behind
            obj.modifiers[0].filepath = bpy.path.relpath(cache) if bpy.data.filepath else cache  # pyright: ignore[reportAttributeAccessIssue]
            messages.append(f"cache written to {cache}")
        else:
            obj = frame_keyed(context, animation.mesh, name, positions, frame_start)
        obj.matrix_world = axes.T.tolist()
        update_scene(context.scene, render_rate, (frame_start, frame_start + max(animation.frame_count - 1, 0)))
    return obj, Messages(notes=messages)


def _cache_path(source, name):
    """A .pc2 beside the .blend (beside `source` while the .blend is unsaved) named after `name` and
    not yet there: an existing cache (the one the stream was encoded from, say) is never overwritten."""
    folder = bpy.path.abspath("//") if bpy.data.filepath else os.path.dirname(os.path.abspath(source))
    base = os.path.join(folder, bpy.path.clean_name(name))
    path, number = base + ".pc2", 0
    while os.path.exists(path):
        number += 1
        path = f"{base}_{number}.pc2"
    return path


def _linked(context, mesh, name, vertices=None):
    obj = bpy.data.objects.new(name, build_mesh(mesh, name, vertices))
    context.collection.objects.link(obj)
    add_vertex_groups(obj, [(n, mesh.group_vertices(n)) for n in mesh.groups])
    return obj


def cache_played(context, mesh, name, frame_start, cache=""):
    """A new object of the core Mesh `mesh` whose Mesh Cache modifier plays the .pc2 `cache`
    (its first sample at scene frame `frame_start`)."""
    obj = _linked(context, mesh, name)
    modifier: bpy.types.MeshCacheModifier = obj.modifiers.new("Mesh cache", "MESH_CACHE")  # pyright: ignore[reportAssignmentType]
    modifier.cache_format = "PC2"
    modifier.filepath = cache
    modifier.frame_start = frame_start
    return obj


def frame_keyed(context, mesh, name, positions, frame_start):
    """A new object of `mesh` at its first frame with one shape key per frame of `positions`
    (F, V, 3), each keyed 1 on its scene frame and 0 on the neighbouring ones (linear between)."""
    obj = _linked(context, mesh, name, positions[0] if len(positions) else None)
    obj.shape_key_add(name="Basis", from_mix=False)
    names = []
    for f, frame in enumerate(positions):
        key = obj.shape_key_add(name=f"frame {frame_start + f}", from_mix=False)
        key.data.foreach_set("co", float32_flat(frame, f"frame {f}: vertex"))
        names.append(key.name)
    _, curves = compat.new_action(obj.data.shape_keys, name + "_frames")  # pyright: ignore[reportAttributeAccessIssue]
    last = len(positions) - 1
    for f, key_name in enumerate(names):
        near = np.arange(max(f - 1, 0), min(f + 1, last) + 1)
        path = f'key_blocks["{bpy.utils.escape_identifier(key_name)}"].value'
        compat.add_keys(curves, path, 0, "Frames", frame_start + near, (near == f).astype(float))
    return obj
