"""FAMC import/export in Blender: the evaluated mesh equals the core's decoding; exports meet the
target error; failures leave nothing."""

import numpy as np
import pytest

from blender_scene import bpy, data_counts, evaluated_vertices, fresh_scene
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import export_famc, import_famc


def diagonal(positions):
    return np.linalg.norm(np.ptp(positions.reshape(-1, 3), axis=0))


@pytest.fixture()
def stream(tmp_path):
    dense = core.mesh.MeshAnimation(two_bars().mesh, 24, two_bars().positions())
    core.write(dense, tmp_path / "bars.famc", tolerance=1e-4)
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
        assert obj.modifiers[0].type == "MESH_CACHE" and path.with_suffix(".pc2").exists()
    else:
        assert len(obj.data.shape_keys.key_blocks) == 1 + decoded.frame_count


def test_an_existing_cache_is_never_overwritten(stream):
    path, decoded = stream
    path.with_suffix(".pc2").write_bytes(b"not ours")
    fresh_scene()
    obj, _ = import_famc(bpy.context, str(path))
    assert path.with_suffix(".pc2").read_bytes() == b"not ours"
    assert obj.modifiers[0].filepath == str(path.parent / "bars_1.pc2")
    np.testing.assert_allclose(evaluated_vertices(obj, 3), decoded.positions(2), atol=1e-6)


def test_the_cache_goes_beside_a_saved_blend(stream, tmp_path):
    path, decoded = stream
    fresh_scene()
    (tmp_path / "scene").mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "scene" / "shot.blend"))
    try:
        obj, _ = import_famc(bpy.context, str(path))
        assert obj.modifiers[0].filepath == "//bars.pc2" and (tmp_path / "scene" / "bars.pc2").exists()
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


def test_export_operator_reports_the_rate(stream, tmp_path):
    path, _ = stream
    fresh_scene()
    obj, _ = import_famc(bpy.context, str(path))
    bpy.context.view_layer.objects.active = obj
    out = tmp_path / "op.famc"
    assert bpy.ops.export_mesh.famc(filepath=str(out), byte_order="reference") == {"FINISHED"}
    assert out.read_bytes()[:4] == b"\xf0\x01\x00\x00" and out.with_suffix(".obj").exists()


def test_a_corrupt_file_leaves_nothing(stream):
    path, _ = stream
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    fresh_scene()
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"bars\.famc, byte \d+"):
        bpy.ops.import_mesh.famc(filepath=str(path))
    assert data_counts() == before and not path.with_suffix(".pc2").exists()


def test_file_handler_registered():
    fresh_scene()
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_FH_famc")
    assert handler is not None and handler.bl_file_extensions == ".famc"
