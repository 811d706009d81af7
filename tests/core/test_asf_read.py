"""ASF/AMC reading: the forward kinematics against the formula of "Motion Data" written out
independently (row vectors, tests/asf_samples.py), axis angles in any order against matrices
written out by hand, the API (a skeleton alone, motions sharing it, the .asf found
beside an .amc), units, and every error named with its file, line and what was expected."""

import re
import warnings

import numpy as np
import pytest

import asf_samples as sample
from mocap_io import core
from mocap_io.core.errors import FileNote, FileWarning
from mocap_io.core.formats import asf


@pytest.fixture
def files(tmp_path):
    """The sample ASF (CRLF line ends) and an AMC of 7 frames numbered from 5."""
    (tmp_path / "s.asf").write_bytes(sample.ASF.replace("\n", "\r\n").encode())
    values = sample.amc_values(7)
    (tmp_path / "s.amc").write_text(sample.amc_text(values, first=5))
    return tmp_path, values


def read(*args, **options):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*unknown section ':skin'")
        return core.read(*args, **options)


def test_world_positions_are_the_bone_starts_of_the_acclaim_definition(files):
    folder, values = files
    motion = read(folder / "s.asf", motion=folder / "s.amc")
    assert motion.skeleton.names == ["root", "spine", "child", "tip"]  # the child was written first
    positions = motion.world_positions()
    for frame in range(motion.frame_count):
        for bone, expected in sample.acclaim_positions(values, frame).items():
            np.testing.assert_allclose(positions[frame, motion.skeleton.index(bone)], expected, rtol=0, atol=1e-12)


