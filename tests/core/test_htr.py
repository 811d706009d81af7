"""HTR/GTR reader and writer: values against Meredith and Maddock's equations ("Motion Capture File
Formats Explained", section 3.2) computed independently, the
writer's round trip exact to the printed precision, every error with its message and line."""

import itertools
import re
import warnings

import numpy as np
import pytest

from bvh_samples import write
from htr_samples import SAMPLE, SEGMENTS, transforms_by_equations
from mocap_io import core
from mocap_io.core.errors import FileWarning
from mocap_io.core.formats import htr


def read_text(tmp_path, text, name="t.htr", **options):
    return core.read(write(tmp_path, text, name), **options)


def test_reads_the_sample_as_the_equations_compute_it(tmp_path):
    m = read_text(tmp_path, SAMPLE)
    assert m.skeleton.names == ["Hips", "Chest", "Head"]  # parents first; Chest was listed before Hips
    assert list(m.skeleton.parents) == [-1, 0, 1]
    assert m.fps == 30.0 and m.frame_count == 3 and m.euler_orders == ["ZXY"] * 3
    worlds, tips = transforms_by_equations(SEGMENTS, "ZXY")
    names = m.skeleton.names
    expected = np.array([[worlds[n][f] for n in names] for f in range(3)])
    world = m.world_matrices()
    np.testing.assert_allclose(m.world_positions(), expected[..., :3, 3], atol=1e-12)
    lengths = htr.bone_lengths(m)
    np.testing.assert_array_equal(lengths, [12, 30, 20])  # BoneLengths: the children's offsets, the End Site
    assert m.record.drawn_lengths == {}  # all held by the skeleton
    ours = np.einsum("fjab,jb->fja", world, np.stack([0 * lengths, lengths, 0 * lengths, 1 + 0 * lengths], 1))
    np.testing.assert_allclose(ours[..., :3], [[tips[n][f] for n in names] for f in range(3)], atol=1e-12)
    np.testing.assert_allclose(m.end_site_positions()[:, 0], [tips["Head"][f] for f in range(3)], atol=1e-12)
    assert list(m.skeleton.end_site_parents) == [2]  # the one leaf
    np.testing.assert_array_equal(m.scales[:, 1], [1, 1.05, 0.95])
    assert [names[j] for j in m.record.file_order] == ["Chest", "Hips", "Head"] and m.record.first_frame == 1
    assert m.record.calibration_units == "cm" and htr.metres_per_unit(m.record.calibration_units) == 0.01
    assert m.record.up_axis == "Y" and m.record.scale_factor == 1.0 and m.record.file_type == "htr"
    assert m.record.header[3] == ("numsegments", "3") and len(m.record.header) == 12  # as written
    assert m.skeleton.channels[0][:3] == ("Xposition", "Yposition", "Zposition")
    assert m.skeleton.channels[1] == ("Zrotation", "Xrotation", "Yrotation")


