"""Every ASF/AMC of the shared corpus (MANIFEST.tsv): it loads, round-trips, and CMU 16_15 agrees
with MotionBuilder's BVH conversion of the same take; every corpus BVH converts to ASF/AMC and back
with its joint positions."""

import re

import numpy as np
import pytest

from corpus_files import CORPUS, by_path, manifest, needs_corpus
from mocap_io import core
from mocap_io.core.formats import asf
from mocap_io.core.frame_rate import snap_rate

ROWS = manifest("asf") + manifest("amc")
AMC = [r for r in ROWS if r["format"] == "amc"]
BVH = [r["path"] for r in manifest("bvh") if r["expect"] == "ok"]
CM_PER_UNIT = 2.54 / 0.45  # CMU: length 0.45, units of 1/0.45 inch


@needs_corpus
def test_the_corpus_has_asf_and_amc_files():
    assert len(AMC) >= 3 and len(ROWS) >= 6


@needs_corpus
@pytest.mark.parametrize("row", by_path(r for r in ROWS if r["format"] == "asf"))
def test_every_asf_loads(row):
    motion = core.read(CORPUS / row["path"])
    bones = int(re.match(r"(\d+) bones \+ root", row["joints_or_vertices"]).group(1))
    assert motion.frame_count == 0 and motion.skeleton.joint_count == bones + 1
    assert motion.skeleton.names[0] == "root" and motion.skeleton.record.units["length"] == "0.45"
    assert np.isfinite(motion.skeleton.rest_world()[1]).all()


@needs_corpus
@pytest.mark.parametrize("row", by_path(AMC))
def test_every_amc_loads_and_round_trips(row, tmp_path):
    motion = core.read(CORPUS / row["path"])  # the .asf beside it
    assert motion.frame_count == int(row["frames"]) and motion.fps == 120.0
    positions = motion.world_positions()
    assert np.isfinite(positions).all() and np.isfinite(motion.end_site_positions()).all()
    core.write(motion, tmp_path / "again.asf")
    again = core.read(tmp_path / "again.amc")
    assert again.skeleton.record == motion.skeleton.record and again.skeleton.channels == motion.skeleton.channels
    height = np.ptp(positions[0], axis=0).max()
    np.testing.assert_allclose(again.world_positions(), positions, rtol=0, atol=1e-6 * height)
    core.write(motion, tmp_path / "again.bvh")
    bvh = core.read(tmp_path / "again.bvh")
    np.testing.assert_allclose(bvh.world_positions(), positions, rtol=0, atol=1e-6 * height)


@needs_corpus
def test_cmu_values_as_the_file_prints_them():
    motion = core.read(CORPUS / "asfamc/cmu/02_03.amc")
    lfemur = motion.skeleton.index("lfemur")
    assert motion.euler_orders[lfemur] == "ZYX"  # dof rx ry rz: X first
    np.testing.assert_allclose(np.degrees(motion.euler[0, lfemur]), [-25.33, -6.21672, 13.255])
    np.testing.assert_allclose(motion.translations[0, 0], [9.28722, 16.95, -34.2762])
    lfoot = motion.skeleton.record.bones["lfoot"]
    assert lfoot.axis == (-90.0, 7.62852e-16, 20.0) and lfoot.limits == ((-45.0, 90.0), (-70.0, 20.0))
    assert lfoot.axis_order == "XYZ"  # as in every corpus file: X by -90 first, then Y by ~0, then Z by 20
    c, s = np.cos(np.radians(20)), np.sin(np.radians(20))
    by_hand = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]])
    np.testing.assert_allclose(motion.skeleton.rest_world()[0][motion.skeleton.index("lfoot")], by_hand, atol=1e-15)


@needs_corpus
def test_hdm05_latin1_comment_mixed_line_ends_and_three_digit_exponents():
    data = (CORPUS / "asfamc/hdm05/HDM_bk_hopBothLegs1hops_020_120.amc").read_bytes()
    assert b"\xfc" in data and b"\r\n" in data and re.search(rb"[^\r]\n", data)
    motion = core.read(CORPUS / "asfamc/hdm05/HDM_bk_hopBothLegs1hops_020_120.amc")
    rclavicle = motion.skeleton.index("rclavicle")
    assert motion.skeleton.channels[rclavicle] == ("ry", "rz")
    np.testing.assert_allclose(np.degrees(motion.euler[0, rclavicle, :2]), [2.38542e-15, 2.20651e-14], rtol=1e-12)


@needs_corpus
def test_cmu_16_15_agrees_with_motionbuilders_bvh_of_the_take_at_its_keys():
    """MotionBuilder 7.5 converted this take (imusim's README): its BVH has the ASF's bone names,
    centimetres (2.54 / 0.45 per ASF unit) and its own rest pose and Euler orders; it kept a key every
    4th frame (30 per second) and interpolated between them. At the keys, every joint it kept is
    where the Acclaim definition puts the bone's start, to its 6 printed digits."""
    acclaim = core.read(CORPUS / "asfamc/cmu-imusim/16_15.amc")
    mobu = core.read(CORPUS / "bvh/motionbuilder-cmu/16_15.bvh")
    assert acclaim.frame_count == mobu.frame_count == 471
    index = [acclaim.skeleton.index(n) for n in mobu.skeleton.names]  # lhipjoint, rhipjoint: not kept
    ours = acclaim.world_positions()[:, index] * CM_PER_UNIT
    theirs = mobu.world_positions()
    height = np.ptp(theirs[0], axis=0).max()
    keys = np.arange(0, 471, 4)
    assert np.abs(ours[keys] - theirs[keys]).max() < 1e-5 * height
    between = np.setdiff1d(np.arange(471), keys)
    assert np.abs(ours[between] - theirs[between]).max() > 0.1 * height  # (so the check above is not idle)
    metres = core.read(CORPUS / "asfamc/cmu-imusim/16_15.amc", metres=True).world_positions()[:, index]
    np.testing.assert_allclose(metres[keys] * 100, theirs[keys], rtol=0, atol=1e-5 * height)


@needs_corpus
def test_one_skeleton_for_the_amc_files_of_a_subject():
    skeleton = asf.read_asf(CORPUS / "asfamc/cmu/02.asf")
    first, second = core.read(CORPUS / "asfamc/cmu/02.asf", motion=[CORPUS / "asfamc/cmu/02_03.amc"] * 2)
    assert first.skeleton is second.skeleton
    assert asf.read_amc(CORPUS / "asfamc/cmu/02_03.amc", skeleton).skeleton is skeleton


@needs_corpus
@pytest.mark.parametrize("name", BVH)
def test_every_corpus_bvh_converts_to_asf_and_back(name, tmp_path):
    original = core.read(CORPUS / name)
    core.write(original, tmp_path / "c.asf")
    converted = core.read(tmp_path / "c.amc")
    core.write(converted, tmp_path / "back.bvh")
    back = core.read(tmp_path / "back.bvh")
    positions = original.world_positions()
    height = max(np.ptp(positions[0], axis=0).max(), 1.0)
    for motion in (converted, back):
        index = [0] + [motion.skeleton.index(n) for n in original.skeleton.names[1:]]
        np.testing.assert_allclose(motion.world_positions()[:, index], positions, rtol=0, atol=1e-6 * height)
    text = original.frame_time_text  # the AMC holds the rate that the BVH's Frame Time stands for
    assert converted.fps == back.fps == (float(snap_rate(text)) if text else original.fps)