def turn(axis, degrees):
    """The (3, 3) rotation about a coordinate axis (column vectors), written out."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    return {
        "X": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
        "Y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
        "Z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
    }[axis]


def test_axis_angles_pair_with_the_order_letters_the_first_applied_first(tmp_path):
    """`axis 10 20 30 ZYX` turns 10 degrees about Z, then 20 about Y, then 30 about X: C = Rx(30) @
    Ry(20) @ Rz(10) (amc2bvh's and DFKI anim_utils' reading); the root's orientation with its axis
    alike. The joint frame of a bone is its axis frame C."""
    (tmp_path / "o.asf").write_text(sample.ORDERED_AXES)
    skeleton = asf.read_asf(tmp_path / "o.asf")
    frames = skeleton.rest_world()[0]
    root = turn("X", 60) @ turn("Z", -25) @ turn("Y", 40)  # axis YZX, orientation 40 -25 60
    bone = turn("X", 30) @ turn("Y", 20) @ turn("Z", 10)
    np.testing.assert_allclose(frames[0], root, rtol=0, atol=1e-15)
    np.testing.assert_allclose(frames[1], bone, rtol=0, atol=1e-15)
    np.testing.assert_allclose(bone[:, 0], [0.925417, 0.318796, -0.204874], atol=1e-6)  # x turned, by hand
    np.testing.assert_allclose(skeleton.rest_rotations[1], root.T @ bone, rtol=0, atol=1e-15)
    other = turn("X", 10) @ turn("Y", 20) @ turn("Z", 30)  # the angles taken as x, y, z instead
    assert np.abs(frames[1] - other).max() > 0.3


def test_each_leaf_bone_ends_in_an_end_site_at_its_tip(files):
    folder, values = files
    motion = read(folder / "s.amc")
    skeleton = motion.skeleton
    assert list(skeleton.end_site_parents) == [skeleton.index("tip")]
    rest = read(folder / "s.asf")
    rest_ends = skeleton.rest_world()[1][3] + skeleton.rest_world()[0][3] @ skeleton.end_site_offsets[0]
    np.testing.assert_allclose(
        rest_ends - skeleton.rest_world()[1][3], np.multiply(*sample.BONES["tip"][:2]), atol=1e-12
    )
    assert rest.frame_count == 0
    tips = motion.end_site_positions()[:, 0]
    for frame in range(motion.frame_count):  # the tip's end: its start plus its direction * length, turned
        start = sample.acclaim_positions(values, frame)["tip"]
        assert np.linalg.norm(tips[frame] - start) == pytest.approx(1.5, abs=1e-12)


def test_the_model_keeps_the_file_layout(files):
    folder, _ = files
    skeleton = read(folder / "s.asf").skeleton
    assert skeleton.channels == [sample.DOFS["root"], sample.DOFS["spine"], sample.DOFS["child"], ()]
    record = skeleton.record
    assert isinstance(record, asf.AsfRecord)
    assert (record.version, record.name, record.units) == (
        "1.10",
        "sample",
        {"mass": "1.0", "length": "0.45", "angle": "deg"},
    )
    assert record.documentation == ("   first line of the notes", "   # kept as written")
    assert (record.root_axis_order, record.position, record.orientation) == ("ZYX", (1.0, 2.0, 3.0), (10.0, 20.0, 30.0))
    child = record.bones["child"]
    assert (child.id, child.axis, child.axis_order) == ("2", (5.0, -10.0, 15.0), "YZX")
    assert child.limits == ((-np.inf, np.inf), (-10.0, 10.0), (0.0, 1.0))
    assert record.bones["spine"].extras == (("bodymass", "3.5"),)
    assert record.bones["tip"].id is None


def test_an_asf_alone_is_a_motion_of_no_frames_in_the_rest_pose(files):
    folder, _ = files
    motion = read(folder / "s.asf")
    assert motion.frame_count == 0 and motion.fps == 120.0
    assert motion.world_positions().shape == (0, 4, 3)
    rest = motion.skeleton.rest_world()[1]
    np.testing.assert_allclose(rest[0], [1, 2, 3])
    np.testing.assert_allclose(rest[2] - rest[1], np.multiply(*sample.BONES["spine"][:2]), atol=1e-12)


def test_several_amc_files_share_one_skeleton(files):
    folder, values = files
    (folder / "other.amc").write_text(sample.amc_text(sample.amc_values(3, seed=1)))
    first, second = read(folder / "s.asf", motion=[folder / "s.amc", folder / "other.amc"])
    assert first.skeleton is second.skeleton and (first.frame_count, second.frame_count) == (7, 3)
    third = read(folder / "other.amc", skeleton=first.skeleton)
    assert third.skeleton is first.skeleton
    np.testing.assert_array_equal(third.euler, second.euler)
    with pytest.warns(UserWarning, match="unknown section"):
        again = asf.read_amc(folder / "s.amc", asf.read_asf(folder / "s.asf"))
    np.testing.assert_array_equal(again.world_positions(), first.world_positions())


def test_an_amc_finds_its_asf(files, tmp_path):
    folder, _ = files
    alone = read(folder / "s.amc")
    assert alone.frame_count == 7
    (folder / "s_walk.asf").write_bytes((folder / "s.asf").read_bytes().replace(b"length 5", b"length 6"))
    (folder / "s_walk_01.amc").write_bytes((folder / "s.amc").read_bytes())
    longest = read(folder / "s_walk_01.amc")  # the longest name that begins the AMC's
    assert longest.skeleton.record.bones["spine"].length == 6
    assert read(folder / "s.amc").skeleton.record.bones["spine"].length == 5
    (folder / "x.amc").write_bytes((folder / "s.amc").read_bytes())
    with pytest.raises(ValueError, match=r"x\.amc: 2 \.asf files in .* could be its skeleton \(s\.asf, s_walk\.asf\)"):
        read(folder / "x.amc")
    assert read(folder / "x.amc", skeleton=folder / "s_walk.asf").frame_count == 7
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (lonely / "x.amc").write_bytes((folder / "s.amc").read_bytes())
    with pytest.raises(FileNotFoundError, match=r"the skeleton of .*x\.amc \(no \.asf file in its folder\)") as caught:
        read(lonely / "x.amc")
    assert caught.value.filename == str(lonely / "*.asf")  # the rule for every missing companion: test_companions.py


def test_options_that_do_not_apply_are_refused(files):
    folder, _ = files
    with pytest.raises(ValueError, match="an .amc takes skeleton="):
        read(folder / "s.amc", motion=folder / "s.amc")
    with pytest.raises(ValueError, match="an .asf takes motion="):
        read(folder / "s.asf", skeleton=folder / "s.asf")
    skeleton = read(folder / "s.asf").skeleton
    with pytest.raises(ValueError, match="metres=True applies to an .asf read here"):
        read(folder / "s.amc", skeleton=skeleton, metres=True)
    with pytest.raises(ValueError, match="needs the Skeleton of an ASF"):
        asf.read_amc(folder / "s.amc", core.Skeleton(["root"], [-1], [[0, 0, 0]]))


def test_metres_take_the_cmu_unit_of_one_inch_over_the_length_multiplier(files):
    folder, values = files
    metres = read(folder / "s.amc", metres=True)
    units = read(folder / "s.amc")
    assert metres.skeleton.record.metres_per_unit == pytest.approx(0.0254 / 0.45)
    np.testing.assert_allclose(metres.world_positions(), units.world_positions() * 0.0254 / 0.45, atol=1e-14)
    expected = sample.acclaim_positions(values, 3, scale=0.0254 / 0.45)
    np.testing.assert_allclose(metres.world_positions()[3, 2], expected["child"], atol=1e-14)


def test_radians_in_the_asf_and_the_amc(files):
    folder, values = files
    text = sample.ASF.replace("angle deg", "angle rad")
    for number in ("10 20 30", "5 -10 15", "30 0 -45", "0 90 0"):
        text = text.replace(number, " ".join(repr(float(np.radians(float(v)))) for v in number.split()))
    (folder / "r.asf").write_text(text)
    radians = {bone: v.copy() for bone, v in values.items()}
    for bone, dofs in sample.DOFS.items():
        for k, dof in enumerate(dofs):
            if dof[0] in "rR":
                radians[bone][:, k] = np.radians(values[bone][:, k])
    (folder / "r.amc").write_text(sample.amc_text(radians, header=":FULLY-SPECIFIED\n:RADIANS\n"))
    (folder / "d.amc").write_text(sample.amc_text(values, header=":DEGREES\n"))
    degrees = read(folder / "s.asf", motion=folder / "s.amc").world_positions()
    np.testing.assert_allclose(read(folder / "r.asf", motion=folder / "r.amc").world_positions(), degrees, atol=1e-12)
    # the AMC's :DEGREES wins over the ASF's unit, which is the default for an AMC without one
    np.testing.assert_allclose(read(folder / "r.asf", motion=folder / "d.amc").world_positions(), degrees, atol=1e-12)
    (folder / "plain.amc").write_text(sample.amc_text(radians, header=""))
    np.testing.assert_allclose(
        read(folder / "r.asf", motion=folder / "plain.amc").world_positions(), degrees, atol=1e-12
    )


def test_the_rate_is_120_unless_the_file_or_the_caller_gives_one(files):
    folder, values = files
    assert read(folder / "s.amc").fps == 120.0
    (folder / "s.amc").write_text(
        sample.amc_text(values, header=":SAMPLES-PER-SECOND 29.97\n:FULLY-SPECIFIED\n:DEGREES")
    )
    assert read(folder / "s.amc").fps == 29.97
    assert read(folder / "s.amc", fps=60).fps == 60.0


def test_frames_listing_bones_in_any_order_read_the_same(files):
    folder, values = files
    regular = read(folder / "s.amc")
    text = sample.amc_text(values, order=["child", "root", "spine"]).split("\n")
    text[4:7] = [text[5], text[6], text[4]]  # the first frame in yet another order
    (folder / "s.amc").write_text("\n".join(text))
    np.testing.assert_array_equal(read(folder / "s.amc").euler, regular.euler)
    np.testing.assert_array_equal(read(folder / "s.amc").translations, regular.translations)


def test_a_bone_missing_from_a_frame_is_an_error_unless_filled_from_the_previous_frame(files):
    folder, values = files
    lines = sample.amc_text(values).split("\n")
    del lines[4 + 3 * 4 + 2]  # frame 4 (the line after its number, root, spine): child
    (folder / "s.amc").write_text("\n".join(lines))
    with pytest.raises(core.ParseError, match="this frame has no line for bone 'child' \\(fill_missing=True") as info:
        read(folder / "s.amc")
    assert info.value.line == 4 + 3 * 4  # the frame number's line
    filled = read(folder / "s.amc", fill_missing=True)
    np.testing.assert_array_equal(filled.euler[3, 2], filled.euler[2, 2])
    np.testing.assert_array_equal(
        filled.euler[4, 2], read(folder / "s.asf", motion=_rewritten(folder, values)).euler[4, 2]
    )


def _rewritten(folder, values):
    (folder / "full.amc").write_text(sample.amc_text(values))
    return folder / "full.amc"


def test_a_cut_off_last_frame_is_an_error_naming_its_line(files):
    folder, values = files
    text = sample.amc_text(values)
    (folder / "s.amc").write_text(text[: text.rindex("\nspine")])
    with pytest.raises(core.ParseError, match="this frame has no line for bone 'spine'") as info:
        read(folder / "s.amc")
    assert info.value.line == 4 + 6 * 4
    (folder / "s.amc").write_text(text[: text.rindex(" ")])
    with pytest.raises(
        core.ParseError, match=r"bone 'child' has 3 dofs \(rz rx l\): expected 3 values, found 2"
    ) as info:
        read(folder / "s.amc")
    assert info.value.line == 4 + 6 * 4 + 3


AMC_ERRORS = [  # (line to change: from, to), message, line
    (("spine ", "spline "), r"expected a bone name, found 'spline'", 6),
    (("child ", "child 1 "), r"bone 'child' has 3 dofs \(rz rx l\): expected 3 values, found 4", 7),
    (("\n2\n", "\n2.5\n"), r"expected frame 2 after frame 1, found 2.5", 8),
    (("\n2\n", "\n3\n"), r"expected frame 2 after frame 1, found 3", 8),
    (("\n2\n", "\n2 7\n"), r"expected the frame number alone on its line", 8),
    (("FIRST", "nan"), r"expected a finite number, found 'nan'", 5),
    (("FIRST", "1e999"), r"expected a finite number, found '1e999'", 5),
    (("FIRST", "0x1"), r"expected a finite number, found '0x1'", 5),
    ((":DEGREES", ":DEGREES\nroot 1 2 3 4 5 6"), r"expected a frame number \(alone on its line\), found 'root 1 2", 4),
    ((":DEGREES", ":SAMPLES-PER-SECOND -3"), r"expected a positive number after :SAMPLES-PER-SECOND", 3),
]


@pytest.mark.parametrize("change, message, line", AMC_ERRORS)
def test_amc_errors_name_the_line_and_what_was_expected(files, change, message, line):
    folder, values = files
    text = sample.amc_text(values)
    first = text.split("\nroot ")[1].split()[0]  # the first value of the first frame
    text = text.replace(f"\nroot {first} ", "\nroot FIRST ", 1)
    assert change[0] in text
    (folder / "s.amc").write_text(text.replace(change[0], change[1], 1).replace("FIRST", first))
    with pytest.raises(core.ParseError, match=message) as info:
        read(folder / "s.amc")
    assert info.value.line == line and "s.amc" in str(info.value)


def test_a_second_line_for_a_bone_in_one_frame(files):
    folder, values = files
    text = sample.amc_text(values)
    second = text.index("\n2\n")
    (folder / "s.amc").write_text(text[:second] + "\nchild 1 2 3" + text[second:])
    with pytest.raises(core.ParseError, match="second line for bone 'child' in this frame") as info:
        read(folder / "s.amc")
    assert info.value.line == 8


def test_frames_that_all_repeat_or_leave_out_a_bone(files):
    folder, values = files
    text = sample.amc_text(values)
    (folder / "s.amc").write_text(re.sub(r"(child [^\n]*\n)", r"\1\1", text))
    with pytest.raises(core.ParseError, match="second line for bone 'child' in this frame") as info:
        read(folder / "s.amc")
    assert info.value.line == 8
    (folder / "s.amc").write_text(re.sub(r"child [^\n]*\n", "", text))
    with pytest.raises(core.ParseError, match="this frame has no line for bone 'child'$") as info:
        read(folder / "s.amc", fill_missing=True)
    assert info.value.line == 4


ASF_ERRORS = [  # (from, to), message, line
    (("    spine child\n", "    spine chlid\n"), r"unknown bone 'chlid' in the hierarchy \(not in :bonedata\)", 47),
    (("    root spine\n", "    rot spine\n"), r"unknown bone 'rot' in the hierarchy", 46),
    (("    child tip\n", "    child tip\n    tip spine\n"), r"bone 'spine' has a parent already \(on line 46\)", 49),
    (("    root spine\n", "    root\n    tip spine\n"), r"cyclic hierarchy: child -> spine -> tip -> child \(each", 48),
    (("     name spine", "     name child"), r"duplicate bone name 'child' \(first defined on line 19\)", 30),
    (("\tname\ttip", "\tname\troot"), r"duplicate bone name 'root' \(the root\)", 38),
    (("    spine child\n", "    spine child root\n"), r"the root cannot be a child in the hierarchy", 47),
    (("     length 2\n", "     length 2x\n"), r"expected 1 number after 'length', found '2x'", 21),
    (("direction 0 0 1", "direction 0 0 inf"), r"expected 3 numbers after 'direction', found '0 0 inf'", 20),
    (("     length 2\n", "     length 1e999\n"), r"expected 1 number after 'length', found '1e999'", 21),
    (("(0 1)", "(0 1) (2 3)"), r"bone 'child': expected 3 limit pairs \(one per dof\), found 4", 24),
    (("(0 1)", "(0 x)"), r"expected a number or inf in the limits, found 'x'", 26),
    (("dof rz rx l", "dof rz rx rz"), r"dof 'rz' listed twice", 23),
    (("dof rz rx l", "dof rz rw"), r"expected dofs \(tx ty tz rx ry rz l\) after 'dof', found 'rw'", 23),
    (("order RZ TX", "order RZ L TX"), r"expected dofs \(tx ty tz rx ry rz\) after 'order', found 'L'", 12),
    (("axis ZYX", "axis ZYY"), r"expected an axis order \(such as XYZ\) after 'axis'", 13),
    (("axis 5 -10 15 YZX", "axis 5 -10 YZX"), r"expected 3 numbers after 'axis', found '5 -10'", 22),
    (
        ("axis 5 -10 15 YZX", "axis 5 -10 15 YZZ"),
        r"expected an axis order \(such as XYZ\) after the angles, found 'YZZ'",
        22,
    ),
    (("angle deg", "angle grad"), r"expected 'deg' or 'rad' after 'angle', found 'grad'", 7),
    (("length 0.45", "length 0"), r"expected a positive length multiplier, found '0'", 6),
    (("length 0.45", "length"), r"expected a value after 'length' in :units", 6),
    (("     name child\n", ""), r"the bone begun on line 17 has no name", 26),
    (("     length 5\n", ""), r"bone 'spine' has no length", 35),
    (
        ("  end\n  begin\n\tname", "  begin\n\tname"),
        r"expected 'end' closing the bone begun on line 28, found 'begin'",
        36,
    ),
    (("  end\n:skin", ":skin"), r"expected 'end' closing the bone begun on line 37, found ':skin'", 42),
    ((":hierarchy\n  begin\n", ":hierarchy\n"), r"expected 'begin' after :hierarchy, found 'root'", 45),
    (("    child tip\n  end\n", "    child tip\n"), r"expected 'end' closing the :hierarchy, file ends", 49),
    (("    child tip\n", ""), r"bone 'tip' is not in the :hierarchy", 37),
    ((":root\n", ":root\n:root\n"), r"second :root section \(the first is on line 11\)", 12),
    (
        ("# hand-written sample\n", "hand-written sample\n"),
        r"expected a keyword such as :version or :bonedata, found 'hand-written'",
        1,
    ),
    (("  begin\n     id 2", "  bgein\n     id 2"), r"expected 'begin' starting a bone, found 'bgein'", 17),
    (("0 0 1\n     length 2\n", "0 0 1e10\n     length 1e10\n"), r"bone 'child': direction \* length is 1e\+20", 21),
]


@pytest.mark.parametrize("change, message, line", ASF_ERRORS)
def test_asf_errors_name_the_line_and_what_was_expected(tmp_path, change, message, line):
    assert change[0] in sample.ASF
    (tmp_path / "s.asf").write_text(sample.ASF.replace(change[0], change[1], 1))
    with pytest.raises(core.ParseError, match=message) as info:
        read(tmp_path / "s.asf")
    assert info.value.line == line and "s.asf" in str(info.value)


def test_a_file_without_a_root_section(tmp_path):
    (tmp_path / "s.asf").write_text(":version 1.10\n:bonedata\n")
    with pytest.raises(core.ParseError, match="expected a :root section"):
        read(tmp_path / "s.asf")


def test_unknown_sections_and_entries_are_skipped_with_a_warning(tmp_path):
    text = sample.ASF.replace("   position 1 2 3", "   position 1 2 3\n   pivot 0 0 0")
    (tmp_path / "s.asf").write_text(text.replace("bodymass 3.5", "bodymass 3.5\n     colour red"))
    with pytest.warns(UserWarning) as caught:
        skeleton = asf.read_asf(tmp_path / "s.asf")
    assert [str(w.message).split(": ", 1)[1] for w in caught] == [
        "unknown :root entry 'pivot' skipped",
        "unknown bone entry 'colour' kept",
        "unknown section ':skin' skipped",
    ]
    assert [w.category for w in caught] == [FileWarning, FileNote, FileWarning]  # kept: nothing is lost
    assert skeleton.record.bones["spine"].extras == (("bodymass", "3.5"), ("colour", "red"))


def test_latin1_names_mixed_line_ends_and_a_byte_order_mark(tmp_path):
    text = sample.ASF.replace("child", "kn\xf6chel")
    (tmp_path / "s.asf").write_bytes(b"\xef\xbb\xbf" + text.encode("latin-1").replace(b"\n", b"\r\n", 20))
    values = sample.amc_values(3)
    values["kn\xf6chel"] = values.pop("child")
    amc = sample.amc_text(values).encode("latin-1").replace(b"\nroot", b"\r\nroot")
    (tmp_path / "s.amc").write_bytes(b"# f\xfcr\n" + amc)
    motion = read(tmp_path / "s.amc")
    assert motion.skeleton.names[2] == "kn\xf6chel" and motion.frame_count == 3
    assert motion.euler_orders[2] == "XZY"  # dof rz rx: rx applied last, so first in the order
    np.testing.assert_allclose(motion.euler[:, 2, 1], np.radians(values["kn\xf6chel"][:, 0]))


def test_frames_of_bones_without_dofs_are_bounded_by_the_file_size(tmp_path):
    bones = "".join(f"  begin\n name b{i}\n direction 0 1 0\n length 1\n  end\n" for i in range(3000))
    chain = " ".join(f"b{i}" for i in range(3000))
    (tmp_path / "s.asf").write_text(f":root\n:bonedata\n{bones}:hierarchy\n begin\n root {chain}\n end\n")
    (tmp_path / "s.amc").write_text("".join(f"{i}\n" for i in range(1, 300_001)))
    with pytest.raises(core.ParseError, match="300000 frames x 3001 bones would take 41212 MiB from a file of 1.9 MiB"):
        read(tmp_path / "s.amc")