def test_sf_sizes_the_segment_not_its_children():
    """Evidence from Meredith and Maddock's example file (their figure 3.5, frames 1 and 2): a segment's SF is
    its child's translation over its BoneLength, so the child already sits where the scaled bone
    ends; scaling the children as well would move the Head 12 mm off the Neck's tip."""
    neck = [0, 379.566772, 0, 32.855431, -5.194619, 1.823337, 141.966263]
    head = [0.000003, 141.966248, 0.000002, -37.745777, -8.179454, 6.203664, 80.000046]
    segments = {
        "Neck": (
            None,
            neck,
            [
                [0.000000, -12.073059, 0.000010, 0.396232, -0.246686, -4.863737, 1.079219],
                [-0.000002, -12.097473, -0.000004, 0.425361, -0.269309, -4.636292, 1.081428],
            ],
        ),
        "Head": (
            "Neck",
            head,
            [
                [-0.000004, 11.246399, -0.000001, -8.720660, -3.164685, 6.637906, 1.000000],
                [-0.000005, 11.559982, -0.000003, -8.967685, -3.106098, 6.445398, 0.999999],
            ],
        ),
    }
    worlds, tips = transforms_by_equations(segments, "ZYX")
    for f in range(2):
        np.testing.assert_allclose(tips["Neck"][f], worlds["Head"][f][:3, 3], atol=1e-4)
        inherited = worlds["Neck"][f][:3, 3] + segments["Neck"][2][f][6] * (worlds["Head"][f][:3, 3] - tips["Neck"][f])
        inherited += segments["Neck"][2][f][6] * (tips["Neck"][f] - worlds["Neck"][f][:3, 3])
        assert np.linalg.norm(inherited - worlds["Head"][f][:3, 3]) > 10
    chest_length, chest_sf = 379.566803, [0.968192, 0.968128]  # the Chest's, from the Neck's translation
    for f in range(2):
        assert (neck[1] + segments["Neck"][2][f][1]) / chest_length == pytest.approx(chest_sf[f], abs=1e-6)


def test_crlf_tabs_spaces_case_and_comments_anywhere(tmp_path):
    m = read_text(tmp_path, SAMPLE)
    variant = SAMPLE.replace("[Header]", "[HEADER]").replace("[Chest]", "[chest]").replace("\t", "  ")
    variant = variant.replace("EulerRotationOrder ZXY", "eulerrotationorder zxy # the order").replace("\n", "\r\n")
    again = read_text(tmp_path, variant)
    assert again.skeleton.names == m.skeleton.names
    np.testing.assert_array_equal(again.world_positions(), m.world_positions())


def test_byte_order_mark_cr_line_ends_and_latin1_names(tmp_path):
    text = SAMPLE.replace("Head", "T\xeate").replace("[T\xeateer]", "[Header]").replace("\n", "\r")
    m = core.read(write(tmp_path, b"\xef\xbb\xbf" + text.encode("latin-1"), "t.htr"))
    assert m.skeleton.names == ["Hips", "Chest", "T\xeate"] and m.frame_count == 3


def test_names_with_spaces_when_tab_separated(tmp_path):
    text = SAMPLE.replace("Head   Chest", "Left Head\tChest").replace("[Head]", "[Left Head]")
    text = text.replace("Head 0.5", "Left Head 0.5")
    m = read_text(tmp_path, text)
    assert m.skeleton.names[2] == "Left Head"
    core.write(m, tmp_path / "again.htr")
    assert core.read(tmp_path / "again.htr").skeleton.names[2] == "Left Head"


def test_writer_round_trip_is_exact_to_the_printed_precision(tmp_path):
    m = read_text(tmp_path, SAMPLE)
    core.write(m, tmp_path / "again.htr")
    written = (tmp_path / "again.htr").read_text()
    again = core.read(tmp_path / "again.htr")
    assert again.skeleton.names == m.skeleton.names and again.record.file_order == (1, 0, 2)
    for name in ("euler", "translations", "scales"):
        np.testing.assert_allclose(getattr(again, name), getattr(m, name), atol=5e-7, rtol=0)
    np.testing.assert_allclose(again.skeleton.rest_rotations, m.skeleton.rest_rotations, atol=1e-8)
    assert "Hips\t1.000000\t90.000000\t2.000000\t10.000000\t20.000000\t30.000000\t12.000000" in written
    assert "\n2\t0.000000\t1.200000\t0.000000\t45.000000\t0.000000\t-10.000000\t1.050000\n" in written
    assert "numsegments 3\n" in written and "CalibrationUnits cm\n" in written  # the header as written
    assert re.search(r"\[SegmentNames&Hierarchy\]\n#.*\nChest\tHips\nHips\tGLOBAL\nHead\tChest\n", written)


