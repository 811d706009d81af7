"""Mesh-ensemble import/export in Blender: the evaluated mesh equals the core's decoding."""

import numpy as np
import pytest

from blender_scene import bpy, data_counts, evaluated_vertices, fresh_scene
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import export_memg, import_memg
from mocap_io.core.mesh import diagonal


@pytest.fixture()
def ensemble(tmp_path):
    animation = two_bars()
    core.write(animation, tmp_path / "bars.memg")
    return tmp_path / "bars.memg", animation


@pytest.mark.parametrize("mode", ["BASIS", "BAKED"])
def test_imported_mesh_plays_the_decoded_animation(ensemble, mode):
    path, animation = ensemble
    fresh_scene()
    assert bpy.ops.import_mesh.memg(filepath=str(path), mode=mode) == {"FINISHED"}
    obj = bpy.data.objects["bars"]
    expected = animation.positions()
    for frame in (0, 1, 17, animation.frame_count - 1):
        np.testing.assert_allclose(evaluated_vertices(obj, 1 + frame), expected[frame], atol=1e-5 * diagonal(expected))
    assert {"left", "right"} <= set(obj.vertex_groups.keys())
    assert bpy.context.scene.render.fps == 24 and bpy.context.scene.frame_end == animation.frame_count
    if mode == "BASIS":  # compact: a key per basis vector, not per frame
        assert len(obj.data.shape_keys.key_blocks) == 1 + 4
        assert all(-1 <= k.slider_min and k.slider_max <= 1 for k in obj.data.shape_keys.key_blocks[1:])
        assert [b.name for b in obj.parent.data.bones] == ["left", "right"]
    else:
        assert obj.modifiers[0].type == "MESH_CACHE" and (path.parent / "mocap_io_cache" / "bars.pc2").exists()


def test_export_round_trip_meets_the_tolerance(ensemble, tmp_path):
    path, animation = ensemble
    fresh_scene()
    obj, _ = import_memg(bpy.context, str(path))
    shown = np.array([evaluated_vertices(obj, 1 + f) for f in range(animation.frame_count)])
    for tolerance in (1e-3, 1e-5):
        encoded = export_memg(bpy.context, obj, str(tmp_path / "out.memg"), tolerance=tolerance)
        back = core.read(tmp_path / "out.memg")
        error = np.linalg.norm(back.positions() - shown, axis=-1).max()
        assert error <= tolerance * diagonal(shown) * (1 + 1e-6)
        assert encoded.frame_count == animation.frame_count


def test_export_of_a_shape_key_animation_by_vertex_groups(tmp_path):
    fresh_scene()
    bpy.ops.mesh.primitive_uv_sphere_add(segments=16, ring_count=8)
    sphere = bpy.context.object
    sphere.vertex_groups.new(name="all").add(list(range(len(sphere.data.vertices))), 1.0, "REPLACE")
    sphere.shape_key_add(name="Basis")
    key = sphere.shape_key_add(name="squash")
    flat = np.empty(3 * len(key.data), dtype=np.float32)
    key.data.foreach_get("co", flat)
    flat[2::3] *= 0.3
    key.data.foreach_set("co", flat)
    for frame, value in ((1, 0.0), (10, 1.0), (20, 0.2)):
        key.value = value
        key.keyframe_insert("value", frame=frame)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
    export_memg(bpy.context, sphere, str(tmp_path / "sphere.memg"), tolerance=1e-4, grouping="groups")
    back = core.read(tmp_path / "sphere.memg")
    assert [g.name for g in back.groups] == ["all"]
    shown = np.array([evaluated_vertices(sphere, f) for f in range(1, 21)])
    assert np.linalg.norm(back.positions() - shown, axis=-1).max() <= 1e-4 * diagonal(shown) * (1 + 1e-6)


def test_a_corrupt_file_leaves_nothing(ensemble):
    path, _ = ensemble
    data = path.read_bytes()
    path.write_bytes(data[:-100])
    fresh_scene()
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"bars\.memg, byte \d+: Q of group 'right'"):
        bpy.ops.import_mesh.memg(filepath=str(path))
    assert data_counts() == before


def test_file_handler_registered():
    fresh_scene()
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_FH_memg")
    assert handler is not None and handler.bl_file_extensions == ".memg"


@pytest.mark.parametrize(
    "name, tolerance",
    [("khronos-cesiumman/CesiumMan.glb", 1e-3), ("khronos-animatedmorphcube/AnimatedMorphCube.glb", 1e-3)],
)
def test_real_skinned_and_morphing_meshes_round_trip(name, tolerance, tmp_path):
    """Blender's glTF importer evaluates real animation (skinning, morph targets); our export
    reproduces what Blender shows within the tolerance."""
    from corpus_files import CORPUS

    path = CORPUS / "mesh" / name
    if not path.exists():
        pytest.skip("no corpus")
    fresh_scene()
    bpy.ops.import_scene.gltf(filepath=str(path))
    obj = max((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: len(o.data.vertices))
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 40
    encoded = export_memg(bpy.context, obj, str(tmp_path / "real.memg"), tolerance=tolerance)
    back = core.read(tmp_path / "real.memg")
    shown = np.array([evaluated_vertices(obj, f) for f in range(1, 41)])
    assert np.linalg.norm(back.positions() - shown, axis=-1).max() <= tolerance * diagonal(shown) * (1 + 1e-6)
    assert np.ptp(shown, axis=0).max() > 0  # it really moves
    assert encoded.max_error <= tolerance * diagonal(shown)


def test_uvs_normals_materials_and_groups_are_carried_over(tmp_path):
    obj_text = (
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n"
        "g plate\nusemtl steel\ns 1\nf 1/1/1 2/2/1 3/3/1 4/4/1\n"
    )
    (tmp_path / "plate.obj").write_text(obj_text)
    mesh = core.read(tmp_path / "plate.obj")
    moving = np.stack([mesh.vertices + [0, 0, 0.1 * t] for t in range(5)])
    core.write(core.mesh.MeshAnimation(mesh, 25, moving), tmp_path / "plate.memg")
    for mode in ("BASIS", "BAKED"):
        fresh_scene()
        obj, _ = import_memg(bpy.context, str(tmp_path / "plate.memg"), mode=mode)
        uv = np.empty(8, dtype=np.float32)
        obj.data.uv_layers.active.data.foreach_get("uv", uv)
        np.testing.assert_allclose(uv.reshape(4, 2), mesh.uvs)
        assert [m.name for m in obj.data.materials] == ["steel"]
        assert obj.data.polygons[0].use_smooth and "plate" in obj.vertex_groups
        np.testing.assert_allclose(evaluated_vertices(obj, 5), moving[4], atol=1e-6)
