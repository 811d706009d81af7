"""Mesh animations decoded frame by frame (MeshAnimation) -> Blender: a mesh played from a .pc2
cache by a Mesh Cache modifier, or one shape key per frame (`import_famc`, which scripts can
call too)."""

import contextlib
import itertools
import os
from fractions import Fraction

import bpy
import numpy as np

from ...core.formats.famc import read_famc
from ...core.formats.pc2 import pc2_blocks
from ..common import compat, file_record
from ..common.failures import InFile
from ..common.file_record import take_facts
from ..common.messages import Messages
from ..common.progress import run
from ..common.selection import select_only
from ..common.transaction import all_or_nothing
from ..common.units import axis_matrix, key_frames, scene_fps, scene_rate
from .mesh import add_vertex_groups, build_mesh, float32_flat
from .motions import update_scene

MODES = ("CACHE", "SHAPE_KEYS")
CACHE_FOLDER = "mocap_io_cache"  # the add-on's own folder of caches, beside the .blend
_CHUNK = 64  # frames decoded per progress step


def import_famc(context, path, **options):
    """Import an MPEG-4 FAMC stream (.famc with its .obj); returns (the mesh object, Messages).
    All or nothing. Options: see `import_famc_steps`."""
    return run(import_famc_steps(context, path, **options), context, "Importing FAMC")