def test_the_writer_takes_base_angles_and_bone_lengths_from_the_model(tmp_path):
    """What the skeleton holds is written from it: base angles from the rest rotations (an angle
    beyond the usual range comes back as its equal: Rz 190 as -170), a leaf's BoneLength from its
    End Site, so an edit of the model is what is written. The record keeps, by joint index, only
    the BoneLengths the skeleton does not give (the Hips' 7: its child Chest sits at 12)."""
    text = SAMPLE.replace("Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0", "Head 0.5 30.0 -0.5 0.0 45.0 190.0 20.0")
    m = read_text(tmp_path, text.replace("30.0\t12.0", "30.0\t7.0"))
    assert m.record.drawn_lengths == {0: 7.0}
    np.testing.assert_array_equal(htr.bone_lengths(m), [7, 30, 20])
    m.skeleton.names[0] = "Pelvis"  # a renamed segment keeps its BoneLength and its place in the file
    m.skeleton.end_site_offsets[0] = [0, 25, 0]  # the Head's End Site
    m.skeleton.rest_rotations[1] = np.eye(3)  # the Chest's base rotation
    core.write(m, tmp_path / "again.htr")
    written = (tmp_path / "again.htr").read_text()
    assert re.search(r"\]\n#.*\nChest\tPelvis\nPelvis\tGLOBAL\nHead\tChest\n", written)
    assert "Pelvis\t1.000000\t90.000000\t2.000000\t10.000000\t20.000000\t30.000000\t7.000000" in written
    assert "Chest\t0.000000\t12.000000\t0.000000\t0.000000\t0.000000\t0.000000\t30.000000" in written
    assert "Head\t0.500000\t30.000000\t-0.500000\t0.000000\t45.000000\t-170.000000\t25.000000" in written


@pytest.mark.parametrize("order", ["".join(p) for p in itertools.permutations("XYZ")])
@pytest.mark.parametrize("reading", htr.READINGS)
def test_every_order_and_reading_round_trips(tmp_path, order, reading):
    text = SAMPLE.replace("EulerRotationOrder ZXY", f"EulerRotationOrder {order}")
    m = read_text(tmp_path, text, euler_reading=reading)
    assert m.euler_orders[0] == (order if reading == "product" else order[::-1])
    worlds, _ = transforms_by_equations(SEGMENTS, order if reading == "product" else order[::-1])
    np.testing.assert_allclose(m.world_positions()[:, 0], [w[:3, 3] for w in worlds["Hips"]], atol=1e-12)
    core.write(m, tmp_path / "again.htr")
    assert f"EulerRotationOrder {order}\n" in (tmp_path / "again.htr").read_text()
    again = core.read(tmp_path / "again.htr", euler_reading=reading)
    np.testing.assert_allclose(again.euler, m.euler, atol=1e-8)
    np.testing.assert_allclose(again.world_positions(), m.world_positions(), atol=1e-5)


def test_header_overrides_convert_angles_and_units(tmp_path):
    m = read_text(tmp_path, SAMPLE)
    core.write(m, tmp_path / "r.htr", precision=9, header={"RotationUnits": "Radians", "EulerRotationOrder": "XYZ"})
    text = (tmp_path / "r.htr").read_text()
    assert "RotationUnits Radians\n" in text and "EulerRotationOrder XYZ\n" in text
    again = core.read(tmp_path / "r.htr")
    assert again.euler_orders == ["XYZ"] * 3
    np.testing.assert_allclose(again.world_positions(), m.world_positions(), atol=1e-6)
    core.write(m, tmp_path / "c.htr", header={"CalibrationUnits": "in", "Producer": "test"})
    again = core.read(tmp_path / "c.htr")
    assert htr.metres_per_unit(again.record.calibration_units) == 0.0254 and ("Producer", "test") in again.record.header
    with pytest.raises(ValueError, match="RotationUnits: expected Degrees or Radians"):
        core.write(m, tmp_path / "x.htr", header={"RotationUnits": "grads"})


