"""FAMC import/export in Blender: the evaluated mesh equals the core's decoding; exports meet the
target error; failures leave nothing."""

import numpy as np
import pytest

from blender_scene import bpy, data_counts, evaluated_vertices, fresh_scene
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import export_famc, import_famc
from mocap_io.addon.to_blender import animated_mesh
from mocap_io.core.mesh import diagonal


@pytest.fixture()
def stream(tmp_path):
    core.write(two_bars(), tmp_path / "bars.famc", tolerance=1e-4)
    return tmp_path / "bars.famc", core.read(tmp_path / "bars.famc")


@pytest.mark.parametrize("mode", ["CACHE", "SHAPE_KEYS"])
def test_imported_mesh_plays_the_decoded_frames(stream, mode):
    path, decoded = stream
    fresh_scene()
    assert bpy.ops.import_mesh.famc(filepath=str(path), mode=mode) == {"FINISHED"}
    obj = bpy.data.objects["bars"]
    expected = decoded.positions()
    for frame in (0, 1, 17, decoded.frame_count - 1):
        np.testing.assert_allclose(evaluated_vertices(obj, 1 + frame), expected[frame], atol=1e-6 * diagonal(expected))
    assert {"left", "right"} <= set(obj.vertex_groups.keys())
    assert bpy.context.scene.render.fps == 24 and bpy.context.scene.frame_end == decoded.frame_count
    if mode == "CACHE":
        assert obj.modifiers[0].type == "MESH_CACHE" and (path.parent / "mocap_io_cache" / "bars.pc2").exists()
    else:
        assert len(obj.data.shape_keys.key_blocks) == 1 + decoded.frame_count


def test_a_user_cache_is_never_overwritten_and_importing_again_leaves_no_copies(stream):
    path, decoded = stream
    path.with_suffix(".pc2").write_bytes(b"not ours")
    for _ in range(2):  # as after an undo: the same object name again
        fresh_scene()
        obj, _ = import_famc(bpy.context, str(path))
    assert path.with_suffix(".pc2").read_bytes() == b"not ours"
    assert obj.modifiers[0].filepath == str(path.parent / "mocap_io_cache" / "bars.pc2")
    assert [p.name for p in (path.parent / "mocap_io_cache").iterdir()] == ["bars.pc2"]
    np.testing.assert_allclose(evaluated_vertices(obj, 3), decoded.positions(2), atol=1e-6)


def test_the_cache_goes_beside_a_saved_blend(stream, tmp_path):
    path, decoded = stream
    fresh_scene()
    (tmp_path / "scene").mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "scene" / "shot.blend"))
    try:
        obj, _ = import_famc(bpy.context, str(path))
        assert obj.modifiers[0].filepath == "//mocap_io_cache/shot_bars.pc2"
        assert (tmp_path / "scene" / "mocap_io_cache" / "shot_bars.pc2").exists()
        np.testing.assert_allclose(evaluated_vertices(obj, 5), decoded.positions(4), atol=1e-6)
    finally:
        fresh_scene()


def test_export_round_trip_meets_the_target_error(stream, tmp_path):
    path, decoded = stream
    fresh_scene()
    obj, _ = import_famc(bpy.context, str(path))
    shown = np.array([evaluated_vertices(obj, 1 + f) for f in range(decoded.frame_count)])
    for tolerance in (1e-2, 1e-4):
        written = export_famc(bpy.context, obj, str(tmp_path / "out.famc"), tolerance=tolerance)
        back = core.read(tmp_path / "out.famc")
        error = np.linalg.norm(back.positions() - shown, axis=-1).max()
        assert error <= tolerance * diagonal(shown) * (1 + 1e-6)
        assert written.frame_count == decoded.frame_count and written.max_error >= error * (1 - 1e-6)


