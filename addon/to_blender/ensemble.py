"""Mesh ensembles (MeshAnimation) -> Blender: a shape-keyed mesh on a rig of group frames, or a
mesh played from a baked .pc2 cache (`import_memg`, which scripts can call too)."""

import os
from fractions import Fraction

import bpy
import numpy as np

from ...core import rotations
from ...core.formats.memg import read_memg
from ..common import compat, file_record
from ..common.failures import InFile
from ..common.file_record import take_facts
from ..common.messages import Messages
from ..common.progress import run
from ..common.selection import select_only
from ..common.transaction import all_or_nothing
from ..common.units import axis_matrix, scene_rate
from .animated_mesh import baked
from .mesh import add_vertex_groups, build_mesh, float32_flat
from .motions import update_scene


def import_memg(context, path, **options):
    """Import a mesh ensemble; returns (the mesh object, Messages). All or nothing.
    Options: see `import_memg_steps`."""
    return run(import_memg_steps(context, path, **options), context, "Importing mesh ensemble")


def import_memg_steps(
    context,
    path,
    *,
    mode="BASIS",
    obj_path="",
    layout="AUTO",
    axis_forward="-Z",
    axis_up="Y",
    frame_start=1,
):
    """`import_memg` as a generator of progress steps (see progress.py); returns its result.

    mode "BASIS": one shape key per basis vector with animated values and one bone per group
    carrying its rigid motion (exact and compact); "BAKED": a PC2 cache (see animated_mesh.cache_path), played
    by a Mesh Cache modifier. The mesh keeps the file's coordinates; the axis conversion is the
    object's (or armature's) transform. layout: the storage order of U and Q, "AUTO" (detected),
    "COLUMN" or "ROW" (or the lower-case values of earlier versions). The new objects are left
    selected, the mesh active (others deselected), with its frames and rate in its record
    (file_record) for export.
    """
    yield 0.0, f"reading {os.path.basename(path)}"
    messages = Messages()  # the reader's, then the import's own
    with messages.reading(), InFile(path):
        animation = read_memg(path, obj=obj_path or None, layout=layout.lower())
    swapped = " (byte-swapped file)" if animation.byte_swapped else ""  # pyright: ignore[reportAttributeAccessIssue] - read_memg's
    messages.details.append(f"{os.path.basename(path)}: U and Q read {animation.layout}-major{swapped}")  # pyright: ignore[reportAttributeAccessIssue]
    name = os.path.splitext(os.path.basename(path))[0]
    frames = frame_start + np.arange(animation.frame_count)
    axes = np.eye(4)
    axes[:3, :3] = axis_matrix(axis_forward, axis_up)
    render_rate = scene_rate(animation.fps)  # checked before anything is built
    with all_or_nothing(context), InFile(path):
        if mode == "BAKED":
            obj, cache = yield from baked(context, animation, path, name, frame_start)
            obj.matrix_world = axes.T.tolist()
            messages.notes.append(f"cache written to {cache}")
        else:
            obj = yield from _basis(context, animation, name, frames)
            obj.parent.matrix_world = axes.T.tolist()
        file_record.remember(obj, **take_facts(frame_start, animation.frame_count, Fraction(animation.fps)))
        select_only(context, [o for o in (obj.parent, obj) if o is not None], obj)
        update_scene(context.scene, render_rate, (frame_start, frame_start + max(animation.frame_count - 1, 0)))
    return obj, messages


def _link(context, name, data):
    obj = bpy.data.objects.new(name, data)
    context.collection.objects.link(obj)
    return obj


def _owners(animation):
    """Per group, the vertices it finally positions (a later group wins a shared vertex)."""
    owner = np.full(len(animation.mesh.vertices), -1)
    for g, group in enumerate(animation.groups):
        owner[group.vertices] = g
    return [np.flatnonzero(owner == g) for g in range(len(animation.groups))]


def _basis(context, animation, name, frames):
    """The mesh object (parented to its rig); a generator of progress steps, one per group."""
    mesh = animation.mesh
    owned = _owners(animation)
    rest = mesh.vertices.copy()
    for group in animation.groups:  # grouped vertices rest at their local mean pose
        rest[group.vertices] = group.mean
    obj = _link(context, name, build_mesh(mesh, name, rest))
    others = [n for n in mesh.groups if n not in {g.name for g in animation.groups}]
    # one name per group for its bone and its vertex group (the armature modifier pairs them by name)
    names = add_vertex_groups(
        obj, [(g.name, v) for g, v in zip(animation.groups, owned)] + [(n, mesh.group_vertices(n)) for n in others]
    )[: len(animation.groups)]
    armature = bpy.data.armatures.new(name + "_frames")
    rig = _link(context, name + "_frames", armature)
    context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        size = max(float(np.ptp(mesh.vertices, axis=0).max()) * 0.05, 1e-3) if len(mesh.vertices) else 0.1
        for bone_name in names:  # rest at the identity: the pose is the group's transform
            bone = armature.edit_bones.new(bone_name)
            bone.head, bone.tail, bone.roll = (0, 0, 0), (0, size, 0), 0.0
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    obj.parent = rig
    modifier: bpy.types.ArmatureModifier = obj.modifiers.new("Ensemble frames", "ARMATURE")  # pyright: ignore[reportAssignmentType]
    modifier.object = rig
    _, rig_curves = compat.new_action(rig, name + "_frames")
    obj.shape_key_add(name="Basis", from_mix=False)
    keyed = []
    for g, (group, bone_name) in enumerate(zip(animation.groups, names)):
        path = f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"]'
        rig.pose.bones[bone_name].rotation_mode = "QUATERNION"
        translation, rotation, scale = rotations.decompose_trs(animation.transforms[group.frame])
        values = {
            "location": translation,
            "rotation_quaternion": rotations.quat_continuity(rotations.matrix_to_quat(rotation)),
            "scale": scale,
        }
        for prop, table in values.items():
            for i in range(table.shape[1]):
                compat.add_keys(rig_curves, f"{path}.{prop}", i, bone_name, frames, table[:, i])
        local = np.zeros((len(mesh.vertices), 3))
        row_of = np.zeros(len(mesh.vertices), dtype=np.intp)
        row_of[group.vertices] = np.arange(len(group.vertices))  # a vertex listed twice: its last row
        rows = row_of[owned[g]]
        for i in range(group.rank):
            weights = group.coefficients[i]
            reach = float(np.abs(weights).max()) or 1.0  # key values stay within [-1, 1]
            local[:] = rest
            local[owned[g]] += reach * group.basis[i, rows]
            key = obj.shape_key_add(name=f"{bone_name}.{i}", from_mix=False)
            key.slider_min, key.slider_max = -1.0, 1.0
            key.data.foreach_set("co", float32_flat(local, f"shape key {key.name!r}"))
            keyed.append((key.name, weights / reach))
        yield 0.1 + 0.9 * (g + 1) / len(animation.groups), group.name
    if keyed:
        _, key_curves = compat.new_action(obj.data.shape_keys, name + "_weights")  # pyright: ignore[reportAttributeAccessIssue]
        for key_name, values in keyed:
            compat.add_keys(
                key_curves, f'key_blocks["{bpy.utils.escape_identifier(key_name)}"].value', 0, "Weights", frames, values
            )
    return obj