def test_frames_numbered_from_zero_and_rates_kept_as_written(tmp_path):
    text = re.sub(r"(?m)^([123])([\t ])", lambda g: f"{int(g[1]) - 1}{g[2]}", SAMPLE)
    text = text.replace("DataFrameRate 30", "DataFrameRate 29.97")
    m = read_text(tmp_path, text)
    assert m.record.first_frame == 0 and m.fps == 29.97
    core.write(m, tmp_path / "again.htr")
    written = (tmp_path / "again.htr").read_text()
    assert "\n0\t0.000000" in written and "DataFrameRate 29.97\n" in written
    m.fps = 24.0
    core.write(m, tmp_path / "again.htr")
    assert "DataFrameRate 24\n" in (tmp_path / "again.htr").read_text()


def test_gtr_every_segment_global(tmp_path):
    m = read_text(tmp_path, SAMPLE)
    core.write(m, tmp_path / "t.gtr")
    text = (tmp_path / "t.gtr").read_text()
    assert "FileType gtr" in text and "SegmentNames" not in text
    g = core.read(tmp_path / "t.gtr")
    assert g.record.file_type == "gtr" and list(g.skeleton.parents) == [-1, -1, -1]
    np.testing.assert_allclose(g.world_positions(), m.world_positions(), atol=1e-5)
    np.testing.assert_allclose(g.world_matrices(), m.world_matrices(), atol=1e-6)
    core.write(g, tmp_path / "again.htr")  # a GTR motion writes as an HTR of global segments
    np.testing.assert_allclose(core.read(tmp_path / "again.htr").world_positions(), g.world_positions(), atol=1e-5)


def test_writer_refuses_what_it_cannot_write(tmp_path):
    m = read_text(tmp_path, SAMPLE)
    m.euler[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match="rotation 1 of segment 'Head' at frame 1 is nan"):
        core.write(m, tmp_path / "x.htr")
    m = read_text(tmp_path, SAMPLE)
    m.scales[2, 0] = np.inf
    with pytest.raises(ValueError, match="SF of segment 'Hips' at frame 2 is inf"):
        core.write(m, tmp_path / "x.htr")
    for bad in ("a#b", "GLOBAL", " Hips", "a]"):
        m = read_text(tmp_path, SAMPLE.replace("Hips", bad.replace("]", "").replace("#", "")))
        m.skeleton.names[0] = bad
        with pytest.raises(ValueError, match="cannot be written to HTR"):
            core.write(m, tmp_path / "x.htr")
    assert not (tmp_path / "x.htr").exists()
    with pytest.raises(ValueError, match="euler_reading"):
        core.read(write(tmp_path, SAMPLE, "t.htr"), euler_reading="left")


def bad(tmp_path, text, message, line, **options):
    with pytest.raises(core.ParseError) as info:
        read_text(tmp_path, text, **options)
    assert message in str(info.value) and "t.htr" in str(info.value)
    assert info.value.line == line, str(info.value)


def line_of(text, piece):
    return text[: text.index(piece)].count("\n") + 1