def test_export_operator_passes_its_options_and_reports_the_rate(stream, tmp_path, capfd):
    path, decoded = stream
    fresh_scene()
    obj, _ = import_famc(bpy.context, str(path))
    bpy.context.view_layer.objects.active = obj
    out = tmp_path / "op.famc"
    capfd.readouterr()
    # use_scene_range=False, as scripts of earlier versions pass it: a custom range
    options = {"byte_order": "REFERENCE", "use_scene_range": False, "frame_start": 3, "frame_end": 12}
    assert bpy.ops.export_mesh.famc(filepath=str(out), tolerance=0.01, relative="ABSOLUTE", **options) == {"FINISHED"}
    assert out.read_bytes()[:4] == b"\xf0\x01\x00\x00" and out.with_suffix(".obj").exists()
    back = core.read(out)
    assert (
        back.frame_count == 10
        and np.linalg.norm(back.positions() - decoded.positions(slice(2, 12)), axis=-1).max() <= 0.01
    )
    reported = capfd.readouterr().out
    assert "Exported 10 frames at 24 fps of 49 vertices: " in reported and "bits per vertex per frame" in reported
    assert set(back.mesh.groups) == {"left", "right"}  # faces inside each vertex group


def test_points_without_faces_start_frame_and_a_single_frame(tmp_path):
    points = core.mesh.Mesh(np.eye(3) * [1, 2, 3], np.zeros(0, int), np.zeros(0, int))
    moving = np.stack([points.vertices + [0, 0, 0.1 * t] for t in range(4)])
    core.write(core.mesh.MeshAnimation(points, 30, moving), tmp_path / "points.famc", tolerance=1e-4)
    for mode in ("CACHE", "SHAPE_KEYS"):
        fresh_scene()
        obj, _ = import_famc(bpy.context, str(tmp_path / "points.famc"), mode=mode, frame_start=10)
        assert len(obj.data.vertices) == 3 and not len(obj.data.polygons)
        np.testing.assert_allclose(evaluated_vertices(obj, 12), moving[2], atol=1e-3)
        assert (bpy.context.scene.frame_start, bpy.context.scene.frame_end, bpy.context.scene.render.fps) == (
            10,
            13,
            30,
        )
    core.write(core.mesh.MeshAnimation(points, 30, moving[:1]), tmp_path / "one.famc")
    fresh_scene()
    bpy.context.scene.render.fps = 50
    import_famc(bpy.context, str(tmp_path / "one.famc"))
    assert bpy.context.scene.render.fps == 50  # one frame says nothing of a rate


@pytest.mark.parametrize("mode", ["CACHE", "SHAPE_KEYS"])
def test_a_failure_while_building_leaves_nothing(stream, mode, monkeypatch):
    path, _ = stream
    real = animated_mesh._decoded

    def failing(animation):
        blocks = real(animation)
        yield next(blocks)
        raise ValueError("a block that cannot be decoded")

    monkeypatch.setattr(animated_mesh, "_decoded", failing)
    fresh_scene()
    before = data_counts()
    with pytest.raises(ValueError, match="cannot be decoded"):
        import_famc(bpy.context, str(path), mode=mode, frame_start=5)
    assert data_counts() == before and not list(path.parent.glob("mocap_io_cache/*"))


def test_a_relative_obj_path_in_a_saved_blend(stream, tmp_path):
    path, decoded = stream
    (tmp_path / "meshes").mkdir()
    path.with_suffix(".obj").rename(tmp_path / "meshes" / "other.obj")
    fresh_scene()
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "shot.blend"))
    try:
        assert bpy.ops.import_mesh.famc(filepath=str(path), obj_path="//meshes/other.obj") == {"FINISHED"}
        np.testing.assert_allclose(evaluated_vertices(bpy.data.objects["bars"], 2), decoded.positions(1), atol=1e-6)
    finally:
        fresh_scene()


def test_a_corrupt_file_leaves_nothing(stream):
    path, _ = stream
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    fresh_scene()
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"bars\.famc, byte \d+"):
        bpy.ops.import_mesh.famc(filepath=str(path))
    assert data_counts() == before and not (path.parent / "mocap_io_cache").exists()


def test_file_handler_registered():
    fresh_scene()
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_FH_famc")
    assert handler is not None and handler.bl_file_extensions == ".famc"
