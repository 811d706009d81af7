"""BVH reader: every layout real files use, and clear errors for bad input."""

import numpy as np
import pytest

from bvh_samples import SIMPLE, random_motion, read_text
from mocap_io import core


def test_simple_file(tmp_path):
    m = read_text(tmp_path, SIMPLE)
    s = m.skeleton
    assert s.names == ["Hips", "Chest"]
    assert s.parents.tolist() == [-1, 0]
    assert s.channels[0] == ("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")
    assert m.euler_orders == ["ZXY", "ZXY"]
    assert m.frame_count == 2
    assert m.fps == 1 / 0.0333333  # exactly 1 / Frame Time as read
    np.testing.assert_array_equal(s.end_site_parents, [1])
    np.testing.assert_array_equal(s.end_site_offsets, [[0, 5, 0]])
    np.testing.assert_allclose(np.degrees(m.euler[1]), [[90, 0, 0], [0, 0, 90]])
    np.testing.assert_array_equal(m.translations[:, 0], [[1, 2, 3], [4, 5, 6]])  # channels replace OFFSET
    np.testing.assert_array_equal(m.translations[:, 1], [[0, 10, 0], [0, 10, 0]])
    # frame 1: root turned 90 deg about Z, so the chest offset (0,10,0) points along -X
    np.testing.assert_allclose(m.world_positions()[1], [[4, 5, 6], [-6, 5, 6]], atol=1e-12)
    # End Site: chest turned 90 about Y (no effect on a Y offset) under the root's Z turn
    np.testing.assert_allclose(m.end_site_positions()[1], [[-11, 5, 6]], atol=1e-12)


def test_positions_add_follows_the_seeds(tmp_path):
    m = read_text(tmp_path, SIMPLE, positions="add")
    np.testing.assert_array_equal(m.translations[:, 0], [[2, 4, 6], [5, 7, 9]])


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_whitespace_case_and_exponents(tmp_path, newline):
    text = SIMPLE.replace("HIERARCHY", "hierarchy").replace("End Site", "end  SITE").replace("JOINT", "Joint")
    text = text.replace("\t", " \t  ").replace("1 2 3 0", "1e0\t 2.0E+00 3 0").replace("MOTION", "motion")
    text = text.replace("Frames: 2", "FRAMES:\t2").replace("Frame Time:", "frame time:")
    text = (text.rstrip("\n") + "\n\n\n").replace("\n", newline)
    m = read_text(tmp_path, text)
    assert m.frame_count == 2 and m.skeleton.names == ["Hips", "Chest"]
    np.testing.assert_array_equal(m.translations[0, 0], [1, 2, 3])


def test_no_final_newline_and_bom(tmp_path):
    m = read_text(tmp_path, b"\xef\xbb\xbf" + SIMPLE.rstrip("\n").encode())
    assert m.frame_count == 2