@pytest.mark.parametrize(
    "old, new, message, where",
    [
        ("[Header]   # keywords in any case\n", "", "expected [Header], found 'FileType htr'", "FileType htr"),
        ("NumFrames 3\n", "", "missing NumFrames in [Header], lines 2-13", "[Header]"),
        ("DataFrameRate 30\n", "", "missing DataFrameRate in [Header], lines 2-13", "[Header]"),
        ("EulerRotationOrder ZXY\n", "", "missing EulerRotationOrder in [Header], lines 2-13", "[Header]"),
        ("numsegments 3\n", "", "missing NumSegments in [Header], lines 2-13", "[Header]"),
        ("NumFrames 3", "NumFrames three", "NumFrames: expected a whole number, found 'three'", "NumFrames three"),
        ("NumFrames 3", "NumFrames 2.5", "NumFrames: expected a whole number, found '2.5'", "NumFrames 2.5"),
        ("DataFrameRate 30", "DataFrameRate 0", "DataFrameRate: expected a positive frame rate", "DataFrameRate 0"),
        ("DataFrameRate 30", "DataFrameRate nan", "DataFrameRate: expected a positive frame rate", "DataFrameRate nan"),
        ("EulerRotationOrder ZXY", "EulerRotationOrder ZXX", "expected a permutation of XYZ", "EulerRotationOrder ZXX"),
        ("RotationUnits Degrees", "RotationUnits grads", "expected Degrees or Radians", "RotationUnits grads"),
        ("BoneLengthAxis Y", "BoneLengthAxis W", "BoneLengthAxis: expected X, Y or Z", "BoneLengthAxis W"),
        ("ScaleFactor 1.000000", "ScaleFactor -1", "ScaleFactor: expected a positive number", "ScaleFactor -1"),
        ("FileType htr", "FileType bvh", "FileType: expected htr or gtr, found 'bvh'", "FileType bvh"),
        ("NumFrames 3", "NumFrames", "expected a value after 'NumFrames'", "NumFrames\n"),
        ("ScaleFactor 1.000000", "ScaleFactor 1\nnumframes 3", "second numframes (first on line 7)", "numframes 3"),
        ("numsegments 3", "numsegments 4", "NumSegments is 4, but the file lists 3 segments", "numsegments 4"),
        (
            "Head   Chest",
            "Head   Chest   x",
            "its parent's (or GLOBAL), found 3",
            "Head   ",
        ),
        ("Head   Chest", "Chest  Hips", "segment 'Chest' listed twice", "Chest  Hips"),
        ("Head   Chest", "Head   Neck", "undefined parent 'Neck' of segment 'Head'", "Head   Neck"),
        (
            "Hips\tGLOBAL",
            "Hips\tHead",
            "cyclic hierarchy: Chest -> Hips -> Head -> Chest (each is the parent",
            "Chest\tHips",
        ),
        (
            "[SegmentNames&Hierarchy]\n#CHILD\tPARENT\nChest\tHips\nHips\tGLOBAL\nHead   Chest\n",
            "",
            "expected [SegmentNames&Hierarchy] before [BasePosition]",
            "[BASEPOSITION]",
        ),
        (
            "[BASEPOSITION]",
            "[Base]",
            "expected [Header], [SegmentNames&Hierarchy] or [BasePosition], found '[Base]'",
            "[Base]",
        ),
        (
            "Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0",
            "Head 0.5 30.0 -0.5 0.0 45.0 0.0",
            "expected a segment name and 7 numbers (Tx Ty Tz Rx Ry Rz BoneLength), found 'Head 0.5",
            "Head 0.5 30.0",
        ),
        (
            "Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0",
            "Head 0.5 30.0 -0.5 0.0 inf 0.0 20.0",
            "expected a segment name and 7 numbers",
            "Head 0.5 30.0",
        ),
        (
            "Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0",
            "Neck 0.5 30.0 -0.5 0.0 45.0 0.0 20.0",
            "base position of unknown segment 'Neck'",
            "Neck 0.5",
        ),
        ("Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0\n", "", "no base position for segment 'Head'", "[BASEPOSITION]"),
        (
            "Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0",
            "Chest 0 1 2 3 4 5 6",
            "second base position for segment 'Chest' (first on line 24)",
            "Chest 0 1 2 3",
        ),
        ("#Beginning of Data\n[Hips]", "#Beginning of Data\n[EndOfFile]\n[Hips]", "no [Hips] block", "[EndOfFile]"),
        ("[Head]", "[Neck]", "block [Neck] is not a segment of the hierarchy", "[Neck]"),
        ("[Head]", "[Chest]", "second block for segment 'Chest' (first on line", "[Chest]\n#Fr"),
        ("[Head]", "[Head", "expected ']' closing the segment name, found '[Head'", "[Head\n"),
        (
            "3 0 -1.2 0 -45 30 10 0.95",
            "3 0 -1.2 0 -45 30 10",
            "expected 8 values in this frame line, found 7",
            "3 0 -1.2 0 -45 30 10 ",
        ),
        (
            "3 0 -1.2 0 -45 30 10 0.95",
            "3 0 -1.2 0 -45 nan 10 0.95",
            "value 6: expected a finite number, found 'nan'",
            "3 0 -1.2 0 -45 nan",
        ),
        ("3 0 -1.2 0 -45 30 10 0.95", "", "block [Chest] ends after 2 of the 3 frames declared", "[Head]"),
        (
            "3 0 -1.2 0 -45 30 10 0.95",
            "3 0 -1.2 0 -45 30 10 0.95\n4 0 0 0 0 0 0 1",
            "frame 4 found, but only 3 frames were declared",
            "4 0 0 0 0",
        ),
        (
            "3 0 -1.2 0 -45 30 10 0.95",
            "4 0 -1.2 0 -45 30 10 0.95",
            "frame number 4 in block [Chest], expected 3 (frames are numbered from 1, as in the first block)",
            "4 0 -1.2",
        ),
        (
            "1\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\t1.0",
            "1.5\t0.0\t0.0\t0.0\t0.0\t0.0\t0.0\t1.0",
            "frame number 1.5 in block [Hips]: expected a whole number",
            "1.5\t",
        ),
        (
            "2\t1.5\t-2.0",
            "5\t1.5\t-2.0",
            "number 5 in block [Hips], expected 2 (frames are numbered consecutively)",
            "5\t1.5",
        ),
    ],
)
def test_errors_name_the_line_and_what_was_expected(tmp_path, old, new, message, where):
    assert old in SAMPLE
    text = SAMPLE.replace(old, new, 1)
    line = None if where is None else line_of(text, where)
    bad(tmp_path, text, message, line)


