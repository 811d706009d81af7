"""Blender meshes -> core: a mesh's topology (`mesh_from_blender`) and its evaluated animation
(`evaluated_animation`) encoded as a mesh ensemble (`export_memg`) or an MPEG-4 FAMC stream
(`export_famc`), which scripts can call too."""

import numpy as np

from ...core.formats.famc import write_famc
from ...core.formats.memg import write_memg
from ...core.mesh import Mesh, MeshAnimation
from ..common import timing
from ..common.progress import Progress, scene_frames


def export_memg(context, obj, path, *, tolerance=1e-3, relative=True, grouping="GROUPS", **frames):
    """Encode the evaluated mesh of `obj` (its take by default, see evaluated_animation; `frames`
    are its options) and write .memg + .obj; returns the encoded MeshAnimation.

    grouping  "GROUPS" (default, as core.write: one group per vertex group, the faces inside it;
              connected parts when the mesh has none) or "COMPONENTS" (one group per connected
              part); the lower-case values of earlier versions too
    """
    grouping = grouping.lower()
    if grouping not in ("groups", "components"):
        raise ValueError(f"grouping must be GROUPS or COMPONENTS, not {grouping.upper()!r}")
    dense = evaluated_animation(context, obj, **frames)
    if grouping == "groups":
        dense.mesh.groups = _face_groups(obj, dense.mesh)
    grouping = "groups" if dense.mesh.groups else "components"
    try:
        return write_memg(dense, path, tolerance=tolerance, relative=relative, grouping=grouping)
    except ValueError as error:
        if "outside every group" not in str(error):
            raise
        raise ValueError(
            f"{obj.name}: vertices in no vertex group move; add them to one, or export with Groups: Connected Parts"
        ) from None


def export_famc(context, obj, path, *, tolerance=1e-3, relative=True, byte_order="STANDARD", **options):
    """Encode the evaluated mesh of `obj` (its take by default, see evaluated_animation) as an
    MPEG-4 FAMC stream and write .famc + .obj (its groups: the faces inside each vertex group);
    returns what was written (see core.formats.famc.write_famc, which takes the other `options`;
    byte_order "STANDARD" or "REFERENCE", or the lower-case values of earlier versions)."""
    frames = {key: options.pop(key) for key in _FRAME_OPTIONS if key in options}
    dense = evaluated_animation(context, obj, **frames)
    dense.mesh.groups = _face_groups(obj, dense.mesh)
    progress = Progress(context, "Encoding FAMC")
    try:
        return write_famc(
            dense,
            path,
            tolerance=tolerance,
            relative=relative,
            byte_order=byte_order.lower(),
            progress=progress.show,
            **options,
        )
    finally:
        progress.close()


_FRAME_OPTIONS = ("frame_start", "frame_end", "frame_range", "frame_rate")


def evaluated_animation(context, obj, frame_start=None, frame_end=None, *, frame_range="TAKE", frame_rate="TAKE"):
    """The evaluated mesh of `obj` (modifiers, shape keys, armatures) as a dense MeshAnimation; the
    topology must not change. By default over its take: an imported file's frames at its rate
    (the object's record), else the scene's range and rate; see common.timing.export_frames."""
    frames, rate = timing.export_frames(
        context.scene, timing.recorded_take(obj), frame_range, frame_rate, frame_start, frame_end
    )
    topology = None

    def vertices(frame, data, _):
        nonlocal topology
        flat = np.empty(3 * len(data.vertices), dtype=np.float32)
        data.vertices.foreach_get("co", flat)
        if topology is None:
            topology = mesh_from_blender(data)
        elif len(flat) != 3 * len(topology.vertices):
            raise ValueError(
                f"the vertex count changes at frame {frame:g}: an animated mesh export needs fixed topology"
            )
        return flat.reshape(-1, 3).astype(float)

    positions = sample_meshes(context, obj, frames, vertices)
    assert topology is not None  # set by the first of at least one frame (export_frames)
    if not len(topology.vertices):
        raise ValueError(f"{obj.name!r} has no vertices to export")
    return MeshAnimation(topology, float(rate), np.array(positions))


def sample_meshes(context, obj, frames, read):
    """[read(frame, evaluated mesh, world matrix (4, 4)) for each scene frame] of `obj`, with
    progress shown; the scene's frame is restored after."""
    depsgraph = context.evaluated_depsgraph_get()
    samples = []
    for _, frame in scene_frames(context, frames, "Sampling mesh"):
        evaluated = obj.evaluated_get(depsgraph)
        data = evaluated.to_mesh()
        try:
            samples.append(read(frame, data, np.array(evaluated.matrix_world)))
        finally:
            evaluated.to_mesh_clear()
    return samples


def _face_groups(obj, mesh):
    """Faces whose corners all lie in a vertex group, per vertex group (for the .obj groups)."""
    members = np.zeros((len(obj.vertex_groups), len(mesh.vertices)), dtype=bool)  # one pass over the vertices
    for v in obj.data.vertices:
        members[[e.group for e in v.groups], v.index] = True
    groups, starts = {}, mesh.face_starts
    for group in obj.vertex_groups:
        corners = members[group.index][mesh.face_vertices]
        inside = np.logical_and.reduceat(corners, starts) if len(starts) else np.zeros(0, bool)
        if inside.any():
            groups[group.name] = np.flatnonzero(inside)
    return groups


def mesh_from_blender(data):
    """A core Mesh of a bpy Mesh's topology (positions as they are), uvs and materials."""
    count = len(data.vertices)
    vertices = np.empty(3 * count, dtype=np.float32)
    data.vertices.foreach_get("co", vertices)
    starts = np.empty(len(data.polygons), dtype=np.int32)
    sizes = np.empty(len(data.polygons), dtype=np.int32)
    data.polygons.foreach_get("loop_start", starts)
    data.polygons.foreach_get("loop_total", sizes)
    corners = np.empty(len(data.loops), dtype=np.int32)
    data.loops.foreach_get("vertex_index", corners)
    order = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, sizes)]) if len(starts) else corners
    uvs, face_uvs = None, None
    if data.uv_layers.active is not None:
        uv = np.empty(2 * len(data.loops), dtype=np.float32)
        data.uv_layers.active.data.foreach_get("uv", uv)
        uvs = uv.reshape(-1, 2)[order].astype(float)
        face_uvs = np.arange(len(order))
    materials = np.empty(len(data.polygons), dtype=np.int32)
    data.polygons.foreach_get("material_index", materials)
    names = [m.name if m else "" for m in data.materials]
    return Mesh(
        vertices.reshape(-1, 3),
        sizes,
        corners[order],
        uvs=uvs,
        face_uvs=face_uvs,
        face_materials=materials if names else None,
        materials=names,
    )