def test_any_channel_order_and_partial_rotations(tmp_path):
    text = """HIERARCHY
ROOT a
{
OFFSET 0 0 0
CHANNELS 5 Yrotation Zposition Xrotation Xposition Zrotation
JOINT b
{
OFFSET 1 0 0
CHANNELS 1 Xrotation
JOINT c
{
OFFSET 1 0 0
CHANNELS 0
}
}
}
MOTION
Frames: 1
Frame Time: 0.01
10 20 30 40 50 60
"""
    m = read_text(tmp_path, text)
    assert m.euler_orders == ["YXZ", "XYZ", "XYZ"]
    np.testing.assert_allclose(np.degrees(m.euler[0]), [[10, 30, 50], [60, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(m.translations[0, 0], [40, 0, 20])
    assert m.skeleton.channels[2] == ()
    assert len(m.skeleton.end_site_parents) == 0  # leaves without End Site are fine


@pytest.mark.parametrize(
    "layouts",
    [
        # (channels of the root, of each other joint): rotation columns stepping evenly (read as a view
        # of the table) or not (gathered)
        ("Xposition Yposition Zposition Zrotation Xrotation Yrotation", "Zrotation Xrotation Yrotation"),
        ("Xposition Yposition Zposition Zrotation Xrotation Yrotation",) * 2,
        ("Zrotation Xrotation Yrotation Xposition Yposition Zposition",) * 2,
        ("Zrotation Xrotation Yrotation", "Yrotation Xrotation Zrotation"),
        ("Zrotation Xrotation Yrotation Xposition Yposition Zposition", "Zrotation Xrotation Yrotation"),
        ("Xposition Yposition Zposition Zrotation Xrotation Yrotation", "Xrotation Yrotation Zrotation"),
    ],
)
def test_euler_angles_whatever_the_column_layout(tmp_path, layouts):
    root, other = layouts[0], layouts[-1]
    channels = [root.split(), other.split(), other.split()]
    joints = "".join(f"JOINT {n}\n{{\nOFFSET 0 1 0\nCHANNELS {len(channels[1])} {other}\n" for n in "bc") + "}\n" * 2
    text = f"HIERARCHY\nROOT a\n{{\nOFFSET 0 0 0\nCHANNELS {len(channels[0])} {root}\n{joints}}}\nMOTION\n"
    values = np.round(np.random.default_rng(0).uniform(-180, 180, (4, sum(map(len, channels)))), 3)
    text += "Frames: 4\nFrame Time: 0.01\n" + "\n".join(" ".join(f"{v:.3f}" for v in row) for row in values) + "\n"
    m = read_text(tmp_path, text)
    column = 0
    for j, names_j in enumerate(channels):
        for name in names_j:
            if name.endswith("rotation"):
                slot = m.euler_orders[j].index(name[0])
                np.testing.assert_array_equal(m.euler[:, j, slot], np.radians(values[:, column]))
            else:
                np.testing.assert_array_equal(m.translations[:, j, "XYZ".index(name[0])], values[:, column])
            column += 1
    translations = m.translations.copy()
    m.euler[:] = 0  # the angles are the Motion's own to change, whichever way they were read
    np.testing.assert_array_equal(m.translations, translations)


def test_several_roots_names_with_spaces_and_latin1(tmp_path):
    text = (
        "HIERARCHY\nROOT Left Arm:1\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition Zposition\n}\n"
        "ROOT caf\xe9 {\nOFFSET 1 1 1\nCHANNELS 3 Zrotation Yrotation Xrotation\n}\n"
        "MOTION\nFrames: 1\nFrame Time: 0.5\n1 2 3 0 0 90\n"
    )
    m = read_text(tmp_path, text)
    assert m.skeleton.names == ["Left Arm:1", "caf\xe9"]
    assert m.skeleton.parents.tolist() == [-1, -1]
    np.testing.assert_allclose(m.world_positions()[0], [[1, 2, 3], [1, 1, 1]])


def test_zero_frames(tmp_path):
    m = read_text(tmp_path, SIMPLE.split("Frames")[0] + "Frames: 0\nFrame Time: 0.1\n")
    assert m.frame_count == 0 and m.world_positions().shape == (0, 2, 3)


def error(tmp_path, text, **options):
    with pytest.raises(core.ParseError) as info:
        read_text(tmp_path, text, **options)
    message = str(info.value)
    assert str(tmp_path / "t.bvh") in message
    return info.value


def test_truncated_motion_is_an_error_by_default_and_readable_leniently(tmp_path):
    text = SIMPLE.replace("Frames: 2", "Frames: 5")
    e = error(tmp_path, text)
    assert e.line == 21 and "file ends after 2 of the 5 frames" in str(e)
    with pytest.warns(UserWarning, match="reading the 2 present"):
        m = read_text(tmp_path, text, strict=False)
    assert m.frame_count == 2


def test_extra_rows_and_cut_last_row(tmp_path):
    e = error(tmp_path, SIMPLE.replace("Frames: 2", "Frames: 1"))
    assert e.line == 20 and "frame 2 found" in str(e)
    cut = SIMPLE[: SIMPLE.rindex(" 0 0 90")] + "\n"  # file cut in the middle of the last row
    e = error(tmp_path, cut)
    assert e.line == 20 and "expected 9 values" in str(e) and "found 6" in str(e)
    with pytest.warns(UserWarning):
        assert read_text(tmp_path, cut, strict=False).frame_count == 1


@pytest.mark.parametrize(
    "bad, line, what",
    [
        ("4 5 6 90 0 0 0 0 90 7", 20, "expected 9 values in this frame line, found 10"),
        ("4 5 6 90 0 x 0 0 90", 20, "value 6: expected a finite number, found 'x'"),
        ("4 5 6 90 0 nan 0 0 90", 20, "value 6: expected a finite number, found 'nan'"),
        ("4 5 6 90 0 1e999 0 0 90", 20, "expected a finite number"),
    ],
)
def test_bad_rows(tmp_path, bad, line, what):
    e = error(tmp_path, SIMPLE.replace("4 5 6 90 0 0 0 0 90", bad))
    assert e.line == line and what in str(e)


@pytest.mark.parametrize(
    "change, line, what",
    [
        (("\t}\n}\nMOTION", "\t}\nMOTION"), 15, "expected '}' closing joint 'Hips' (opened on line 2) before MOTION"),
        (("\t}\n}\nMOTION", "\t}\n}\n}\nMOTION"), 16, "expected ROOT or MOTION, found '}'"),
        (("JOINT Chest", "JOINT Hips"), 6, "duplicate joint name 'Hips' (first defined on line 2)"),
        (("OFFSET 1 2 3", "OFFSET 1 2"), 5, "expected 3 numbers after OFFSET, found 'CHANNELS'"),
        (("CHANNELS 3 Zrotation", "CHANNELS 3 Zrotaton"), 9, "expected a channel name"),
        (
            ("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 2 Zrotation Xrotation Yrotation"),
            9,
            "found 'Yrotation'",
        ),
        (("Frames: 2", "Frames: two"), 17, "expected 'Frames: <count>'"),
        (("Frame Time: 0.0333333", "Frame Time: 0"), 18, "expected 'Frame Time: <seconds>'"),
        (("HIERARCHY", "HIERARCHIE"), 1, "expected 'HIERARCHY'"),
        (("MOTION", "MOTON"), 16, "expected ROOT or MOTION, found 'MOTON'"),
    ],
)
def test_hierarchy_errors(tmp_path, change, line, what):
    e = error(tmp_path, SIMPLE.replace(*change))
    assert e.line == line, str(e)
    assert what in str(e)


def test_no_motion_section(tmp_path):
    e = error(tmp_path, SIMPLE.split("MOTION")[0])
    assert "expected MOTION" in str(e) and e.line is not None


def test_huge_frame_count_fails_fast_without_allocating(tmp_path):
    e = error(tmp_path, SIMPLE.replace("Frames: 2", "Frames: 1000000000000"))
    assert "file ends after 2 of the 1000000000000 frames" in str(e)
    no_channels = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 1000000000000\nFrame Time: 1\n"
    assert "only 1 lines follow" in str(error(tmp_path, no_channels))


@pytest.mark.parametrize("data", [b"", b"\n \n", bytes(range(256)) * 4, b"\x00" * 100, b"HIERARCHY\n"])
def test_empty_and_garbage(tmp_path, data):
    e = error(tmp_path, data)
    assert e.line is not None


def test_fuzzed_prefixes_raise_only_parse_errors(tmp_path):
    """Every prefix of a valid file is either readable or a ParseError with a line number."""
    data = SIMPLE.encode()
    for end in range(len(data)):
        try:
            read_text(tmp_path, data[:end])
        except core.ParseError as e:
            assert e.line is not None


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
@pytest.mark.parametrize("head", ["short", "long"])
def test_a_table_past_the_files_start_is_read_by_the_parsing_threads(tmp_path, monkeypatch, newline, head):
    """The header from the file's first bytes and the table read a chunk at a time from the file
    (never all in memory): the same Motion as a whole-file read, for LF and CRLF files, and a header
    longer than those first bytes (then the whole file is read)."""
    from mocap_io.core import numtext
    from mocap_io.core.formats.bvh import reader

    path = tmp_path / "take.bvh"
    core.write(random_motion(frames=400, seed=3), path)
    path.write_bytes(path.read_bytes().replace(b"\n", newline))
    whole = core.read(path)
    data = path.read_bytes()
    table = data.index(b"\n", data.index(b"Frame Time")) + 1
    monkeypatch.setattr(reader, "_HEAD", table + 10 if head == "short" else table // 2)
    monkeypatch.setattr(numtext, "_CHUNK", (3000, 3000))
    read = []
    monkeypatch.setattr(
        reader, "parse_table", lambda block, *a, **k: read.append(block) or numtext.parse_table(block, *a, **k)
    )
    streamed = core.read(path)
    assert isinstance(read[0], bytes) == (head == "long")
    for name in ("euler", "translations"):
        assert np.array_equal(getattr(streamed, name).view(np.int64), getattr(whole, name).view(np.int64))
    assert streamed.fps == whole.fps and streamed.skeleton.names == whole.skeleton.names
    middle = table + (len(data) - table) // 2
    for other in (data[: len(data) - 300], data[:middle] + data[middle:].replace(newline, b"\r", 1)):
        path.write_bytes(other)  # a cut last row (an error), a lone CR in the table (a line end)
        outcomes = []
        for first in (table + 10 if head == "short" else table // 2, 1 << 20):
            monkeypatch.setattr(reader, "_HEAD", first)
            try:
                outcomes.append(core.read(path).euler.tobytes())
            except core.ParseError as error:
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1]
