"""Markers (C3D, TRC) -> Blender: per file, one empty per marker under a parent empty, or one
point-cloud mesh played from a .pc2 cache (`import_markers`, which scripts can call too).

Gaps (frames where a marker was not seen) stay gaps: a marker's location is keyed on the frames
where it was seen only, the key before a gap is constant (the marker holds still, no path is
invented across the gap) and, by default, its viewport visibility is keyed off over the gap. The
point cloud cannot leave a vertex out: a vertex holds its last seen position through a gap; its
record (file_record) names the file and the axes and scale it was converted with, so Fill Gaps can
read the file again.
"""

import contextlib
import os
from fractions import Fraction

import bmesh
import bpy
import numpy as np

from ... import core
from ...core.formats.pc2 import write_pc2
from ...core.frame_rate import standard_rate
from ..common import compat, file_record
from ..common.failures import InFile
from ..common.file_record import take_facts
from ..common.names import blender_names
from ..common.progress import run
from ..common.selection import select_only
from ..common.transaction import all_or_nothing
from ..common.units import LENGTHS, axis_matrix, length_unit
from .animated_mesh import blend_path, cache_path, new_cache
from .mesh import add_vertex_groups, float32_flat
from .motions import READING, frame_plan, read_takes, update_scene

# (forward, up) by extension: C3D labs are usually Z up (Blender's axes), TRC files Y up (OpenSim, Motion Analysis)
AXES = {".c3d": ("Y", "Z"), ".trc": ("-Z", "Y")}
_SINGLE = Fraction(1, 2**24)  # relative rounding of a single-precision number (C3D's POINT:RATE)
_CHUNK = 1 << 16  # frames converted at a time (the float64 intermediate stays small)


def import_markers(context, paths, **options):
    """Import C3D or TRC files (by extension); returns (objects, Messages): per file its parent
    empty, or its point-cloud mesh. All or nothing: on any error no new data-block (or cache) is
    left and the error propagates with its file as `import_file`. Options: see import_markers_steps."""
    return run(import_markers_steps(context, paths, **options), context, "Importing markers")


def import_markers_steps(context, paths, *, strict=False, **options):
    """`import_markers` as a generator of progress steps (see progress.py); returns its result.

    strict   C3D: refuse parameter sections whose pointers and sizes disagree, and files that end
             inside a frame (see docs/markers.md)
    options  those of build_markers
    """
    sources = [
        (path, lambda path=path: core.read(path, **({"strict": strict} if _is_c3d(path) else {}))) for path in paths
    ]
    takes, messages = yield from read_takes(sources)
    objects, notes = yield from build_markers(context, takes, **options)
    messages.notes += notes
    return objects, messages


