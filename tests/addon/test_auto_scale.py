"""Auto Scale: the unit that makes the figure a plausible human, on real files, reported with why;
the README lists exactly the units the code tries."""

import pathlib
import re

import numpy as np
import pytest

from blender_scene import bpy, fresh_scene
from corpus_files import CORPUS, frame_count_warning, needs_corpus
from mocap_io import core
from mocap_io.addon import import_bvh
from mocap_io.addon.common.units import HUMAN_HEIGHTS, UNITS, guess_scale
from sample_motion import cmu_like_motion

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("name, scale", UNITS)
def test_a_human_in_any_unit_comes_out_human(tmp_path, name, scale):
    motion = cmu_like_motion(core, 3)  # centimetres
    size = motion.pose_extent(0).max() * 0.01
    motion.skeleton.offsets *= 0.01 / scale
    motion.skeleton.end_site_offsets *= 0.01 / scale
    motion.translations *= 0.01 / scale
    core.write(motion, tmp_path / "take.bvh", precision=8)
    fresh_scene()
    objects, messages = import_bvh(bpy.context, [str(tmp_path / "take.bvh")], auto_scale=True)
    assert f"read as {name} (scale {scale:g}) because the figure measures" in messages.notes[0]
    heads = np.array([b.head_local for b in objects[0].data.bones])
    assert np.ptp(heads, axis=0).max() == pytest.approx(size, rel=0.2)


@needs_corpus
@pytest.mark.parametrize(
    "path, unit",
    [
        ("bvh/cmu-cgspeed/cmu_12_01_walk.bvh", "CMU ASF units (1/0.45 inch)"),  # was decimetres: 2.23 m
        ("bvh/motionbuilder-cmu/16_15.bvh", "centimetres"),
        ("bvh/mocapbank/test_mocapbank.bvh", "centimetres"),
        ("bvh/xsens-mvn-pybvh/bvh_test2.bvh", "centimetres"),
        ("bvh/assimp-boxing/Boxing_Toes.bvh", "centimetres"),
        ("bvh/bandai-namco/dataset-2_wave-left-hand_active_011.bvh", "centimetres"),
    ],
)
def test_real_files_come_out_human(path, unit):
    with frame_count_warning(path):
        motion = core.read(CORPUS / path, strict=False)
    scale, chosen, reason = guess_scale(motion.pose_extent(0).max())
    assert chosen == unit, reason
    assert HUMAN_HEIGHTS[0] <= motion.pose_extent(0).max() * scale <= HUMAN_HEIGHTS[1]


def test_sizes_no_unit_makes_human_get_the_nearest():
    assert guess_scale(5.0)[:2] == (1.0, "metres")  # 5 m beats 0.28 m
    assert "no unit gives" in guess_scale(5.0)[2]
    assert guess_scale(0.0)[:2] == (1.0, "metres")


def test_the_readme_lists_the_units_the_code_tries():
    text = " ".join(README.read_text().split())
    sentence = re.search(
        r"\*Auto Scale\*, on by default \(reads the file in the first of (.*?) that makes", text
    ).group(1)
    assert [item.split(" (")[0] for item in sentence.split(" / ")] == [name.split(" (")[0] for name, _ in UNITS]
