"""BVH writer: layouts, precision, round trips and atomic writes."""

import os

import numpy as np
import pytest

from bvh_samples import SIMPLE, random_motion, read_text
from mocap_io import core
from mocap_io.core.formats.bvh.writer import _frame_time


def test_round_trip_to_printed_precision(tmp_path):
    m = read_text(tmp_path, SIMPLE)
    core.write(m, tmp_path / "out.bvh")
    back = core.read(tmp_path / "out.bvh")
    assert back.skeleton.names == m.skeleton.names
    assert back.skeleton.channels == m.skeleton.channels
    assert back.fps == m.fps and back.euler_orders == m.euler_orders
    np.testing.assert_allclose(back.euler, m.euler, atol=np.radians(5e-7))
    np.testing.assert_allclose(back.translations, m.translations, atol=5e-7)
    np.testing.assert_allclose(back.skeleton.end_site_offsets, m.skeleton.end_site_offsets)
    text = (tmp_path / "out.bvh").read_text()
    assert "\tJOINT Chest\n\t{\n\t\tOFFSET 0.000000 10.000000 0.000000\n" in text
    assert "Frame Time: 0.0333333\n1.000000 2.000000 3.000000 0.000000" in text


def test_generated_layout_and_round_trip(tmp_path):
    m = random_motion()
    core.write(m, tmp_path / "m.bvh", precision=9)
    back = core.read(tmp_path / "m.bvh")
    assert back.skeleton.channels[0] == ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
    assert back.skeleton.channels[2] == ("Yrotation", "Zrotation", "Xrotation")
    np.testing.assert_allclose(back.world_positions(), m.world_positions(), atol=1e-6)
    np.testing.assert_allclose(back.end_site_positions(), m.end_site_positions(), atol=1e-6)


@pytest.mark.parametrize("order", ["XYZ", "ZXY", "YXZ"])
def test_rotation_order_conversion_keeps_the_pose(tmp_path, order):
    m = random_motion()
    core.write(m, tmp_path / "m.bvh", rotation_order=order, precision=8)
    back = core.read(tmp_path / "m.bvh")
    assert back.euler_orders == [order] * 4
    np.testing.assert_allclose(back.world_positions(), m.world_positions(), atol=1e-5)


@pytest.mark.parametrize("order", ["XYZ", "YXZ"])
def test_converted_angles_are_unwrapped(tmp_path, order):
    """A joint spinning twice about its axis keeps turning smoothly: no 360-degree jumps."""
    m = random_motion(frames=73)
    m.euler[:] = 0
    m.euler[:, 1, 2] = np.radians(np.arange(73) * 10.0)  # joint "a" (YZX): Y-spin over 720 degrees
    core.write(m, tmp_path / "m.bvh", rotation_order=order)
    back = core.read(tmp_path / "m.bvh")
    assert np.abs(np.diff(back.euler, axis=0)).max() < np.radians(20)
    np.testing.assert_allclose(back.world_positions(), m.world_positions(), atol=1e-4)


@pytest.mark.parametrize("joints, expected", [("all", [6, 6, 6, 6]), ("root", [6, 3, 3, 3]), (["b"], [6, 3, 6, 3])])
def test_position_joints(tmp_path, joints, expected):
    """The moving root keeps its position channels whatever is asked: nothing is lost."""
    m = random_motion()
    core.write(m, tmp_path / "m.bvh", position_joints=joints)
    back = core.read(tmp_path / "m.bvh")
    assert [len(c) for c in back.skeleton.channels] == expected
    np.testing.assert_allclose(back.world_positions(), m.world_positions(), atol=1e-4)


def test_add_convention_round_trip(tmp_path):
    m = random_motion()
    core.write(m, tmp_path / "m.bvh", positions="add", position_joints="all")
    back = core.read(tmp_path / "m.bvh", positions="add")
    np.testing.assert_allclose(back.translations, m.translations, atol=1e-6)
    assert "1.000000 2.000000 3.000000" in (tmp_path / "m.bvh").read_text()  # End Site kept


def test_missing_channels_are_added_rather_than_losing_data(tmp_path):
    text = SIMPLE.replace("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 1 Zrotation")
    text = text.replace("0 0 0 0 0 0\n", "0 0 0 0\n").replace("90 0 0 0 0 90", "90 0 0 30")
    m = read_text(tmp_path, text)
    core.write(m, tmp_path / "same.bvh")
    assert core.read(tmp_path / "same.bvh").skeleton.channels[1] == ("Zrotation",)
    m.euler[1, 1, 2] = 0.5  # now the joint turns about Y too
    m.translations[1, 1] = [1, 2, 3]
    core.write(m, tmp_path / "more.bvh")
    back = core.read(tmp_path / "more.bvh")
    assert back.skeleton.channels[1] == ("Zrotation", "Xrotation", "Yrotation", "Xposition", "Yposition", "Zposition")
    np.testing.assert_allclose(back.world_positions(), m.world_positions(), atol=1e-5)


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    m = random_motion()
    target = tmp_path / "m.bvh"
    target.write_text("old")
    m.euler[3, 2, 1] = np.nan
    with pytest.raises(ValueError):
        core.write(m, target)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["m.bvh"]


def test_frame_time_text():
    assert _frame_time(1 / 0.0333333) == "0.0333333"
    for fps in (30.0, 120.0, 30000 / 1001, 24000 / 1001, 59.94):
        text = _frame_time(fps)
        assert abs(1 / float(text) - fps) <= 2 * np.spacing(fps) and len(text) <= 20  # exact where a decimal exists


def test_zero_frames_and_unknown_extension(tmp_path):
    m = random_motion(frames=0)
    core.write(m, tmp_path / "z.bvh")
    assert core.read(tmp_path / "z.bvh").frame_count == 0
    with pytest.raises(ValueError, match="cannot write '.xyz'"):
        core.write(m, tmp_path / "z.xyz")


def test_written_files_get_ordinary_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        core.write(random_motion(), tmp_path / "new.bvh")
    finally:
        os.umask(old)
    assert (tmp_path / "new.bvh").stat().st_mode & 0o777 == 0o644
    os.chmod(tmp_path / "new.bvh", 0o600)
    core.write(random_motion(), tmp_path / "new.bvh")
    assert (tmp_path / "new.bvh").stat().st_mode & 0o777 == 0o600
