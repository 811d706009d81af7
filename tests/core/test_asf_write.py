"""ASF/AMC writing: ASF -> ASF keeps every value as read; any Motion converts (axes and dofs from the
data, bridge bones where children start apart) with world joint positions kept to 1e-6 of the
height, also through BVH; writers refuse what the format cannot hold and replace the pair together."""

import os
import warnings

import numpy as np
import pytest

import asf_samples as sample
from bvh_samples import SIMPLE, random_motion, read_text
from mocap_io import core
from mocap_io.core import rebase
from motion_checks import assert_failed_pair_write_keeps_both, assert_same_world, height
from sample_motion import cmu_like_motion


@pytest.fixture
def motion(tmp_path):
    """The sample ASF with 9 frames of motion (every kind of dof)."""
    (tmp_path / "s.asf").write_text(sample.ASF)
    (tmp_path / "s.amc").write_text(sample.amc_text(sample.amc_values(9)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unknown :skin section
        return core.read(tmp_path / "s.amc")


def same_joints(original, converted):
    """World positions of `converted` at the joints of `original` (by name; the root is the root)."""
    index = [0] + [converted.skeleton.index(n) for n in original.skeleton.names[1:]]
    return converted.world_positions()[:, index]


def test_asf_to_asf_keeps_every_value_as_read(motion, tmp_path):
    core.write(motion, tmp_path / "out.asf")
    again = core.read(tmp_path / "out.asf", motion=tmp_path / "out.amc")
    assert again.skeleton.record == motion.skeleton.record  # units, axes and orders, limits, notes, ids...
    assert again.skeleton.names == motion.skeleton.names and again.skeleton.channels == motion.skeleton.channels
    np.testing.assert_allclose(again.euler, motion.euler, rtol=0, atol=np.radians(0.5e-6))
    np.testing.assert_allclose(again.translations, motion.translations, rtol=0, atol=1e-5)
    assert_same_world(again, motion, end_sites=False)
    core.write(again, tmp_path / "twice.asf")  # a second generation is the same text
    assert (tmp_path / "twice.asf").read_bytes() == (tmp_path / "out.asf").read_bytes()
    assert (tmp_path / "twice.amc").read_bytes() == (tmp_path / "out.amc").read_bytes()


def test_what_the_asf_written_says(motion, tmp_path):
    core.write(motion, tmp_path / "out.asf")
    text = (tmp_path / "out.asf").read_text()
    assert ":units\n  mass 1.0\n  length 0.45\n  angle deg\n" in text
    assert ":documentation\n   first line of the notes\n   # kept as written\n:root\n" in text
    assert "   order RZ TX TY TZ RX RY\n   axis ZYX\n   position 1 2 3\n   orientation 10 20 30\n" in text
    assert "     axis 5 -10 15 YZX\n     dof rz rx l\n     limits (-inf inf)\n            (-10 10)\n" in text
    assert (
        "     bodymass 3.5\n" in text
        and ":hierarchy\n  begin\n    root spine\n    spine child\n    child tip\n" in text
    )
    amc = (tmp_path / "out.amc").read_text().splitlines()
    assert amc[:3] == [":FULLY-SPECIFIED", ":DEGREES", "1"] and amc[4].startswith("spine ")


def test_axis_angles_in_any_order_are_written_paired_with_its_letters(tmp_path):
    (tmp_path / "o.asf").write_text(sample.ORDERED_AXES)
    still = core.read(tmp_path / "o.asf")
    core.write(still, tmp_path / "kept.asf", amc=False)
    text = (tmp_path / "kept.asf").read_text()
    assert "   axis YZX\n" in text and "   orientation 40 -25 60\n" in text and "     axis 10 20 30 ZYX\n" in text
    record = still.skeleton.record  # angles that no longer give the axes: the writer computes them
    record.orientation, record.bones["bone"].axis = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    core.write(still, tmp_path / "computed.asf", amc=False)
    again = core.read(tmp_path / "computed.asf").skeleton
    assert (again.record.root_axis_order, again.record.bones["bone"].axis_order) == ("YZX", "ZYX")
    np.testing.assert_allclose(again.record.orientation, (40, -25, 60), rtol=0, atol=1e-12)
    np.testing.assert_allclose(again.record.bones["bone"].axis, (10, 20, 30), rtol=0, atol=1e-12)
    np.testing.assert_allclose(again.rest_world()[0], still.skeleton.rest_world()[0], rtol=0, atol=1e-15)


def test_metres_are_written_back_in_the_file_units(motion, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metres = core.read(tmp_path / "s.amc", metres=True)
    core.write(metres, tmp_path / "out.asf")
    again = core.read(tmp_path / "out.amc")
    assert again.skeleton.record.bones == motion.skeleton.record.bones
    np.testing.assert_allclose(again.world_positions(), motion.world_positions(), atol=1e-5)


def test_radians_stay_radians(tmp_path):
    skeleton_text = sample.ASF.replace("angle deg", "angle rad").replace(":skin whatever.obj\n", "")
    (tmp_path / "r.asf").write_text(skeleton_text)
    (tmp_path / "r.amc").write_text(sample.amc_text(sample.amc_values(4), header=":RADIANS"))
    motion = core.read(tmp_path / "r.amc")
    core.write(motion, tmp_path / "out.asf", precision=9)
    assert (tmp_path / "out.amc").read_text().startswith(":FULLY-SPECIFIED\n:RADIANS\n1\n")
    np.testing.assert_allclose(core.read(tmp_path / "out.amc").euler, motion.euler, atol=1e-9)


@pytest.mark.parametrize("make", [random_motion, lambda: cmu_like_motion(core, 40)], ids=["random", "cmu-like"])
def test_any_motion_converts_with_its_joint_positions(make, tmp_path):
    original = make()
    core.write(original, tmp_path / "c.asf")
    converted = core.read(tmp_path / "c.amc")
    assert converted.skeleton.names[0] == "root" and converted.fps == original.fps
    scale = height(original)
    np.testing.assert_allclose(same_joints(original, converted), original.world_positions(), atol=1e-6 * scale)
    ends = converted.end_site_positions()
    for e in original.end_site_positions().transpose(1, 0, 2):  # every End Site is some bone's tip
        assert np.min([np.abs(e - ends[:, k]).max() for k in range(ends.shape[1])]) < 1e-6 * scale
    core.write(converted, tmp_path / "back.bvh")
    back = core.read(tmp_path / "back.bvh")
    np.testing.assert_allclose(same_joints(original, back), original.world_positions(), atol=1e-6 * scale)


def test_axes_and_dofs_are_chosen_from_the_data(tmp_path):
    original = random_motion()
    original.euler[:, 2] = 0.0  # b never turns
    original.euler[:, 3, 1] = 0.0  # c never turns about its middle axis (Y of ZYX)
    core.write(original, tmp_path / "c.asf")
    skeleton = core.read(tmp_path / "c.asf").skeleton
    assert skeleton.channels[skeleton.index("b")] == ()
    assert skeleton.channels[skeleton.index("c")] == ("rx", "rz")  # ZYX is X first
    assert skeleton.channels[skeleton.index("a")] == ("rz", "ry", "rx")  # XYZ is Z first
    assert skeleton.channels[0] == ("TX", "TY", "TZ", "RY", "RX", "RZ")  # ZXY is Y first
    text = (tmp_path / "c.asf").read_text()
    assert "     name a_offset\n     direction 0 1 0\n     length 10\n     axis 0 0 0 XYZ\n  end\n" in text


def test_children_apart_hang_from_bridge_bones(tmp_path):
    original = random_motion()  # the root's child a is 10 away; a's children b and c start apart
    core.write(original, tmp_path / "c.asf")
    skeleton = core.read(tmp_path / "c.asf").skeleton
    assert skeleton.names == ["root", "a_offset", "a", "b", "c_offset", "c"]
    assert skeleton.channels[1] == skeleton.channels[4] == ()
    text = (tmp_path / "c.asf").read_text()
    assert "    root a_offset\n    a_offset a\n    a b c_offset\n    c_offset c\n" in text
    assert "     name c_offset\n     direction -1 0 0\n     length 10\n" in text  # from b's start to c's


def test_asf_converts_to_bvh_and_back(motion, tmp_path):
    core.write(motion, tmp_path / "s.bvh")
    bvh = core.read(tmp_path / "s.bvh")
    assert bvh.skeleton.names == motion.skeleton.names and bvh.skeleton.rest_rotations is None
    assert_same_world(bvh, motion)
    core.write(bvh, tmp_path / "back.asf")
    back = core.read(tmp_path / "back.amc")
    assert back.skeleton.names == motion.skeleton.names  # every child already starts at its parent's end
    assert_same_world(back, motion, end_sites=False)


def test_an_amc_alone_for_an_asf_written_before(motion, tmp_path):
    core.write(motion, tmp_path / "a.asf", amc=False)
    assert sorted(os.listdir(tmp_path)) == ["a.asf", "s.amc", "s.asf"]
    core.write(motion, tmp_path / "take.amc", first_frame=0)
    assert (tmp_path / "take.amc").read_text().split("\n")[2] == "0"
    again = core.read(tmp_path / "take.amc", skeleton=tmp_path / "a.asf")
    np.testing.assert_allclose(again.world_positions(), motion.world_positions(), atol=1e-5)
    core.write(motion, tmp_path / "b.asf", amc=tmp_path / "b_take.amc")
    assert core.read(tmp_path / "b_take.amc").frame_count == 9


def test_a_rate_other_than_120_is_written(tmp_path):
    original = random_motion()
    original.fps = 29.97
    core.write(original, tmp_path / "r.asf")
    assert (tmp_path / "r.amc").read_text().startswith(":SAMPLES-PER-SECOND 29.97\n:FULLY-SPECIFIED\n")
    assert core.read(tmp_path / "r.amc").fps == 29.97


def test_the_rate_a_bvh_frame_time_stands_for(tmp_path):
    bvh = read_text(tmp_path, SIMPLE)  # Frame Time: 0.0333333
    assert bvh.fps == 1 / 0.0333333
    core.write(bvh, tmp_path / "s.asf")
    assert (tmp_path / "s.amc").read_text().startswith(":SAMPLES-PER-SECOND 30\n")
    assert core.read(tmp_path / "s.amc").fps == 30.0


def test_a_skeleton_alone_writes_an_asf_and_an_empty_amc(motion, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        still = core.read(tmp_path / "s.asf")
    core.write(still, tmp_path / "still.asf")
    assert (tmp_path / "still.amc").read_text() == ":FULLY-SPECIFIED\n:DEGREES\n"
    assert core.read(tmp_path / "still.amc").frame_count == 0
    assert core.read(tmp_path / "still.asf").skeleton.record == still.skeleton.record


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.skeleton.names.__setitem__(2, "left arm"), "joint name 'left arm' cannot be written to ASF"),
        (lambda m: m.skeleton.names.__setitem__(2, "root"), "joint name 'root' cannot be written to ASF"),
        (lambda m: m.skeleton.names.__setitem__(2, "12"), "joint name '12' cannot be written to ASF"),
        (lambda m: m.skeleton.names.__setitem__(2, "#2"), "joint name '#2' cannot be written to ASF"),
        (lambda m: m.euler.__setitem__((3, 2, 0), np.nan), "rotation 1 of joint 'b' at frame 3 is nan"),
        (lambda m: m.translations.__setitem__((0, 0, 1), np.inf), "translation Y of joint 'root' at frame 0 is inf"),
        (lambda m: setattr(m, "scales", np.full((30, 4), 2.0)), "ASF/AMC cannot hold joint scales"),
        (lambda m: m.skeleton.parents.__setitem__(1, -1), "an ASF has one root; this skeleton has 2"),
    ],
)
def test_writers_refuse_what_the_format_cannot_hold(tmp_path, change, message):
    original = random_motion()
    change(original)
    with pytest.raises(ValueError, match=message):
        core.write(original, tmp_path / "out.asf")
    assert os.listdir(tmp_path) == []  # refused before anything was opened


def test_a_failed_pair_write_leaves_both_old_files(tmp_path, monkeypatch):
    core.write(random_motion(), tmp_path / "a.asf")
    assert_failed_pair_write_keeps_both(
        monkeypatch,
        [tmp_path / "a.asf", tmp_path / "a.amc"],
        lambda: core.write(random_motion(frames=50, seed=3), tmp_path / "a.asf"),
        failing=1,
    )


def test_identity_rest_keeps_world_positions_and_end_sites(motion):
    flat = rebase.identity_rest(motion)
    assert flat.skeleton.rest_rotations is None and flat.euler_orders == motion.euler_orders
    np.testing.assert_allclose(flat.world_positions(), motion.world_positions(), atol=1e-12)
    np.testing.assert_allclose(flat.end_site_positions(), motion.end_site_positions(), atol=1e-12)
