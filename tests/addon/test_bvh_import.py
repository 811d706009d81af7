"""The BVH importer against the core's FK and against Blender's own importer."""

import shutil

import numpy as np
import pytest

from blender_scene import bpy, data_counts, fresh_scene, world_heads
from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
from mocap_io.addon import import_bvh
from mocap_io.addon.common.units import axis_matrix
from sample_motion import cmu_like_motion

CORPUS_OK = [r["path"] for r in manifest("bvh") if r["expect"] == "ok"]
FRAMES = (0, 1, 7, -1)  # motion frames checked (-1: the last)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = tmp_path_factory.mktemp("bvh") / "sample.bvh"
    core.write(cmu_like_motion(core, 240), path)
    return path


def expected_heads(motion, frame, scale=1.0):
    """Core FK in Blender axes (the default conversion: -Z forward, Y up)."""
    return scale * motion.world_positions()[frame] @ axis_matrix("-Z", "Y").T


def check_against_core(path, obj, scale=1.0, **read_options):
    motion = core.read(path, **read_options)
    height = max(np.ptp(motion.world_positions()[0], axis=0).max(), np.abs(motion.world_positions()).max()) * scale
    index = {n: i for i, n in enumerate(motion.skeleton.names)}
    for frame in FRAMES:
        frame = frame % motion.frame_count
        heads, names = world_heads(obj, 1 + frame)
        ours = expected_heads(motion, frame, scale)[[index[n] for n in names]]
        np.testing.assert_allclose(heads, ours, atol=1e-5 * max(height, 1e-3))


@pytest.mark.parametrize("rotation_mode", ["QUATERNION", "NATIVE"])
def test_generated_sample_matches_core_fk(sample, rotation_mode):
    fresh_scene()
    result = bpy.ops.import_anim.mocap_bvh(filepath=str(sample), rotation_mode=rotation_mode, scale=1.0)
    assert result == {"FINISHED"}
    obj = bpy.context.object
    assert obj.type == "ARMATURE" and len(obj.data.bones) == 31
    assert obj.animation_data.action.name == "sample"
    assert {b.rotation_mode for b in obj.pose.bones} == ({"QUATERNION"} if rotation_mode == "QUATERNION" else {"YXZ"})
    check_against_core(sample, obj)
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end) == (1, 240)
    assert scene.render.fps == 120 and scene.render.fps_base == 1.0


def test_rest_pose_is_the_file_zero_pose(sample):
    fresh_scene()
    import_bvh(bpy.context, [str(sample)], scale=1.0)
    obj = bpy.context.object
    obj.data.pose_position = "REST"
    heads, names = world_heads(obj, 1)
    motion = core.read(sample)
    rest = motion.skeleton.rest_world()[1] @ axis_matrix("-Z", "Y").T
    height = np.ptp(rest, axis=0).max()  # Blender stores bones in single precision
    np.testing.assert_allclose(heads, rest[[motion.skeleton.index(n) for n in names]], atol=1e-6 * height)


@needs_corpus
@pytest.mark.parametrize("name", CORPUS_OK)
def test_corpus_files_match_core_and_the_builtin_importer(name):
    path = str(CORPUS / name)
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [path], update_frame_range=False, scale=1.0)
    ours = objects[0]
    check_against_core(path, ours)
    bpy.ops.import_anim.bvh(filepath=path, update_scene_fps=False, update_scene_duration=False)
    builtin = bpy.context.object
    assert builtin is not ours
    motion = core.read(path)
    height = np.abs(motion.world_positions()).max()  # Blender keeps single precision
    for frame in FRAMES:
        frame = 1 + frame % motion.frame_count
        a, names_a = world_heads(ours, frame)
        b, names_b = world_heads(builtin, frame)
        order = [names_b.index(n) for n in names_a]
        np.testing.assert_allclose(a, b[order], atol=1e-5 * max(height, 1e-3))


