"""Scene rates from Frame Time, keys on the intended frames, and rates no scene can play."""

from fractions import Fraction

import numpy as np
import pytest

from blender_scene import bpy, data_counts, fresh_scene
from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
from mocap_io.addon import export_bvh, import_bvh
from mocap_io.addon.common import compat
from mocap_io.addon.common.units import scene_fps, scene_rate
from mocap_io.core.frame_rate import snap_rate
from sample_motion import cmu_like_motion


def take(tmp_path, frame_time, frames=10):
    """A generated take whose file prints `frame_time`."""
    motion = cmu_like_motion(core, frames)
    motion.frame_time_text = frame_time
    motion.fps = 1.0 / float(frame_time)
    path = tmp_path / "take.bvh"
    core.write(motion, path)
    assert f"Frame Time: {frame_time}\n" in path.read_text()
    return path


def assert_keyed_at(obj, expected):
    """Every F-curve of the action of `obj` keys the frames `expected`, or only the first of them
    (a channel that never changes holds its value with one key)."""
    for curve in compat.action_fcurves(obj):
        co = np.empty(2 * len(curve.keyframe_points), dtype=np.float32)
        curve.keyframe_points.foreach_get("co", co)
        assert len(co) // 2 in (1, len(expected)), curve.data_path
        np.testing.assert_array_equal(co[0::2], np.asarray(expected, dtype=np.float32)[: len(co) // 2])


@pytest.mark.parametrize(
    "frame_time, fps, base",
    [
        ("0.016667", 60, 1.0),
        ("0.008333", 120, 1.0),
        ("0.004167", 240, 1.0),
        ("0.033333", 30, 1.0),
        ("0.041667", 24, 1.0),
        ("0.0333667", 30, 1.001),
        ("0.041708", 24, 1.001),
        ("0.0417083750417", 24, 24 / 23.976),
    ],
)
def test_the_scene_gets_the_rate_frame_time_was_rounded_from(tmp_path, frame_time, fps, base):
    scene = fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(take(tmp_path, frame_time))])
    assert scene.render.fps == fps and scene.render.fps_base == pytest.approx(base, rel=1e-7)
    assert scene_fps(scene) == snap_rate(frame_time)  # read back exactly, single-precision base and all
    export_bvh(bpy.context, objects[0], tmp_path / "out.bvh")
    assert f"Frame Time: {frame_time}\n" in (tmp_path / "out.bvh").read_text()


def test_exact_rate_and_its_text(tmp_path):
    scene = fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(take(tmp_path, "0.033333"))], frame_rate="EXACT")
    assert scene.render.fps / scene.render.fps_base == pytest.approx(1 / 0.033333, rel=1e-7)
    export_bvh(bpy.context, objects[0], tmp_path / "out.bvh")
    assert "Frame Time: 0.033333\n" in (tmp_path / "out.bvh").read_text()
    scene.render.fps, scene.render.fps_base = 25, 1.0  # another scene rate: the take keeps its own
    export_bvh(bpy.context, objects[0], tmp_path / "out.bvh")
    assert "Frame Time: 0.033333\n" in (tmp_path / "out.bvh").read_text()
    export_bvh(bpy.context, objects[0], tmp_path / "out.bvh", frame_rate="SCENE")  # the text no longer stands for it
    assert "Frame Time: 0.04\n" in (tmp_path / "out.bvh").read_text()


@pytest.mark.parametrize(
    "scene_rate_, frame_time, expected",
    [
        ((24, 1.0), "0.041667", np.arange(1, 11)),  # was 1, 2.0000081, ... 11
        ((30, 1.0), "0.008333", 1 + np.arange(10) / 4),
        ((30, 1.001), "0.0333667", np.arange(1, 11)),
        ((60, 1.0), "0.033333", 1 + 2 * np.arange(10)),
    ],
)
def test_keep_scene_rate_keys_the_intended_frames(tmp_path, scene_rate_, frame_time, expected):
    scene = fresh_scene()
    scene.render.fps, scene.render.fps_base = scene_rate_
    before = (scene.render.fps, scene.render.fps_base)
    objects, _ = import_bvh(bpy.context, [str(take(tmp_path, frame_time))], frame_rate="KEEP")
    assert (scene.render.fps, scene.render.fps_base) == before
    assert_keyed_at(objects[0], expected)
    assert scene.frame_end == int(np.ceil(expected[-1]))


@needs_corpus
@pytest.mark.parametrize(
    "path",
    [
        r["path"]
        for r in manifest("bvh")
        if r["path"].endswith(("bvh_test2.bvh", "bvh_test3.bvh", "test_mocapbank.bvh"))
    ],
)
def test_keep_scene_rate_on_corpus_files(path):
    """Files with 0.008333 (120 fps) and 0.033333 (30 fps) into a 30 fps scene: keys on quarter and whole frames."""
    motion = core.read(CORPUS / path)
    scene = fresh_scene()
    scene.render.fps, scene.render.fps_base = 30, 1.0
    objects, _ = import_bvh(bpy.context, [str(CORPUS / path)], frame_rate="KEEP")
    step = Fraction(30) / snap_rate(motion.frame_time_text)
    assert step in (1, Fraction(1, 4))
    assert_keyed_at(objects[0], 1 + np.arange(motion.frame_count) * float(step))


def test_scene_fps_reads_the_single_precision_base():
    scene = fresh_scene()
    for fps, base, expected in (
        (30, 1.001, Fraction(30000, 1001)),
        (24, 24 / 23.976, Fraction("23.976")),
        (120, 1.0, 120),
        (30, 0.99999, Fraction(30) / Fraction(np.float32(0.99999).item())),
    ):
        scene.render.fps, scene.render.fps_base = fps, base
        assert scene_fps(scene) == expected
    scene.render.fps, scene.render.fps_base = 30, 0.99999
    assert scene_fps(scene, likely=(Fraction(1) / Fraction("0.033333"),)) == Fraction(1000000, 33333)


@pytest.mark.parametrize("rate", [float("inf"), 0.0, -30.0, 1e-9, 1e12, Fraction(10) ** 320])
def test_scene_rate_refuses_what_no_scene_can_play(rate):
    with pytest.raises(ValueError, match="cannot be a Blender scene's frame rate"):
        scene_rate(rate)


@pytest.mark.parametrize(
    "frame_time, frame_rate",
    [("1e-320", "EXACT"), ("1e-320", "SNAP"), ("1e-12", "SNAP"), ("1e+300", "KEEP"), ("1e-320", "KEEP")],
)
def test_a_rate_no_scene_can_play_leaves_nothing(tmp_path, frame_time, frame_rate):
    text = take(tmp_path, "0.033333").read_text().replace("Frame Time: 0.033333", f"Frame Time: {frame_time}")
    (tmp_path / "bad.bvh").write_text(text)
    scene = fresh_scene()
    before = data_counts()
    try:
        import_bvh(bpy.context, [str(tmp_path / "bad.bvh")], frame_rate=frame_rate)
    except ValueError as error:  # the reader (non-finite rate) or the scene (no such rate, no such frame)
        assert "bad.bvh" in str(error)
        assert data_counts() == before
    else:  # only a sub-frame step can be imported: every key on the first frame
        assert frame_rate == "KEEP"
    assert (scene.render.fps, scene.render.fps_base) == (24, 1.0) and scene.frame_start == 1
