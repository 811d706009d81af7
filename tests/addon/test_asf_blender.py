"""ASF/AMC import and export in Blender: the same world joint positions as the core and as the
core's ASF -> BVH conversion imported by Blender's built-in BVH importer; bone axes; all or nothing."""

import shutil

import numpy as np
import pytest

import asf_samples as sample
from blender_scene import assert_heads_match_core, assert_same_heads, bpy, data_counts, fresh_scene, world_heads
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.addon import export_asf, import_asf
from mocap_io.addon.common.units import axis_matrix
from mocap_io.core import rotations
from mocap_io.core.errors import FileWarning

CMU = CORPUS / "asfamc/cmu-imusim"


@pytest.fixture
def files(tmp_path):
    """sample.asf with two takes, walk.amc (4 frames) and jump.amc (3 frames)."""
    (tmp_path / "sample.asf").write_text(sample.ASF)
    (tmp_path / "walk.amc").write_text(sample.amc_text(sample.amc_values(4)))
    (tmp_path / "jump.amc").write_text(sample.amc_text(sample.amc_values(3, seed=1)))
    return tmp_path


def read_sample(path, **options):
    """core.read of sample.asf or of an AMC beside it: it warns of the ASF's unknown section."""
    with pytest.warns(FileWarning, match="unknown section ':skin' skipped"):
        return core.read(path, **options)


def check_against_core(obj, motion, frames):
    assert_heads_match_core(obj, motion, frames, 1e-5 * np.abs(motion.world_positions()).max())


def test_asf_with_takes_one_armature_matches_the_core(files):
    fresh_scene()
    asf, walk, jump = (str(files / n) for n in ("sample.asf", "walk.amc", "jump.amc"))
    (obj,), messages = import_asf(bpy.context, [asf, walk, jump], one_armature=True)
    assert {"walk", "jump"} <= {a.name for a in bpy.data.actions}
    assert bpy.context.scene.render.fps == 120
    check_against_core(obj, read_sample(asf, motion=jump, metres=True), range(3))


def test_a_readers_notes_are_notes_and_its_warnings_warnings(files):
    """The reader says which kind each message is (core.errors.FileNote, FileWarning): an unknown
    bone entry kept for the writer is a note (INFO), an unknown section skipped a warning."""
    path = files / "sample.asf"
    path.write_text(sample.ASF.replace("bodymass 3.5", "bodymass 3.5\n     colour red"))
    fresh_scene()
    _, messages = import_asf(bpy.context, [str(path)])
    assert [m.split(": ", 1)[1] for m in messages.warnings] == ["unknown section ':skin' skipped"]
    assert any(m.endswith("unknown bone entry 'colour' kept") for m in messages.notes)


@pytest.mark.parametrize("bone_axes", ["ROLL", "EXACT"])
def test_an_amc_alone_finds_its_asf_and_bones_follow_the_axes(files, bone_axes):
    fresh_scene()
    (obj,), _ = import_asf(bpy.context, [str(files / "walk.amc")], bone_axes=bone_axes)
    motion = read_sample(files / "walk.amc", metres=True)
    check_against_core(obj, motion, range(4))
    if bone_axes == "EXACT":  # pose values are the AMC rotations
        bpy.context.scene.frame_set(3)
        for j, name in enumerate(motion.skeleton.names):
            pose = rotations.quat_to_matrix(np.array(obj.pose.bones[name].rotation_quaternion))
            np.testing.assert_allclose(pose, motion.local_rotation(j)[2], atol=2e-6)


def test_an_asf_alone_gives_the_rest_pose(files):
    fresh_scene()
    (obj,), _ = import_asf(bpy.context, [str(files / "sample.asf")])
    assert obj.animation_data is None or obj.animation_data.action is None
    skeleton = read_sample(files / "sample.asf", metres=True).skeleton
    rest = skeleton.rest_world()[1] @ axis_matrix("-Z", "Y").T
    heads, names = world_heads(obj, 1)
    np.testing.assert_allclose(heads, rest[[skeleton.index(n) for n in names]], atol=1e-6)


@needs_corpus
def test_a_cmu_take_matches_the_builtin_bvh_importer(tmp_path):
    asf, amc = str(CMU / "16.asf"), str(CMU / "16_15.amc")
    motion = core.read(asf, motion=amc, metres=True)
    fresh_scene()
    (ours,), _ = import_asf(bpy.context, [asf, amc], update_frame_range=False)
    check_against_core(ours, motion, (0, 100, motion.frame_count - 1))
    converted = tmp_path / "16_15.bvh"
    core.write(motion, converted, precision=9)
    bpy.ops.import_anim.bvh(filepath=str(converted), update_scene_fps=False, update_scene_duration=False)
    builtin = bpy.context.object
    height = np.abs(motion.world_positions()).max()
    assert_same_heads(ours, builtin, (1, 101, motion.frame_count), 1e-5 * height)


def test_export_gives_back_the_world_positions(files, tmp_path):
    fresh_scene()
    (obj,), _ = import_asf(bpy.context, [str(files / "sample.asf"), str(files / "walk.amc")])
    out = tmp_path / "out" / "exported.asf"
    out.parent.mkdir()
    export_asf(bpy.context, obj, str(out), precision=9)
    original, written = read_sample(files / "walk.amc", metres=True), core.read(out, motion=out.with_suffix(".amc"))
    assert written.frame_count == original.frame_count
    index = [written.skeleton.index(n) for n in original.skeleton.names]
    height = np.abs(original.world_positions()).max()
    np.testing.assert_allclose(written.world_positions()[:, index], original.world_positions(), atol=1e-5 * height)


def test_bad_input_leaves_nothing_and_names_the_file(files, tmp_path):
    fresh_scene()
    broken = files / "broken.amc"
    lines = sample.amc_text(sample.amc_values(3)).splitlines(keepends=True)
    broken.write_text("".join(line for line in lines if not line.startswith("child")))
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"broken\.amc, line \d+"):
        bpy.ops.import_anim.mocap_asf(files=[{"name": "walk.amc"}, {"name": "broken.amc"}], directory=str(files))
    assert data_counts() == before
    shutil.copy(files / "sample.asf", files / "other.asf")
    with pytest.raises(RuntimeError, match=r"2 \.asf files picked"):
        bpy.ops.import_anim.mocap_asf(files=[{"name": "sample.asf"}, {"name": "other.asf"}], directory=str(files))
    assert data_counts() == before
    assert bpy.types.FileHandler.bl_rna_get_subclass_py("MOCAP_FH_asf") is not None
