"""Blender -> Markers: the world positions of empties, or of a mesh's vertices, over a frame range,
written to C3D or TRC (`export_markers`, which scripts can call too); the mirror of to_blender.markers."""

import math

import bpy
import numpy as np

from ... import core
from ...core.markers import Markers
from ..common import compat, file_record, timing
from ..common.progress import scene_frames
from ..common.units import LENGTHS, length_unit
from ..to_blender.markers import file_axes
from .mesh import sample_meshes

# what an empty's own keys may move without moving its origin (anything else: evaluate the scene)
_STILL_ORIGIN = {
    "location",
    "hide_viewport",
    "hide_render",
    "rotation_euler",
    "rotation_quaternion",
    "rotation_axis_angle",
    "scale",
    "delta_rotation_euler",
    "delta_rotation_quaternion",
    "delta_scale",
    "empty_display_size",
}


def export_markers(
    context,
    objects,
    path,
    *,
    frame_range="TAKE",
    frame_rate="TAKE",
    frame_start=None,
    frame_end=None,
    units="MM",
    axis_forward=None,
    axis_up=None,
):
    """Write the world positions of `objects` to a C3D or TRC file (by extension); returns the
    Markers written.

    objects  empties (one whose children are empties stands for them: an imported file's parent),
             or one mesh (its evaluated vertices; no gaps)
    frame_range, frame_rate, frame_start, frame_end  by default the objects' own take: an imported
             file's frames at its rate (the record of its parent or point cloud), else the frames
             the empties and their parents are keyed on, at the scene's rate; see
             common.timing.export_frames
    units    the file's length unit: "MM", "CM", "M", "IN" (or "mm", ...); axis_forward, axis_up
             its axes (None: the format's usual ones, see to_blender.markers.AXES)
    An empty is missing (a NaN gap) where it is hidden in viewports and, for an imported marker,
    where its location is unkeyed: before its first key, after its last, and from a constant key
    to the next (see to_blender.markers). Names: the file's labels for imported markers, else the
    objects' (vertex) names.
    """
    scene = context.scene
    meshes = [o for o in objects if o.type == "MESH"]
    if meshes and len(objects) > 1:
        raise ValueError("export either empties or one mesh")
    if meshes:
        owners = meshes
    else:
        empties = _marker_empties(objects)
        if not empties:
            raise ValueError("no empties to export: select the markers (or their parent) or a mesh")
        owners = list({o.parent.as_pointer(): o.parent for o in empties if o.parent}.values())
    take = next((t for t in map(timing.recorded_take, owners) if t is not None), None)
    if take is None and not meshes:  # a user's empties: the frames they, or what carries them, are keyed on
        span = timing.keyed_span({o.as_pointer(): o for e in empties for o in _lineage(e)}.values())
        take = timing.Take(*span) if span else None
    frames, rate = timing.export_frames(scene, take, frame_range, frame_rate, frame_start, frame_end)
    if meshes:
        names, world = _mesh_points(context, meshes[0], frames)
    else:
        names, world = _empty_points(context, empties, frames)
    unit = length_unit(units)
    with np.errstate(over="ignore"):  # beyond float32: refused by the writer as infinite
        positions = (world @ file_axes(path, axis_forward, axis_up) / LENGTHS[unit]).astype(np.float32)
    markers = Markers(names, positions, float(rate), units=unit)
    core.write(markers, path)
    return markers


def _lineage(obj):
    """`obj` and its parents, up to the root."""
    while obj is not None:
        yield obj
        obj = obj.parent


def _marker_empties(objects):
    """The empties to export, in the order given, a parent standing for its empty children (in
    the order of the file they came from)."""
    chosen = {}
    for obj in objects:
        if obj.type == "EMPTY":
            children = sorted((c for c in obj.children if c.type == "EMPTY"), key=file_order)
            for empty in children or [obj]:
                chosen.setdefault(empty.as_pointer(), empty)
    return list(chosen.values())


def file_order(obj):
    """Sort key of an imported marker empty: its place in its file (after those with one: any other)."""
    index = file_record.recall(obj).get("index")
    return (index if isinstance(index, int) else math.inf, obj.name)