def build_markers(
    context,
    takes,
    *,
    representation="EMPTIES",
    units="FILE",
    axis_forward=None,
    axis_up=None,
    frame_start=1,
    frame_rate="SNAP",
    update_frame_range=True,
    hide_gaps=True,
    marker_size=0.01,
):
    """Blender objects for `takes` [(path, Markers)]; a generator of progress steps that returns
    (objects, notes). All or nothing.

    representation        "EMPTIES" (an empty per marker, keyed, under a parent empty per file)
                          or "POINT_CLOUD" (a mesh with a vertex per marker, played by a Mesh Cache
                          modifier from a .pc2 (see animated_mesh.cache_path), a sphere instanced on each)
    units                 "FILE" (the file's unit: mm, cm, m or in; else mm, reported) or "MM",
                          "CM", "M", "IN" (or, as earlier versions took them, "mm", ...):
                          positions become metres
    axis_forward, axis_up the file's axes (None: the format's usual ones, see AXES)
    frame_start           scene frame of each file's first frame
    frame_rate            "SNAP" (the scene takes the first file's rate; a rate within single
                          precision of a standard rate is that rate: 59.94 stays 59.94), "EXACT"
                          (the rate as stored) or "KEEP" (the scene's rate; keys placed in time)
    hide_gaps             empties: key the viewport visibility off where a marker is unseen
                          (Blender deselects objects while they are hidden)
    marker_size           radius of a marker's sphere, in metres
    """
    scene = context.scene
    render_rate, keys_at, timings = frame_plan(scene, takes, _file_rate, frame_start, frame_rate)
    objects, made, messages, caches, last_frame = [], [], [], [], frame_start
    total, done = sum(m.marker_count for _, m in takes), 0
    with all_or_nothing(context), InFile() as current:
        for (path, markers), frames, (rate, step) in zip(takes, keys_at, timings):
            current.path = path
            name = os.path.splitext(os.path.basename(path))[0]
            scale, note = _metres_per_unit(markers.units, units)
            if note:
                messages.append(f"{name}: {note}")
            axes = file_axes(path, axis_forward, axis_up)
            convert = scale * axes
            if representation == "POINT_CLOUD":
                yield READING + (1 - READING) * done / max(total, 1), f"{name}: point cloud"
                obj, cache = _point_cloud(context, markers, name, convert, frames, path, marker_size)
                caches.append(cache)
                file_record.remember(
                    obj,
                    labels=markers.names,
                    source=os.path.abspath(path),
                    axes=axes.tolist(),
                    scale=scale,
                    **take_facts(frame_start, len(frames), rate, step),
                )
            else:
                obj = _parent(context, name, marker_size)
                file_record.remember(obj, **take_facts(frame_start, len(frames), rate, step))
                for m, label in enumerate(_empties(context, obj, markers, convert, frames, hide_gaps, marker_size)):
                    yield READING + (1 - READING) * (done + m) / max(total, 1), label
            objects.append(obj)
            made += [obj, *obj.children]
            done += markers.marker_count
            if len(frames):
                last_frame = max(last_frame, int(np.ceil(frames[-1])))
        select_only(context, made, objects[-1] if objects else None)
        written = []
        with contextlib.ExitStack() as folders:  # the caches last: nothing after them can fail
            try:
                for path, positions in caches:
                    folders.enter_context(new_cache(path))
                    write_pc2(path, positions)
                    written.append(path)
                    messages.append(f"cache written to {path}")
            except BaseException:  # a failure leaves no cache, nor a folder made for them
                for path in written:
                    os.remove(path)
                raise
        update_scene(scene, render_rate, (frame_start, last_frame) if update_frame_range and takes else None)
    return objects, messages


def _is_c3d(path):
    return os.fspath(path).lower().endswith(".c3d")


def file_axes(path, forward=None, up=None):
    """The axis matrix (file -> Blender) of a marker file: `forward` and `up`, each by default the
    usual one of its format (AXES, by the extension of `path`)."""
    usual = AXES.get(os.path.splitext(os.fspath(path))[1].lower(), AXES[".c3d"])
    return axis_matrix(forward or usual[0], up or usual[1])


def _file_rate(markers, exact=False):
    """The file's rate (a Fraction): as stored, or the standard rate (see core.frame_rate) that it
    rounds in single precision, as C3D stores it (TRC's text is as precise or more)."""
    rate = Fraction(markers.rate)
    if exact:
        return rate
    band = rate * _SINGLE
    return standard_rate(1 / rate, 1 / (rate + band), 1 / (rate - band)) or rate


def _metres_per_unit(file_units, units):
    """(metres per file unit, a message or None) for the choice `units` ("FILE" or a key of LENGTHS)."""
    if str(units).upper() != "FILE":
        return LENGTHS[length_unit(units)], None
    unit = file_units.strip().lower()
    if unit in LENGTHS:
        return LENGTHS[unit], None
    return LENGTHS["mm"], f"length unit {file_units!r} unknown: read as millimetres"


def _to_blender(positions, convert):
    """(F, M, 3) float32 Blender coordinates of file positions (NaN stays NaN), chunk by chunk."""
    out = np.empty(positions.shape, dtype=np.float32)
    with np.errstate(over="ignore"):  # beyond float32: refused by the caller
        for first in range(0, len(positions), _CHUNK):
            out[first : first + _CHUNK] = positions[first : first + _CHUNK].astype(float) @ convert.T
    return out


def _link(context, name, data=None):
    obj = bpy.data.objects.new(name, data)
    context.collection.objects.link(obj)
    return obj


def _parent(context, name, size):
    parent = _link(context, name)
    parent.empty_display_type = "ARROWS"
    parent.empty_display_size = 20 * size
    return parent


