"""HTR import and export in Blender: the same world joint positions as the core, and as HTR ->
BVH (core) imported by Blender's built-in BVH importer; SF as bone scale; all or nothing."""

import numpy as np
import pytest

from blender_scene import assert_heads_match_core, assert_same_heads, bpy, data_counts, fresh_scene
from corpus_files import CORPUS, needs_corpus
from htr_samples import SAMPLE
from mocap_io import core
from mocap_io.addon import export_htr, import_htr

EGNARO = CORPUS / "htr/animal3d-egnaro/egnaro_skel_anim.htr"


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.htr"
    path.write_text(SAMPLE)
    return path


def check_against_core(obj, motion, metres_per_unit, frames):
    height = np.abs(motion.world_positions()).max() * metres_per_unit
    assert_heads_match_core(obj, motion, frames, 1e-5 * height, scale=metres_per_unit)


@pytest.mark.parametrize("bone_axes", ["ROLL", "EXACT"])
def test_a_sample_with_scale_factors_matches_the_core(sample, bone_axes):
    fresh_scene()
    (obj,), _ = import_htr(bpy.context, [str(sample)], bone_axes=bone_axes)
    motion = core.read(sample)
    assert np.any(motion.scales != 1)
    check_against_core(obj, motion, 0.01, range(motion.frame_count))  # CalibrationUnits cm
    bpy.context.scene.frame_set(2)
    hips = obj.pose.bones["Hips"]
    assert tuple(hips.scale) == pytest.approx((1.1, 1.1, 1.1), rel=1e-6)  # SF of frame 2
    assert obj.data.bones["Chest"].inherit_scale == "NONE"


@needs_corpus
def test_the_corpus_file_matches_the_core_and_the_builtin_bvh_importer(tmp_path):
    motion = core.read(EGNARO)
    fresh_scene()
    (ours,), _ = import_htr(bpy.context, [str(EGNARO)], update_frame_range=False)
    check_against_core(ours, motion, 0.001, (0, 1, 40, motion.frame_count - 1))
    converted = tmp_path / "egnaro.bvh"
    core.write(motion, converted, precision=9)
    bpy.ops.import_anim.bvh(
        filepath=str(converted), global_scale=0.001, update_scene_fps=False, update_scene_duration=False
    )
    builtin = bpy.context.object
    height = np.abs(motion.world_positions()).max() * 0.001
    assert_same_heads(ours, builtin, (1, 2, 41, motion.frame_count), 1e-5 * height)


def test_export_gives_back_the_world_positions(sample, tmp_path):
    fresh_scene()
    (obj,), _ = import_htr(bpy.context, [str(sample)], rotation_mode="NATIVE")
    out = tmp_path / "out.htr"
    export_htr(bpy.context, obj, str(out), units="cm", precision=9)
    original, written = core.read(sample), core.read(out)
    assert written.skeleton.names == original.skeleton.names and written.frame_count == original.frame_count
    assert written.record.calibration_units == "cm"
    height = np.abs(original.world_positions()).max()
    np.testing.assert_allclose(written.world_positions(), original.world_positions(), atol=1e-5 * height)


def test_the_operator_and_a_bad_file_that_leaves_nothing(sample, tmp_path):
    fresh_scene()
    assert bpy.ops.import_anim.mocap_htr(filepath=str(sample)) == {"FINISHED"}
    assert bpy.context.scene.render.fps == 30
    bad = tmp_path / "bad.htr"
    bad.write_text(SAMPLE.replace("numsegments 3", "numsegments 4"))
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"bad\.htr.*line"):
        bpy.ops.import_anim.mocap_htr(filepath=str(bad))
    assert data_counts() == before
    assert bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_FH_htr") is not None


@pytest.mark.parametrize("units", ["", "CalibrationUnits furlong\n"])
def test_a_file_without_known_units_is_auto_scaled_or_read_as_metres(tmp_path, units):
    path = tmp_path / "plain.htr"
    path.write_text(SAMPLE.replace("CalibrationUnits cm\n", units))
    fresh_scene()
    (obj,), messages = import_htr(bpy.context, [str(path)])
    assert "plain: read as inches (scale 0.0254) because" in messages.notes[0]  # the sample is 45 units tall
    check_against_core(obj, core.read(path), 0.0254, (0, 1))
    fresh_scene()
    (obj,), _ = import_htr(bpy.context, [str(path)], auto_scale=False)
    check_against_core(obj, core.read(path), 1.0, (0, 1))


def test_blocks_of_different_lengths_are_reported_as_a_warning(sample, capfd):
    """A reader's warning travels as a warning (reported WARNING), the importer's notes as notes
    (reported INFO), whatever their words: no guessing from the text."""
    sample.write_text(SAMPLE.replace("3 0 -1.2 0 -45 30 10 0.95", ""))  # Head's block one frame short
    warning = f"{sample}: segment blocks of different lengths, all cut to 2 frames"
    fresh_scene()
    _, messages = import_htr(bpy.context, [str(sample)], strict=False, auto_scale=True)
    assert warning in messages.warnings and "read in cm, as the file says (scale 0.01)" in messages.notes[0]
    assert not any("different lengths" in text for text in messages.notes)
    assert (
        list(messages) == messages.warnings + messages.notes and messages[len(messages.warnings)] == messages.notes[0]
    )
    fresh_scene()
    capfd.readouterr()
    assert bpy.ops.import_anim.mocap_htr(filepath=str(sample), strict=False) == {"FINISHED"}
    reported = capfd.readouterr().out.splitlines()  # Blender prints a script's reports as "Level: text"
    assert f"Warning: {warning}" in reported
    assert "Info: Imported 1 HTR file(s) into 1 armature(s), in cm (scale 0.01)" in reported