def _mesh_points(context, obj, frames):
    """(names, world positions (F, V, 3)) of a mesh's evaluated vertices."""
    count = len(obj.data.vertices)

    def world(frame, data, matrix):
        if len(data.vertices) != count:
            raise ValueError(f"{obj.name}: the vertex count changes at frame {frame:g}")
        flat = np.empty(3 * count, dtype=np.float32)
        data.vertices.foreach_get("co", flat)
        return flat.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]

    positions = np.array(sample_meshes(context, obj, frames, world)).reshape(len(frames), count, 3)
    record = file_record.recall(obj)
    labels = record.get("labels")
    names = labels if isinstance(labels, list) and len(labels) == count else [f"point{i + 1}" for i in range(count)]
    return names, positions


def _empty_points(context, empties, frames):
    """(names, world positions (F, M, 3) with NaN gaps) of empties: from their keys where nothing
    else moves them, else by stepping the scene."""
    context.view_layer.update()  # matrix_world of an object moved since the last evaluation
    positions = np.empty((len(empties), len(frames), 3))  # marker-major while filled
    hidden = np.zeros((len(empties), len(frames)), dtype=bool)
    records = [file_record.recall(o) for o in empties]
    stepped = []
    for m, obj in enumerate(empties):
        curves = {(c.data_path, c.array_index): c for c in compat.action_fcurves(obj)}
        if "label" in records[m]:  # an imported marker: unkeyed spans are gaps
            hidden[m] = unkeyed_frames(curves.get(("location", 0)), frames)
        if not _keys_place(obj, curves):
            stepped.append(m)
            continue
        location = np.stack([compat.sample(curves.get(("location", i)), frames, obj.location[i]) for i in range(3)], 1)
        base = np.array(obj.parent.matrix_world) @ np.array(obj.matrix_parent_inverse) if obj.parent else np.eye(4)
        positions[m] = (location + np.array(obj.delta_location)) @ base[:3, :3].T + base[:3, 3]
        hidden[m] |= compat.sample(curves.get(("hide_viewport", 0)), frames, obj.hide_viewport) > 0.5
    if stepped:
        moved, shown = _stepped(context, [empties[m] for m in stepped], frames)
        positions[stepped] = moved
        hidden[stepped] |= ~shown
    positions[hidden] = np.nan
    names = [str(r.get("label", o.name)) for r, o in zip(records, empties)]
    return names, positions.swapaxes(0, 1)


def _keys_place(obj, curves):
    """Whether the keys of `obj` alone place its origin: no constraints, drivers or NLA, keys of
    _STILL_ORIGIN only, and a parent (an object, not a bone or vertices) that never moves."""
    animation = obj.animation_data
    if animation is not None and (len(animation.drivers) or len(animation.nla_tracks)):
        return False
    if obj.constraints or any(path not in _STILL_ORIGIN for path, _ in curves):
        return False
    while obj.parent is not None:
        if obj.parent_type != "OBJECT":
            return False
        obj = obj.parent
        animation = obj.animation_data
        if obj.constraints or (
            animation is not None and (animation.action or len(animation.drivers) or len(animation.nla_tracks))
        ):
            return False
    return True


def _stepped(context, empties, frames):
    """World positions (M, F, 3) and visibility (M, F) of empties, stepping the scene frame by frame
    (all objects' matrices and flags read in bulk each frame)."""
    objects = bpy.data.objects
    index = np.array([objects.find(obj.name) for obj in empties], dtype=np.intp)
    matrices = np.empty(16 * len(objects), dtype=np.float32)
    hidden = np.empty(len(objects), dtype=bool)
    positions = np.empty((len(frames), len(empties), 3))
    shown = np.empty((len(frames), len(empties)), dtype=bool)
    for f, _ in scene_frames(context, frames, "Sampling the markers"):
        objects.foreach_get("matrix_world", matrices)
        objects.foreach_get("hide_viewport", hidden)
        positions[f] = matrices.reshape(-1, 4, 4)[index, 3, :3]  # column-major: the translation is row 3
        shown[f] = ~hidden[index]
    return positions.swapaxes(0, 1), shown.T


def unkeyed_frames(curve, frames):
    """(F,) whether each frame lies where an imported marker's location is unkeyed: before its
    first key, after its last, or after a constant key and before the next."""
    if curve is None or not len(curve.keyframe_points):
        return np.zeros(len(frames), dtype=bool)
    keys, _, kinds = compat.key_arrays(curve)
    before = np.searchsorted(keys, frames, side="right") - 1
    at = np.clip(before, 0, None)
    held = (before < len(keys) - 1) & (kinds[at] == compat.INTERPOLATIONS["CONSTANT"]) & (frames > keys[at])
    return (frames < keys[0]) | (frames > keys[-1]) | held