def test_empty_and_truncated_files(tmp_path):
    bad(tmp_path, "", "file ends, expected [BasePosition]", 1)
    bad(tmp_path, SAMPLE[: SAMPLE.index("[BASEPOSITION]")], "file ends, expected [BasePosition]", 21)
    bad(tmp_path, "[Header]\n[Header]\n", "second [header] section (first on line 1)", 2)
    bad(tmp_path, "[BasePosition]\n", "expected [Header] before [baseposition]", 1)
    text = SAMPLE[: SAMPLE.index("3 0 0 0 -5")]
    bad(tmp_path, text, "block [Head] ends after 2 of the 3 frames declared", line_of(text, "2 0 0 0 5") + 1)


def test_lenient_reads_the_rows_present(tmp_path):
    text = SAMPLE.replace("3 0 -1.2 0 -45 30 10 0.95", "")
    with pytest.warns(UserWarning) as caught:
        m = read_text(tmp_path, text, strict=False)
    assert m.frame_count == 2
    assert any("ends after 2 of the 3" in str(w.message) for w in caught)
    assert [w.category for w in caught if "cut to 2 frames" in str(w.message)] == [FileWarning]
    assert all(issubclass(w.category, FileWarning) for w in caught)  # each block's FrameCountWarning too
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_text(tmp_path, SAMPLE, strict=False).frame_count == 3


def test_gtr_without_a_hierarchy(tmp_path):
    text = SAMPLE.replace("FileType htr", "FileType GTR")
    text = text.replace("[SegmentNames&Hierarchy]\n#CHILD\tPARENT\nChest\tHips\nHips\tGLOBAL\nHead   Chest\n", "")
    m = read_text(tmp_path, text, name="t.gtr")
    assert m.skeleton.names == ["Hips", "Chest", "Head"] and list(m.skeleton.parents) == [-1, -1, -1]
    assert m.record.file_type == "gtr" and len(m.skeleton.end_site_parents) == 3
    np.testing.assert_allclose(m.world_positions()[:, 1], m.translations[:, 1])