def _empties(context, parent, markers, convert, frames, hide_gaps, size):
    """An empty per marker under `parent`, keyed where seen; a generator of the names given."""
    seen_at = markers.valid
    for m, name in enumerate(blender_names(markers.names)):
        obj = _link(context, name)
        obj.empty_display_type, obj.empty_display_size, obj.parent = "SPHERE", size, parent
        file_record.remember(obj, label=markers.names[m], index=m)
        seen = np.flatnonzero(seen_at[:, m])
        hidden = ~seen_at[:, m]
        if not len(seen):  # never seen: nothing to key
            obj.hide_viewport = True
            yield name
            continue
        points = markers.positions[seen, m].astype(float) @ convert.T
        co, kinds = location_keys(frames, seen, points, name)
        _, curves = compat.new_action(obj, name)
        for i in range(3):
            compat.add_curve(curves, "location", i, "Object Transforms", co[i], kinds)
        obj.location = points[0].tolist()  # the first key's, as shown before any evaluation
        if hide_gaps and hidden.any():
            changes = np.flatnonzero(np.r_[True, hidden[1:] != hidden[:-1]])
            compat.add_keys(curves, "hide_viewport", 0, "Visibility", frames[changes], hidden[changes], "CONSTANT")
            obj.hide_viewport = bool(hidden[0])
        yield name


def location_keys(frames, seen, points, name):
    """(co, interpolation values) of the location keys of the marker empty `name` seen at the
    indices `seen` (sorted) of `frames`, at `points` (S, 3): co (3, 2S) as compat.key_points gives
    it, linear keys but constant before a gap (no path across one)."""
    co = compat.key_points(frames[seen], points, [f"{name}: location[{i}]" for i in range(3)])
    kinds = compat.interpolations(len(seen))
    kinds[np.flatnonzero(np.diff(seen) > 1)] = compat.INTERPOLATIONS["CONSTANT"]
    return co, kinds


def _held(valid):
    """(F, M) frame index each marker shows at each frame: the frame itself where seen, else the
    last seen before it (the first seen before that; 0 for a marker never seen)."""
    frames = np.arange(len(valid))[:, None]
    last = np.maximum.accumulate(np.where(valid, frames, -1), axis=0)
    return np.where(last < 0, valid.argmax(axis=0), last)


def cloud_positions(markers, convert):
    """(F, M, 3) float32 positions of a point cloud's cache: each vertex at its marker's file
    position times `convert` (file -> Blender), held through gaps (see _held; 0 where never seen).
    A ValueError for positions beyond float32."""
    held = _held(markers.valid)
    positions = _to_blender(markers.positions[held, np.arange(markers.marker_count)], convert)
    positions[np.isnan(positions)] = 0.0  # markers never seen
    float32_flat(positions.reshape(-1, 3), "position (frame x marker)")  # refuses beyond float32
    return positions


def _point_cloud(context, markers, name, convert, frames, path, size):
    """The mesh object (a vertex per marker, named by a vertex group, a sphere instanced on each)
    and (cache path, positions (F, M, 3) float32) for its .pc2, which the caller writes."""
    positions = cloud_positions(markers, convert)
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(markers.marker_count)
    mesh.vertices.foreach_set("co", positions[0].ravel() if len(positions) else np.zeros(3 * markers.marker_count))
    obj = _link(context, name, mesh)
    add_vertex_groups(obj, [(label, [m]) for m, label in enumerate(markers.names)])
    cache = cache_path(path, obj.name)
    modifier: bpy.types.MeshCacheModifier = obj.modifiers.new("Markers", "MESH_CACHE")  # pyright: ignore[reportAssignmentType]
    modifier.cache_format = "PC2"
    modifier.filepath = blend_path(cache)
    step = (frames[-1] - frames[0]) / (len(frames) - 1) if len(frames) > 1 else 1.0  # scene frames per file frame
    modifier.frame_scale = 1 / step
    modifier.frame_start = frames[0] / step if len(frames) else 0.0  # cache frame = scale x frame - start
    sphere = bpy.data.meshes.new(name + " marker")
    shape = bmesh.new()
    try:
        bmesh.ops.create_icosphere(shape, subdivisions=2, radius=size)
        shape.to_mesh(sphere)
    finally:
        shape.free()
    _link(context, name + " marker", sphere).parent = obj
    obj.instance_type = "VERTS"
    return obj, (cache, positions)
