"""An export never silently loses frames or time (issue 26, item 2): by default each export writes
its object's own take (an armature's action, an imported marker file or mesh animation) at the
rate it was imported at, whatever the scene's rate and range have become since; Scene Range and
Scene Rate are choices; every export reports the frames and the rate it wrote."""

import numpy as np
import pytest

from blender_scene import bpy, fresh_scene
from corpus_files import CORPUS, needs_corpus
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import export_bvh, export_markers, export_memg, import_bvh, import_markers, import_memg
from mocap_io.core.errors import FileWarning
from mocap_io.core.markers import Markers
from mocap_io.core.mesh import diagonal
from sample_motion import cmu_like_motion

CMU = "bvh/motionbuilder-cmu/16_15.bvh"  # 471 frames at 120 fps (Frame Time 0.00833333)
C3D = "c3d/btk/mocap36.c3d"  # 1380 frames at 100 Hz


def select_only(*objects):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = objects[-1]


def reported(capfd):
    """The Info lines Blender printed since the last call."""
    return [line for line in capfd.readouterr().out.splitlines() if line.startswith("Info: Exported")]


@needs_corpus
def test_several_takes_in_one_scene_each_export_whole_at_its_own_rate(tmp_path, capfd):
    """BVH (120 fps), C3D (100 Hz), a mesh ensemble (30 fps) and last an FAMC (24 fps, 150 frames)
    imported into one scene, which the FAMC leaves at 24 fps, frames 1-150: each export holds its
    own take, every frame at its own rate."""
    bars = two_bars(40)
    bars.fps = 30
    core.write(bars, tmp_path / "bars.memg")
    core.write(two_bars(150), tmp_path / "cloth.famc", tolerance=1e-4)
    fresh_scene()
    assert bpy.ops.import_anim.mocap_bvh(filepath=str(CORPUS / CMU)) == {"FINISHED"}
    armature = bpy.context.active_object
    assert bpy.ops.import_anim.mocap_c3d(filepath=str(CORPUS / C3D)) == {"FINISHED"}
    markers = bpy.context.active_object
    assert bpy.ops.import_mesh.memg(filepath=str(tmp_path / "bars.memg")) == {"FINISHED"}
    ensemble = bpy.context.active_object
    assert bpy.ops.import_mesh.famc(filepath=str(tmp_path / "cloth.famc")) == {"FINISHED"}
    cloth = bpy.context.active_object
    scene = bpy.context.scene
    assert (scene.render.fps, scene.frame_start, scene.frame_end) == (24, 1, 150)
    capfd.readouterr()

    select_only(armature)
    assert bpy.ops.export_anim.mocap_bvh(filepath=str(tmp_path / "walk.bvh")) == {"FINISHED"}
    original, written = core.read(CORPUS / CMU), core.read(tmp_path / "walk.bvh")
    assert written.frame_count == 471 and "Frame Time: 0.00833333\n" in (tmp_path / "walk.bvh").read_text()
    size = np.ptp(original.world_positions(), axis=(0, 1)).max()
    np.testing.assert_allclose(written.world_positions(), original.world_positions(), atol=1e-5 * size)
    assert reported(capfd) == [
        "Info: Exported 29 joints x 471 frames at 120 fps, in centimetres (scale 0.01) as imported"
    ]

    select_only(markers)
    for ext in (".c3d", ".trc"):
        assert bpy.ops.export_anim.mocap_c3d(filepath=str(tmp_path / f"m{ext}")) == {"FINISHED"}
        with pytest.warns(FileWarning, match="parameter next-pointers disagree with the parameter sizes"):
            file = core.read(CORPUS / C3D)
        back = core.read(tmp_path / f"m{ext}")
        assert (back.frame_count, back.rate, back.marker_count) == (1380, 100.0, 36)
        np.testing.assert_allclose(back.positions, file.positions, atol=1e-3)  # mm, through float32 metres
    assert reported(capfd) == ["Info: Exported 36 markers x 1380 frames at 100 fps"] * 2

    select_only(ensemble)
    assert bpy.ops.export_mesh.memg(filepath=str(tmp_path / "bars_out.memg")) == {"FINISHED"}
    back = core.read(tmp_path / "bars_out.memg")
    assert (back.frame_count, back.fps) == (40, 30)
    assert reported(capfd)[0].startswith("Info: Exported 40 frames at 30 fps: ")

    select_only(cloth)
    assert bpy.ops.export_mesh.famc(filepath=str(tmp_path / "cloth_out.famc")) == {"FINISHED"}
    back = core.read(tmp_path / "cloth_out.famc")
    assert (back.frame_count, back.fps) == (150, 24)
    assert reported(capfd)[0].startswith("Info: Exported 150 frames at 24 fps of ")

    # the scene's range and rate, when asked: every scene frame, labelled with the scene's rate
    select_only(armature)
    options = {"frame_range": "SCENE", "frame_rate": "SCENE"}
    assert bpy.ops.export_anim.mocap_bvh(filepath=str(tmp_path / "scene.bvh"), **options) == {"FINISHED"}
    scene_take = core.read(tmp_path / "scene.bvh")
    assert scene_take.frame_count == 150 and scene_take.fps == pytest.approx(24, rel=1e-5)
    np.testing.assert_allclose(scene_take.world_positions(), original.world_positions()[:150], atol=1e-5 * size)
    assert reported(capfd) == [
        "Info: Exported 29 joints x 150 frames at 24 fps, in centimetres (scale 0.01) as imported"
    ]
    # the take's range at the scene's rate: its 471 frames, labelled 24 fps as the scene plays them
    written = export_bvh(bpy.context, armature, tmp_path / "slow.bvh", frame_rate="SCENE")
    assert written.frame_count == 471 and written.fps == pytest.approx(24, rel=1e-5)


