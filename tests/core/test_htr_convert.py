"""BVH <-> HTR: the base pose re-based as equations 4.1-4.9 of Meredith and Maddock, "Motion Capture
File Formats Explained" (chapter 4) say, world joint positions
kept to 1e-6 of the figure's height both ways (with SF != 1 too), on our samples and the corpus."""

import warnings

import numpy as np
import pytest

from bvh_samples import random_motion, write
from corpus_files import CORPUS, manifest, needs_corpus
from htr_samples import SAMPLE
from mocap_io import core
from mocap_io.core import rebase
from mocap_io.core.formats import htr
from motion_checks import assert_same_world, height

EGNARO = CORPUS / "htr/animal3d-egnaro/egnaro_skel_anim.htr"
BVH_FILES = [r["path"] for r in manifest("bvh")]


def moving_children(frames=40, seed=5):
    """random_motion with translations on every joint that change over time (as Bandai Namco's)."""
    m = random_motion(frames=frames, seed=seed)
    rng = np.random.default_rng(seed)
    m.translations[:, 1:] *= 1 + 0.2 * np.sin(np.arange(frames)[:, None, None] / 5 + rng.uniform(0, 6, (1, 3, 1)))
    return m


@pytest.mark.parametrize("axis", ["X", "Y", "Z"])
@pytest.mark.parametrize("order", ["ZXY", "XYZ", "YZX"])
def test_bvh_to_htr_lays_bones_along_the_axis(axis, order):
    m = moving_children()
    h = htr.bvh_to_htr(m, bone_axis=axis, order=order)
    assert h.euler_orders == [order] * 4 and h.record.bone_length_axis == axis
    assert_same_world(m, h)
    unit = np.eye(3)["XYZ".index(axis)]
    assert h.record.drawn_lengths == {}  # every BoneLength is the bone the skeleton holds
    lengths = dict(zip(h.skeleton.names, htr.bone_lengths(h)))
    # a's bone points at b (its first child), b's and c's at their End Sites, the root's at a
    np.testing.assert_allclose(h.skeleton.offsets[1], lengths["root"] * unit, atol=1e-12)
    np.testing.assert_allclose(h.skeleton.offsets[2], lengths["a"] * unit, atol=1e-12)
    np.testing.assert_allclose(h.skeleton.end_site_offsets, [lengths["b"] * unit, lengths["c"] * unit], atol=1e-12)
    assert lengths["a"] == pytest.approx(np.linalg.norm([5, 0, 1]))
    # SF: the bone child's distance over the bone length, 1 for bones ending at an End Site
    np.testing.assert_allclose(h.scales[:, 1], np.linalg.norm(m.translations[:, 2], axis=1) / lengths["a"])
    np.testing.assert_array_equal(h.scales[:, 2:], 1.0)
    assert np.ptp(h.scales[:, 1]) > 0.1


def test_rebased_rotations_follow_equation_4_9():
    """N_n = (O_{n-1} ... O_0)^-1 R_n (O_0 ... O_n): the frame rotation and base rotation merged, with
    O the base rotations and R_n the BVH rotation; ours is R0_n @ R_n' (base, then frame)."""
    m = random_motion(frames=20, seed=9)
    h = htr.bvh_to_htr(m, order="ZYX")
    base = h.skeleton.rest_rotations
    for n in range(4):
        chain = []
        j = n
        while j >= 0:
            chain.insert(0, j)
            j = m.skeleton.parents[j]
        above = np.eye(3)
        for i in chain[:-1]:
            above = above @ base[i]
        expected = np.linalg.inv(above) @ m.local_rotation(n) @ (above @ base[n])
        np.testing.assert_allclose(base[n] @ h.local_rotation(n), expected, atol=1e-12)


def test_identity_rest_keeps_angles_where_frames_do_not_change():
    m = random_motion(frames=10, seed=2)
    again = rebase.identity_rest(m)
    assert again.skeleton.rest_rotations is None
    np.testing.assert_array_equal(again.euler, m.euler)
    np.testing.assert_array_equal(again.translations, m.translations)


def test_htr_with_sf_to_bvh_and_back(tmp_path):
    """The sample's SF != 1 frames: joints where they were in the BVH, the HTR rebuilt from it."""
    m = core.read(write(tmp_path, SAMPLE, "t.htr"))
    assert np.ptp(m.scales) > 0.1
    core.write(m, tmp_path / "t.bvh")
    b = core.read(tmp_path / "t.bvh")
    assert b.skeleton.rest_rotations is None and b.skeleton.channels[2] == ("Zrotation", "Xrotation", "Yrotation")
    assert "Yposition" in b.skeleton.channels[1]  # the Chest moves
    assert_same_world(m, b)  # the Head's End Site: SF 1 there
    assert_same_world(b, htr.htr_to_bvh(m))
    core.write(b, tmp_path / "again.htr")
    h = core.read(tmp_path / "again.htr")
    assert_same_world(m, h)
    np.testing.assert_allclose(h.skeleton.offsets[1:], [[0, 12, 0], [0, 30.008332, 0]], atol=1e-6)
    # the segments' own SF comes back from the children's distances (Head: End Site, SF 1)
    np.testing.assert_allclose(h.scales[:, 0], [1, 13.2 / 12, 10.8 / 12], atol=1e-6)


