"""Hostile BVH files (found by mutation): deep nesting, counts without data, non-finite numbers and
bad tokens fail with a ParseError naming the line, and never allocate more than the file can hold."""

import numpy as np
import pytest

from bvh_samples import SIMPLE, read_text
from mocap_io import core


def chain(joints, frames=1, channels="CHANNELS 3 Zrotation Xrotation Yrotation", rows=None):
    """A BVH of `joints` nested joints (each the child of the one before)."""
    lines = ["HIERARCHY", "ROOT j0", "{", "OFFSET 0 0 0", channels]
    for i in range(1, joints):
        lines += [f"JOINT j{i}", "{", "OFFSET 0 1 0", channels]
    lines += ["}"] * joints + ["MOTION", f"Frames: {frames}", "Frame Time: 0.1"]
    columns = int(channels.split()[1]) * joints
    if rows is None:
        rows = [" ".join(["0"] * columns)] * frames
    return "\n".join(lines + rows) + "\n"


def test_a_chain_of_100000_joints_reads_without_recursion(tmp_path):
    motion = read_text(tmp_path, chain(100_000))
    assert motion.skeleton.joint_count == 100_000
    assert motion.skeleton.parents[-1] == 99_998


def test_an_unclosed_deep_chain_names_the_joint(tmp_path):
    text = chain(5000).replace("}\n" * 5000, "}\n" * 4999)
    with pytest.raises(core.ParseError, match=r"closing joint 'j0' \(opened on line 2\) before MOTION"):
        read_text(tmp_path, text)


def test_frames_without_channels_are_bounded_by_the_file_size(tmp_path):
    text = chain(100, frames=1_000_000, channels="CHANNELS 0", rows=[""] * 1_000_000)
    with pytest.raises(core.ParseError, match=r"1000000 frames x 100 joints would take 4578 MiB") as info:
        read_text(tmp_path, text)
    assert info.value.line == 5 + 4 * 99 + 100 + 3 + 1  # the first motion line


def test_a_frame_count_beyond_the_lines_present_is_refused_before_allocating(tmp_path):
    text = chain(100, frames=2, channels="CHANNELS 0", rows=[]).replace("Frames: 2", "Frames: 999999999999")
    with pytest.raises(core.ParseError, match="999999999999 frames declared but only 1 lines follow"):
        read_text(tmp_path, text)


@pytest.mark.parametrize("frame_time", ["1e-320", "4.9e-324"])
def test_a_frame_time_whose_rate_is_infinite_is_refused(tmp_path, frame_time):
    with pytest.raises(core.ParseError, match="frame rate 1 / Frame Time is infinite") as info:
        read_text(tmp_path, SIMPLE.replace("Frame Time: 0.0333333", f"Frame Time: {frame_time}"))
    assert info.value.line == 18


@pytest.mark.parametrize("bad, line", [("OFFSET 1 2 3", 4), ("OFFSET 0 10 0", 8), ("OFFSET 0 5 0", 12)])
@pytest.mark.parametrize("number", ["nan", "inf", "1e400", "1_0", "0x10"])
def test_offsets_must_be_finite_decimals(tmp_path, bad, line, number):
    text = SIMPLE.replace(bad, bad.rsplit(" ", 1)[0] + " " + number)
    with pytest.raises(core.ParseError, match=f"found '{number}'") as info:
        read_text(tmp_path, text)
    assert info.value.line == line


@pytest.mark.parametrize("token", ["1_000", "nan", "-inf", "1e999", "1.2.3", "١", "0x1p3"])
@pytest.mark.parametrize("row", [1, 2])
def test_a_bad_motion_value_names_its_own_line(tmp_path, token, row):
    rows = SIMPLE.split("0.0333333\n")[1].splitlines()
    values = rows[row - 1].split()
    values[4] = token
    rows[row - 1] = " ".join(values)
    text = SIMPLE.split("0.0333333\n")[0] + "0.0333333\n" + "\n".join(rows) + "\n"
    with pytest.raises(core.ParseError) as info:
        core.read(_write(tmp_path, text))
    assert info.value.line == 18 + row and "value 5: expected a finite number" in str(info.value)


def _write(tmp_path, text):
    path = tmp_path / "t.bvh"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("header", ["Frames: 1_0", "Frames: 2.5", "Frames: nan", "Frames: -1"])
def test_the_frame_count_must_be_a_whole_number(tmp_path, header):
    with pytest.raises(core.ParseError, match="expected 'Frames: <count>'") as info:
        read_text(tmp_path, SIMPLE.replace("Frames: 2", header))
    assert info.value.line == 17


def test_the_slow_path_reads_a_good_table_itself():
    """The line-by-line scan never ends in an error without a line: a table it finds no fault in
    is read (no 'could not read the data' at the first line)."""
    from mocap_io.core.numtext import _scan

    table = _scan(b"1e-30 2\n\n3 +4.5e+30\n", 2, "x", 1, True, "frame")
    assert np.array_equal(table, [[1e-30, 2], [3, 4.5e30]])


def test_values_where_no_channels_are_declared_are_an_error(tmp_path):
    text = chain(3, frames=2, channels="CHANNELS 0", rows=["", "1 2 3"])
    with pytest.raises(
        core.ParseError, match=r"expected no values in this frame line \(no channels\), found 3"
    ) as info:
        read_text(tmp_path, text)
    assert info.value.line == 5 + 4 * 2 + 3 + 3 + 2