def test_a_take_keyed_between_scene_frames_is_sampled_at_its_own_times(tmp_path):
    """120 fps into a 30 fps scene with Keep Scene Rate: keys on quarter frames. The export writes
    every one of them at 120 fps (the keys themselves), or with Scene Rate each whole frame at 30."""
    motion = cmu_like_motion(core, 40)
    core.write(motion, tmp_path / "fast.bvh")
    original = core.read(tmp_path / "fast.bvh")
    scene = fresh_scene()
    scene.render.fps = 30
    (obj,), _ = import_bvh(bpy.context, [str(tmp_path / "fast.bvh")], frame_rate="KEEP")
    assert scene.render.fps == 30 and scene.frame_end == 11  # keys at 1, 1.25, ... 10.75
    for source in ("ACTION", "EVALUATED"):
        written = export_bvh(bpy.context, obj, tmp_path / "out.bvh", source=source)
        assert written.frame_count == 40 and written.fps == 120
        back = core.read(tmp_path / "out.bvh")
        assert back.frame_time_text == original.frame_time_text
        size = np.ptp(original.world_positions(), axis=(0, 1)).max()
        np.testing.assert_allclose(back.world_positions(), original.world_positions(), atol=1e-5 * size)
    written = export_bvh(bpy.context, obj, tmp_path / "whole.bvh", frame_rate="SCENE")
    assert written.frame_count == 10 and written.fps == 30  # frames 1 ... 10: every 4th of the take
    np.testing.assert_allclose(
        core.read(tmp_path / "whole.bvh").world_positions(), original.world_positions()[::4], atol=1e-5 * size
    )
    # a custom range at the take's rate: from frame 2 to 3, the take's frames 4 to 8
    written = export_bvh(bpy.context, obj, tmp_path / "part.bvh", frame_range="CUSTOM", frame_start=2, frame_end=3)
    assert written.frame_count == 5 and written.fps == 120


@pytest.mark.parametrize("representation", ["EMPTIES", "POINT_CLOUD"])
def test_markers_keyed_between_scene_frames_export_every_frame_at_their_rate(tmp_path, representation):
    rng = np.random.default_rng(3)
    positions = (rng.normal(0, 300, (1, 4, 3)) + 20 * np.sin(np.arange(30)[:, None, None] / 4)).astype(np.float32)
    core.write(Markers(["a", "b", "c", "d"], positions, 100.0, units="mm"), tmp_path / "take.trc")
    scene = fresh_scene()
    scene.render.fps = 25
    objects, _ = import_markers(
        bpy.context, [str(tmp_path / "take.trc")], frame_rate="KEEP", representation=representation
    )
    assert scene.render.fps == 25  # keys at 1, 1.25, ...
    back = export_markers(bpy.context, objects, str(tmp_path / "back.trc"))
    assert back.frame_count == 30 and back.rate == 100
    np.testing.assert_allclose(back.positions, positions, atol=1e-3)
    whole = export_markers(bpy.context, objects, str(tmp_path / "whole.trc"), frame_rate="SCENE")
    assert whole.rate == 25 and whole.frame_count == 8  # frames 1 ... 8: every 4th
    np.testing.assert_allclose(whole.positions, positions[::4], atol=1e-3)


def test_a_mesh_exports_its_take_after_another_import_changed_the_scene(tmp_path):
    bars = two_bars(40)
    core.write(bars, tmp_path / "bars.memg")
    fresh_scene()
    obj, _ = import_memg(bpy.context, str(tmp_path / "bars.memg"))
    take = cmu_like_motion(core, 12)
    core.write(take, tmp_path / "short.bvh")
    import_bvh(bpy.context, [str(tmp_path / "short.bvh")])  # 120 fps, frames 1-12
    assert bpy.context.scene.render.fps == 120 and bpy.context.scene.frame_end == 12
    written = export_memg(bpy.context, obj, str(tmp_path / "out.memg"), tolerance=1e-4)
    back = core.read(tmp_path / "out.memg")
    assert written.frame_count == back.frame_count == 40 and back.fps == 24
    expected = bars.positions()
    assert np.abs(back.positions() - expected).max() <= 2e-4 * diagonal(expected)