def test_bvh_with_moving_children_round_trips_through_htr_files(tmp_path):
    m = moving_children(frames=60)
    core.write(m, tmp_path / "t.htr")
    h = core.read(tmp_path / "t.htr")
    assert np.ptp(h.scales) > 0.1
    assert_same_world(m, h)
    core.write(h, tmp_path / "t.bvh")
    assert_same_world(m, core.read(tmp_path / "t.bvh"))
    core.write(m, tmp_path / "t.gtr")
    assert_same_world(m, core.read(tmp_path / "t.gtr"), end_sites=False)


@needs_corpus
def test_corpus_htr_quirks():
    rows = manifest("htr")
    assert [r["path"] for r in rows if r["expect"] == "ok"] == ["htr/animal3d-egnaro/egnaro_skel_anim.htr"]
    m = core.read(EGNARO)
    assert m.skeleton.joint_count == 89 and m.frame_count == 81 and m.fps == 24.0
    assert m.record.first_frame == 0  # frames numbered from 0
    assert htr.bone_lengths(m)[m.skeleton.index("L_lowerShoulder")] == -34.352683  # negative bone lengths kept
    # 58 of the 70 segments with children are drawn at another length than their child's offset
    assert len(m.record.drawn_lengths) == 58 and len(set(m.skeleton.parents) - {-1}) == 70
    assert m.record.calibration_units == "mm" and m.euler_orders[0] == "ZYX"
    end = m.skeleton.end_site_parents.tolist().index(m.skeleton.index("L_toe"))
    np.testing.assert_array_equal(m.skeleton.end_site_offsets[end], [0, 0.333333, 0])
    assert np.isfinite(m.world_positions()).all()


@needs_corpus
def test_corpus_htr_supports_the_default_euler_reading():
    """The evidence for euler_reading="product": egnaro's base pose (a character built symmetric,
    mirrored left-side joints) is mirror-symmetric across x = 0 to the file's 6 decimals only when
    EulerRotationOrder ZYX reads as Rz @ Ry @ Rx."""

    def asymmetry(motion):
        rest = motion.skeleton.rest_world()[1]
        names = motion.skeleton.names
        right = [names.index(n) for n in names if n.startswith("R_")]
        left = [names.index("L_" + names[j][2:]) for j in right]
        return np.abs(rest[right] * [-1, 1, 1] - rest[left]).max()

    assert asymmetry(core.read(EGNARO)) < 0.01
    assert asymmetry(core.read(EGNARO, euler_reading="applied")) > 100


@needs_corpus
def test_corpus_htr_writes_back_line_for_line(tmp_path):
    for reading in htr.READINGS:
        core.write(core.read(EGNARO, euler_reading=reading), tmp_path / "again.htr")

        def lines(path):
            return [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]

        assert lines(tmp_path / "again.htr") == lines(EGNARO)


@needs_corpus
def test_corpus_htr_to_bvh_and_back(tmp_path):
    m = core.read(EGNARO)
    core.write(m, tmp_path / "e.bvh")
    b = core.read(tmp_path / "e.bvh")
    assert_same_world(m, b)
    core.write(b, tmp_path / "e.htr")
    assert_same_world(m, core.read(tmp_path / "e.htr"))
    core.write(m, tmp_path / "e.gtr")
    assert_same_world(m, core.read(tmp_path / "e.gtr"), end_sites=False)


@needs_corpus
@pytest.mark.parametrize("name", BVH_FILES)
def test_corpus_bvh_to_htr_and_back(name, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the files with more rows than frames: read them all
        m = core.read(CORPUS / name, strict=False)
    core.write(m, tmp_path / "t.htr")
    h = core.read(tmp_path / "t.htr")
    assert_same_world(m, h, end_sites=False)
    core.write(h, tmp_path / "t.bvh")
    b = core.read(tmp_path / "t.bvh")
    assert_same_world(m, b, end_sites=False)
    # End Sites: HTR keeps one tip per segment without children (a bone length), so a BVH End
    # Site comes back when it is the only one of its joint and not at the joint itself
    s = m.skeleton
    kept = [
        e
        for e, j in enumerate(s.end_site_parents)
        if list(s.end_site_parents).count(j) == 1 and s.end_site_offsets[e].any()
    ]
    assert len(b.skeleton.end_site_parents) == len(kept)
    np.testing.assert_allclose(b.end_site_positions(), m.end_site_positions()[:, kept], atol=1e-6 * height(m), rtol=0)