@needs_corpus
def test_frame_rates():
    fresh_scene()
    scene = bpy.context.scene
    import_bvh(bpy.context, [str(CORPUS / "bvh/mocapbank/test_mocapbank.bvh")])  # Frame Time 0.033333
    assert (scene.render.fps, scene.render.fps_base) == (30, 1.0)
    import_bvh(bpy.context, [str(CORPUS / "bvh/mocapbank/test_mocapbank.bvh")], frame_rate="EXACT")
    assert scene.render.fps / scene.render.fps_base == pytest.approx(1 / 0.033333, rel=1e-6)
    import_bvh(bpy.context, [str(CORPUS / "bvh/pybvh/full_precision_frame_time.bvh")])
    assert scene.render.fps == 24 and scene.render.fps / scene.render.fps_base == pytest.approx(23.976, rel=1e-7)
    import_bvh(bpy.context, [str(CORPUS / "bvh/cmu-cgspeed/cmu_12_01_walk.bvh")])  # .0083333
    assert (scene.render.fps, scene.render.fps_base) == (120, 1.0)


def test_keep_scene_rate_places_keys_in_time(sample):
    scene = fresh_scene()
    scene.render.fps, scene.render.fps_base = 30, 1.0
    objects, _ = import_bvh(bpy.context, [str(sample)], frame_rate="KEEP", scale=1.0)
    assert scene.render.fps == 30
    assert scene.frame_end == 61  # 240 frames at 120 fps last 2 s: keys at 1, 1.25, ... 60.75
    motion = core.read(sample)
    heads, names = world_heads(objects[0], 61)  # frame 61 is motion frame 240 (clamped: 239)
    np.testing.assert_allclose(heads, expected_heads(motion, 239)[[motion.skeleton.index(n) for n in names]], atol=1e-4)


def test_auto_scale_reports_its_choice(sample):
    fresh_scene()
    objects, messages = import_bvh(bpy.context, [str(sample)], auto_scale=True)
    assert any("read as centimetres (scale 0.01)" in m for m in messages.notes)
    check_against_core(sample, objects[0], scale=0.01)
    fresh_scene()  # the default
    objects, messages = import_bvh(bpy.context, [str(sample)])
    assert any("read as centimetres (scale 0.01)" in m for m in messages.notes)
    check_against_core(sample, objects[0], scale=0.01)


def test_several_files_one_armature_or_several(sample, tmp_path):
    second = tmp_path / "second.bvh"
    core.write(cmu_like_motion(core, 50, seed=7), second)
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(sample), str(second)], one_armature=True, scale=1.0)
    assert len(objects) == 1 and {"sample", "second"} <= {a.name for a in bpy.data.actions}
    assert objects[0].animation_data.action.name == "second"
    check_against_core(second, objects[0])
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(sample), str(second)])
    assert len(objects) == 2


@pytest.mark.parametrize("damage", ["truncated", "bad value", "missing brace"])
def test_a_failed_import_leaves_nothing_and_names_the_line(sample, tmp_path, damage):
    text = sample.read_text()
    bad = {
        "truncated": text[:-5000],
        "bad value": text[:-200] + " nonsense\n",
        "missing brace": text.replace("}", "", 1),
    }[damage]
    (tmp_path / "bad.bvh").write_text(bad)
    shutil.copy(sample, tmp_path / "good.bvh")
    fresh_scene()
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"bad\.bvh, line \d+: expected"):
        bpy.ops.import_anim.mocap_bvh(files=[{"name": "good.bvh"}, {"name": "bad.bvh"}], directory=str(tmp_path))
    assert data_counts() == before


def test_a_failure_while_building_removes_what_was_built(sample, monkeypatch):
    """Even an unexpected error after the armature exists leaves the file's data untouched."""
    from mocap_io.addon.to_blender import motions

    def broken(*args, **kwargs):
        raise ValueError("simulated failure")

    fresh_scene()
    before = data_counts()
    monkeypatch.setattr(motions, "add_action", broken)
    with pytest.raises(ValueError, match="simulated"):
        import_bvh(bpy.context, [str(sample)])
    assert data_counts() == before
    assert bpy.context.object is None or bpy.context.object.mode == "OBJECT"


def test_file_handler_and_menus_are_registered():
    fresh_scene()
    handler = bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_FH_bvh")
    assert handler is not None and handler.bl_import_operator == "import_anim.mocap_bvh"
    assert handler.bl_file_extensions == ".bvh"
    assert hasattr(bpy.ops.export_anim, "mocap_bvh")