def import_famc_steps(context, path, *, mode="CACHE", obj_path="", axis_forward="-Z", axis_up="Y", frame_start=1):
    """`import_famc` as a generator of progress steps (see progress.py); returns its result.

    mode "CACHE": the frames, decoded a block at a time, go to a .pc2 in CACHE_FOLDER beside the
    .blend (beside the .famc while the .blend is unsaved) named after the object, played by a Mesh
    Cache modifier; importing again overwrites only that file of the add-on's. "SHAPE_KEYS": one
    shape key per frame, keyed to blend linearly between neighbouring frames. The mesh keeps the
    file's coordinates; the axis conversion is the object's transform. A single frame leaves the
    scene's rate as it is (its time says nothing of a rate). The object is left selected and
    active (others deselected), with its frames and rate in its record (file_record) for export.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    yield 0.0, f"reading {os.path.basename(path)}"
    with InFile(path):
        animation = read_famc(path, obj=obj_path or None)
        count = animation.frame_count
        key_frames(frame_start, count, Fraction(1), Fraction(1))  # refuses frames Blender does not have
        render_rate = scene_rate(animation.fps) if count > 1 else None  # checked before anything is built
    name = os.path.splitext(os.path.basename(path))[0]
    axes = np.eye(4)
    axes[:3, :3] = axis_matrix(axis_forward, axis_up)
    notes = []
    with all_or_nothing(context), InFile(path):
        if mode == "CACHE":
            obj, cache = yield from baked(context, animation, path, name, frame_start)
            notes.append(f"cache written to {cache}")
        else:
            obj = yield from frame_keyed(context, animation.mesh, name, _decoded(animation), count, frame_start)
        obj.matrix_world = axes.T.tolist()
        rate = Fraction(animation.fps) if render_rate else scene_fps(context.scene)
        file_record.remember(obj, **take_facts(frame_start, count, rate))
        select_only(context, [obj])
        update_scene(context.scene, render_rate, (frame_start, frame_start + max(count - 1, 0)))
    return obj, Messages(notes=notes)


def _decoded(animation):
    """(frames decoded so far, float32 block (n, V, 3)) per block of _CHUNK frames."""
    for first in range(0, animation.frame_count, _CHUNK):
        with np.errstate(over="ignore"):  # beyond float32: refused as infinite where it is written
            block = animation.positions(slice(first, first + _CHUNK)).astype(np.float32)
        yield first + len(block), block


def cache_path(source, name):
    """The .pc2 of the object `name` (imported from the file `source`): in CACHE_FOLDER beside the
    .blend, prefixed by its name (beside `source` while the .blend is unsaved). Importing again, or
    after an undo, overwrites the add-on's own file, never one of the user's (the .pc2 a file was
    converted from, say). Written within `new_cache`, which makes the folder."""
    if bpy.data.filepath:
        folder, stem = bpy.path.abspath("//"), os.path.splitext(os.path.basename(bpy.data.filepath))[0] + "_"
    else:
        folder, stem = os.path.dirname(os.path.abspath(source)), ""
    return os.path.join(folder, CACHE_FOLDER, bpy.path.clean_name(stem + name) + ".pc2")


@contextlib.contextmanager
def new_cache(path):
    """Make the folder of the cache `path` for a block that writes it; if the block fails, a folder
    made for it is removed again while empty (a failed import leaves no folder; another cache keeps it)."""
    folder = os.path.dirname(path)
    made = not os.path.isdir(folder)
    os.makedirs(folder, exist_ok=True)
    try:
        yield
    except BaseException:
        if made:
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # fails unless empty
        raise


def blend_path(path):
    """`path` as a modifier stores it: relative to the .blend ("//...") once it is saved."""
    return bpy.path.relpath(path) if bpy.data.filepath else path


def _linked(context, mesh, name, vertices=None):
    obj = bpy.data.objects.new(name, build_mesh(mesh, name, vertices))
    context.collection.objects.link(obj)
    add_vertex_groups(obj, [(n, mesh.group_vertices(n)) for n in mesh.groups])
    return obj


def baked(context, animation, source, name, frame_start):
    """A generator of progress steps returning (a new object of the animation's mesh played by a
    Mesh Cache modifier from its first sample at scene frame `frame_start`, the cache's path): the
    frames decoded a block at a time into the .pc2 `cache_path(source, object name)`, which is
    replaced only once complete."""
    obj = _linked(context, animation.mesh, name)
    modifier: bpy.types.MeshCacheModifier = obj.modifiers.new("Mesh cache", "MESH_CACHE")  # pyright: ignore[reportAssignmentType]
    modifier.cache_format = "PC2"
    modifier.frame_start = frame_start
    cache, count = cache_path(source, obj.name), animation.frame_count
    with new_cache(cache), pc2_blocks(cache, count, len(animation.mesh.vertices)) as write:
        for done, block in _decoded(animation):
            write(block)
            yield 0.05 + 0.9 * done / count, f"frame {done} of {count}"
    modifier.filepath = blend_path(cache)
    return obj, cache


def frame_keyed(context, mesh, name, blocks, count, frame_start):
    """A generator of progress steps returning a new object of `mesh` at its first frame with one
    shape key per frame of `blocks` ((frames done, block (n, V, 3)) in order), each keyed 1 on its
    scene frame and 0 on the neighbouring ones (linear between)."""
    first = next(blocks, None)
    obj, names = _linked(context, mesh, name, None if first is None else first[1][0]), []
    obj.shape_key_add(name="Basis", from_mix=False)
    for done, block in itertools.chain([first] if first else [], blocks):
        for f, frame in enumerate(block, done - len(block)):
            key = obj.shape_key_add(name=f"frame {frame_start + f}", from_mix=False)
            key.data.foreach_set("co", float32_flat(frame, f"frame {f}: vertex"))
            names.append(key.name)
        yield 0.05 + 0.9 * done / count, f"frame {done} of {count}"
    _, curves = compat.new_action(obj.data.shape_keys, name + "_frames")  # pyright: ignore[reportAttributeAccessIssue]
    for f, key_name in enumerate(names):
        near = np.arange(max(f - 1, 0), min(f + 1, len(names) - 1) + 1)
        path = f'key_blocks["{bpy.utils.escape_identifier(key_name)}"].value'
        compat.add_keys(curves, path, 0, "Frames", frame_start + near, (near == f).astype(float))
    return obj
