"""Helpers for tests that run inside the bpy module: a fresh scene, the add-on, pose-bone heads,
failed imports and the Blender-side fuzz."""

import numpy as np
import pytest

import fuzz_cases

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


def assert_heads_match_core(obj, motion, frames, atol, scale=1.0):
    """Pose-bone heads of `obj` at the motion frames `frames` (scene frame 1 + f) equal the core's
    FK of `motion` times `scale` in Blender axes (the default conversion: -Z forward, Y up)."""
    from mocap_io.addon.common.units import axis_matrix

    expected = scale * motion.world_positions() @ axis_matrix("-Z", "Y").T
    for frame in frames:
        heads, names = world_heads(obj, 1 + frame)
        np.testing.assert_allclose(heads, expected[frame][[motion.skeleton.index(n) for n in names]], atol=atol)


def assert_same_heads(ours, theirs, frames, atol):
    """Pose-bone heads of two armatures with the same bone names agree at the scene frames `frames`."""
    for frame in frames:
        a, names_a = world_heads(ours, frame)
        b, names_b = world_heads(theirs, frame)
        np.testing.assert_allclose(a, b[[names_b.index(n) for n in names_a]], atol=atol)


def data_counts():
    """Names of every data-block in the collections an import may touch."""
    return {
        name: sorted(b.name for b in getattr(bpy.data, name))
        for name in ("objects", "armatures", "actions", "meshes", "materials", "collections")
    }


def failed_import(operator, **options):
    """The one-line report of an import that must fail (from an empty scene); checks that it left
    nothing behind."""
    fresh_scene()
    before = data_counts()
    with pytest.raises(RuntimeError) as info:
        operator(**options)
    assert data_counts() == before
    text = str(info.value)
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1
    return text


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


def mutants_import_or_fail_cleanly(folder, fmt, import_file, skip=()):
    """A Blender-side fuzz: 36 mutants of `fmt` (tests/fuzz_cases.py; kinds in `skip` left out)
    written to `folder`, each through `import_file(path, case)` from an empty scene: imported, or
    refused as one line naming the file (no traceback) that leaves nothing behind. Both happen."""
    sources = fuzz_cases.seeds(fmt)
    outcomes = {"imported": 0, "refused": 0}
    for case in range(36):
        _, files, target = sources[case % len(sources)]
        files, kind = fuzz_cases.mutant(files, target, fmt, case)
        if kind in skip:
            continue
        for name, data in files.items():
            fuzz_cases.write_entry(folder / name, data)
        fresh_scene()
        before = data_counts()
        try:
            import_file(folder / target, case)
            outcomes["imported"] += 1
        except RuntimeError as error:
            text = str(error)
            assert "Traceback" not in text and str(folder) in text, (case, kind, text)
            assert len(text.strip().splitlines()) == 1 and "\x00" not in text, (case, kind, text)
            assert data_counts() == before, (case, kind)
            outcomes["refused"] += 1
    print(fmt, outcomes)
    assert outcomes["imported"] and outcomes["refused"]
