"""Hostile numbers in files that otherwise read (issue 28, items 1-4): a C3D of no points is an empty
Markers; every number a reader returns, and what its model computes from them, is finite: a value
beyond errors.LARGEST (or a product of values read beyond it) is refused where it is read, naming
the line or byte; every rate lies within errors.RATES, or the field is named; a missing header
keyword names the section's lines."""

import pathlib
import re
import warnings

import numpy as np
import pytest

from asf_samples import ASF, amc_text
from bvh_samples import SIMPLE
from corpus_files import CORPUS, needs_corpus
from htr_samples import SAMPLE
from mocap_io import core
from mocap_io.core.errors import LARGEST, RATES
from mocap_io.core.markers import Analog, Markers


def read(path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return core.read(path, **options)


def refused(path, match, *, line=None, offset=None, **options):
    """The ParseError of reading `path`, which must match `match` and name `line` or `offset`."""
    with pytest.raises(core.ParseError, match=match) as caught:
        read(path, **options)
    error = caught.value
    assert path.name in str(error) and "\n" not in str(error)
    if line is not None:
        assert error.line == line, str(error)
    if offset is not None:
        assert error.offset == offset, str(error)
    assert error.line is not None or error.offset is not None, str(error)
    return error


def text_file(tmp_path, name, text, old=None, new=None):
    if old is not None:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text)
    return path


def line_of(text, piece):
    return text[: text.index(piece)].count("\n") + 1


def every_number_finite(result):
    """Every array a read model holds or computes (world positions, End Sites, mesh positions)."""
    if isinstance(result, core.Motion):
        arrays = [result.euler, result.translations, result.skeleton.offsets, result.skeleton.end_site_offsets]
        arrays += list(result.world_transforms()) + [result.world_positions(), result.end_site_positions()]
    elif isinstance(result, Markers):
        arrays = [result.positions[result.valid], result.residuals[result.valid]]
    else:
        arrays = [result.positions()]
    return all(np.isfinite(a).all() for a in arrays)


# ---------------------------------------------------------------- 1. a C3D of no points


def c3d_markers(points=3, frames=4, analog=True):
    rng = np.random.default_rng(3)
    positions = rng.normal(0, 100, (frames, points, 3)).astype(np.float32)
    channels = Analog(rng.normal(size=(2 * frames, 2)).astype(np.float32), 200.0, ["Fx", "Fy"]) if analog else None
    return Markers([f"m{i}" for i in range(points)], positions, 100.0, units="mm", analog=channels)


def patched_c3d(tmp_path, markers, group, name, value, dtype):
    """A C3D of `markers` written by our writer, parameter GROUP:NAME set to `value`; and its offset."""
    path = tmp_path / "t.c3d"
    core.write(markers, path)
    at = read(path).parameters[group][name].offset
    data = bytearray(path.read_bytes())
    data[at : at + np.dtype(dtype).itemsize] = np.array(value, dtype).tobytes()
    path.write_bytes(bytes(data))
    return path, at


def test_a_c3d_of_no_points_is_an_empty_markers(tmp_path):
    """An analog-only C3D (force plates, EMG): the record holds analog samples alone."""
    path = tmp_path / "t.c3d"
    written = c3d_markers(points=0)
    core.write(written, path)
    markers = read(path)
    assert markers.positions.shape == (4, 0, 3) and markers.residuals.shape == (4, 0)
    np.testing.assert_array_equal(markers.analog.values, written.analog.values)


def test_point_used_set_to_0_reads_as_no_points(tmp_path):
    """Real tools read POINT:USED 0 as no points (ezc3d, the c3d package); the frames stay as declared."""
    path, _ = patched_c3d(tmp_path, c3d_markers(analog=False), "POINT", "USED", 0, "<i2")
    with pytest.warns(UserWarning, match="POINT:USED 0 and the header's 3 points disagree"):
        markers = core.read(path)
    assert markers.names == [] and markers.positions.shape == (4, 0, 3) and markers.frame_count == 4


def test_frames_of_no_points_are_bounded_by_the_file_size(tmp_path):
    """No points and no analog: the frames hold no bytes, so the count alone says how many (here the
    TRIAL fields' 32-bit count, set to 4294967295): bounded as the arrays a file may make."""
    markers = Markers(["a"], np.zeros((65536, 1, 3), np.float32), 100.0, units="mm")
    path, _ = patched_c3d(tmp_path, markers, "POINT", "USED", 0, "<i2")
    at = read(path).parameters["TRIAL"]["ACTUAL_END_FIELD"].offset
    data = bytearray(path.read_bytes())
    data[at : at + 4] = np.array([65535, 65535], "<u2").tobytes()
    path.write_bytes(bytes(data))
    refused(path, "4294967295 frames declared of no points and no analog would take 32768 MiB from a file of")


@needs_corpus
def test_mycube_with_point_used_0_reads_as_no_points(tmp_path):
    source = CORPUS / "c3d/btk/MyCube.c3d"
    if not source.is_file():
        pytest.skip(f"no {source}")
    data = bytearray(source.read_bytes())
    at = read(source).parameters["POINT"]["USED"].offset
    assert np.frombuffer(data, "<i2", 1, at)[0] == 14
    data[at : at + 2] = np.array(0, "<i2").tobytes()
    (tmp_path / "MyCube.c3d").write_bytes(bytes(data))
    markers = read(tmp_path / "MyCube.c3d")
    assert markers.marker_count == 0 and markers.frame_count == 1 and markers.rate == 50


# ---------------------------------------------------------------- 2. numbers too large for what they feed


def test_an_asf_bone_of_the_largest_double_length_is_refused_at_its_line(tmp_path):
    path = text_file(tmp_path, "t.asf", ASF, "length 1.5", "length 1.7976931348623157e308")
    refused(path, "length value 1 is 1.79769e\\+308", line=line_of(ASF, "length 1.5"))


def test_an_asf_direction_beyond_float32_is_refused_at_its_line(tmp_path):
    path = text_file(tmp_path, "t.asf", ASF, "direction 1 0 0", "direction 3.5e38 0 0")
    refused(path, "direction value 1 is 3.5e\\+38", line=line_of(ASF, "direction 1 0 0"))


def test_an_asf_length_multiplier_that_would_scale_beyond_the_bound_is_refused(tmp_path):
    path = text_file(tmp_path, "t.asf", ASF, "length 0.45", "length 1e-300")
    refused(path, "length multiplier 1e-300", line=line_of(ASF, "length 0.45"))


def test_an_amc_value_beyond_the_bound_is_refused_at_its_line(tmp_path):
    (tmp_path / "t.asf").write_text(ASF)
    values = {"root": [[1, 2, 3, 4, 5, 6]], "spine": [[1, 2, 3, 4, 5, 6]], "child": [[1, 2, 1e300]]}
    text = amc_text(values)
    path = text_file(tmp_path, "t.amc", text)
    refused(path, "is 1e\\+300: expected a finite number", line=line_of(text, "child "))


def test_an_amc_stretch_times_a_direction_beyond_the_bound_is_refused(tmp_path):
    """Each within the bound, l x direction (1e10 x 1e10) is not: refused at the frame's line."""
    (tmp_path / "t.asf").write_text(
        ASF.replace("direction 0 0 1\n     length 2", "direction 0 0 1e10\n     length 1e-10")
    )
    text = amc_text({"root": [[1, 2, 3, 4, 5, 6]], "spine": [[1, 2, 3, 4, 5, 6]], "child": [[1, 2, 1e10]]})
    path = text_file(tmp_path, "t.amc", text)
    refused(
        path, "bone 'tip': its translation [xyz] in this frame is -?1.*e\\+(19|20)", line=line_of(text, "\n1\n") + 1
    )


@pytest.mark.parametrize(
    "old, new, match",
    [
        ("OFFSET 0 10 0", "OFFSET 0 1e308 0", "a number of OFFSET is 1e\\+308"),
        ("OFFSET 0 5 0", "OFFSET 0 3.5e38 0", "a number of End Site OFFSET is 3.5e\\+38"),
        ("4 5 6 90", "4 1e300 6 90", "value 2 of this frame line is 1e\\+300"),
    ],
)
def test_bvh_numbers_beyond_the_bound_are_refused_at_their_line(tmp_path, old, new, match):
    path = text_file(tmp_path, "t.bvh", SIMPLE, old, new)
    refused(path, match, line=line_of(SIMPLE, old))


@pytest.mark.parametrize(
    "old, new, match",
    [
        ("Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0", "Head 0.5 1e308 -0.5 0.0 45.0 0.0 20.0", "Ty is 1e\\+308"),
        ("3 0 -1.2 0 -45 30 10 0.95", "3 0 -1.2 0 -45 30 10 1e300", "value 8 of this frame line is 1e\\+300"),
        (
            "3 0 -1.2 0 -45 30 10 0.95",
            "3 0 -1.2 0 -45 30 10 1e10",
            "segment 'Head': SF \\(up to 1e\\+10\\) x BoneLength",
        ),
        ("ScaleFactor 1.000000", "ScaleFactor 1e300", "ScaleFactor is 1e\\+300"),
    ],
)
def test_htr_numbers_and_products_beyond_the_bound_are_refused_at_their_line(tmp_path, old, new, match):
    text = SAMPLE.replace("Head 0.5 30.0 -0.5 0.0 45.0 0.0 20.0", "Head 0.5 30.0 -0.5 0.0 45.0 0.0 2e10")
    if "SF" in match:  # the Head block's last row: SF 1e10 x BoneLength 2e10
        old, new = "3 0 0 0 -5 -5 -5 1", "3 0 0 0 -5 -5 -5 1e10"
        where = "Head 0.5 30.0"
    else:
        text = SAMPLE
        where = old
    path = text_file(tmp_path, "t.htr", text, old, new)
    refused(path, match, line=line_of(text, where))


def test_trc_coordinates_beyond_the_bound_are_refused_at_their_line(tmp_path):
    markers = Markers(["a", "b"], np.arange(18.0).reshape(3, 2, 3), 100.0, units="mm")
    core.write(markers, tmp_path / "t.trc")
    text = (tmp_path / "t.trc").read_text()
    lines = text.split("\n")
    fields = lines[7].split("\t")
    fields[6] = "1e20"
    lines[7] = "\t".join(fields)
    path = text_file(tmp_path, "t.trc", "\n".join(lines))
    refused(path, "column 7 is 1e\\+20", line=8)


def test_obj_vertices_beyond_the_bound_are_refused_at_their_line(tmp_path):
    path = text_file(tmp_path, "t.obj", "v 0 0 0\nv 1 0 0\nv 0 1e300 0\nf 1 2 3\n")
    refused(path, "is 1e\\+300", line=3)


@pytest.mark.parametrize("storage", ["float", "integer"])
def test_a_c3d_point_scale_that_would_overflow_residuals_is_refused(tmp_path, storage):
    """Float storage: the scale only scales residuals, 255 x -1.7e38 is infinite; integer storage:
    it scales 16-bit words. Refused at POINT:SCALE's byte."""
    value = -1.7e38 if storage == "float" else 1e20
    path, at = patched_c3d(tmp_path, c3d_markers(), "POINT", "SCALE", value, "<f4")
    refused(path, f"POINT:SCALE is {value:g}".replace("+", "\\+"), offset=at)


def vax(value):
    """The VAX F-float bytes (as a DEC C3D stores them) of `value`."""
    bits = int(np.array(value, "<f4").view("<u4")) + (2 << 23)
    return np.array([(bits >> 16) | (bits << 16) & 0xFFFFFFFF], "<u4").tobytes()


@needs_corpus
def test_a_dec_c3d_point_scale_of_minus_1_7e38_is_refused(tmp_path):
    source = CORPUS / "c3d/btk-c3d.org-sample02/Dec_real.c3d"
    if not source.is_file():
        pytest.skip(f"no {source}")
    at = read(source).parameters["POINT"]["SCALE"].offset
    data = bytearray(source.read_bytes())
    data[at : at + 4] = vax(-1.7e38)
    (tmp_path / "dec.c3d").write_bytes(bytes(data))
    refused(tmp_path / "dec.c3d", "POINT:SCALE is -1.7e\\+38", offset=at)


def test_c3d_coordinates_and_analog_beyond_the_bound_are_refused_at_their_byte(tmp_path):
    path = tmp_path / "t.c3d"
    core.write(c3d_markers(), path)
    data = bytearray(path.read_bytes())
    start = 512 * (data[16] - 1)
    record = (4 * 3 + 2 * 2) * 4
    at = start + record + 4 * 4 + 4  # frame 2, point 2, Y
    data[at : at + 4] = np.array(3e38, "<f4").tobytes()
    path.write_bytes(bytes(data))
    refused(path, "frame 2, point 2: coordinate Y is 3e\\+38", offset=at)


def memg_bytes(*, fps=24, u=1.0, q=1.0, turn=1.0):
    """A .memg of one group ('tri': the 3 vertices of TRIANGLE), rank 1, 2 timesteps, one local frame."""
    affine = np.eye(3, 4) * turn
    parts = [np.array([1, fps, 1, 2], "<i4"), np.concatenate([affine.ravel(), affine.ravel()])]
    parts += [np.array([3], "<i4"), np.frombuffer(b"tri", "u1"), np.array([3, 1, 2, 3], "<i4")]
    parts += [np.zeros(9), np.array([0, 9, 1], "<i4"), np.full(9, u), np.array([1, 2], "<i4"), np.array([q, -q])]
    return b"".join(a.astype("<f8" if a.dtype.kind == "f" else a.dtype).tobytes() for a in parts)


TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\ng tri\nf 1 2 3\n"


def mesh_pair(tmp_path, name, data):
    (tmp_path / "t.obj").write_text(TRIANGLE)
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_memg_that_reads_gives_finite_positions(tmp_path):
    assert every_number_finite(read(mesh_pair(tmp_path, "t.memg", memg_bytes(u=0.5, q=2.0))))


@pytest.mark.parametrize("u, q", [(1e200, 1e200), (3.5e38, 1.0)])
def test_memg_values_beyond_the_bound_are_refused_at_their_byte(tmp_path, u, q):
    data = memg_bytes(u=u, q=q)
    at = data.index(np.array([u], "<f8").tobytes())
    refused(mesh_pair(tmp_path, "t.memg", data), "U of group 'tri': value 1 is", offset=at)


def test_a_memg_basis_times_coefficients_beyond_the_bound_is_refused(tmp_path):
    """U and Q within the bound, U Q (1e20) beyond: positions() gave inf for 1e200 x 1e200."""
    data = memg_bytes(u=1e10, q=1e10)
    at = 16 + 2 * 96  # the group's block
    refused(mesh_pair(tmp_path, "t.memg", data), "group 'tri': its positions TW \\(p \\+ U Q\\) could reach", offset=at)


def pc2_bytes(*, start=1.0, sampling=1.0, value=0.5):
    header = np.array([(b"POINTCACHE2", 1, 3, start, sampling, 2)], pc2_header())
    return header.tobytes() + np.full((2, 3, 3), value, "<f4").tobytes()


def pc2_header():
    from mocap_io.core.formats import pc2

    return pc2._HEADER


def test_pc2_numbers_beyond_the_bound_are_refused_at_their_byte(tmp_path):
    refused(mesh_pair(tmp_path, "t.pc2", pc2_bytes(value=3e38)), "coordinate x is 3e\\+38", offset=32)
    refused(mesh_pair(tmp_path, "t.pc2", pc2_bytes(start=3e38)), "start frame is 3e\\+38", offset=20)


# ---------------------------------------------------------------- 3. rates


def test_the_docs_state_the_bounds():
    root = pathlib.Path(__file__).resolve().parents[2]
    for name in ("README.md", "docs/markers.md"):
        text = " ".join((root / name).read_text(encoding="utf-8").split())
        largest = re.search(r"(?:at most|beyond) (\S+) in magnitude \(`core\.errors\.LARGEST`", text)
        rates = re.search(r"within (\S+) to (\S+) Hz \(`core\.errors\.RATES`", text) or re.search(
            r"outside (\S+) to (\S+) Hz \(`core\.errors\.RATES`", text
        )
        assert float(largest.group(1)) == LARGEST and tuple(map(float, rates.groups())) == RATES, name


@pytest.mark.parametrize("period, rate", [("1e-09", "1e\\+09"), ("10000", "0.0001")])
def test_a_bvh_frame_time_of_an_absurd_rate_is_refused(tmp_path, period, rate):
    path = text_file(tmp_path, "t.bvh", SIMPLE, "Frame Time: 0.0333333", f"Frame Time: {period}")
    refused(path, f"Frame Time {period} gives a rate of {rate} Hz", line=line_of(SIMPLE, "Frame Time"))


@pytest.mark.parametrize("value", ["1e308", "1e-05", "2000000"])
def test_an_htr_data_frame_rate_out_of_range_is_refused(tmp_path, value):
    path = text_file(tmp_path, "t.htr", SAMPLE, "DataFrameRate 30", f"DataFrameRate {value}")
    refused(path, "DataFrameRate gives a rate of", line=line_of(SAMPLE, "DataFrameRate"))


def test_an_amc_rate_out_of_range_is_refused(tmp_path):
    (tmp_path / "t.asf").write_text(ASF)
    values = {"root": [[1, 2, 3, 4, 5, 6]], "spine": [[1, 2, 3, 4, 5, 6]], "child": [[1, 2, 1]]}
    text = amc_text(values, header=":FULLY-SPECIFIED\n:SAMPLES-PER-SECOND 1e7\n")
    refused(text_file(tmp_path, "t.amc", text), ":SAMPLES-PER-SECOND gives a rate of 1e\\+07", line=3)


@pytest.mark.parametrize("field", ["DataRate", "CameraRate", "OrigDataRate"])
def test_trc_rates_out_of_range_are_refused(tmp_path, field):
    markers = Markers(["a"], np.zeros((2, 1, 3)), 100.0, units="mm")
    core.write(markers, tmp_path / "t.trc")
    lines = (tmp_path / "t.trc").read_text().split("\n")
    names, values = lines[1].split("\t"), lines[2].split("\t")
    values[names.index(field)] = "1e308"
    lines[2] = "\t".join(values)
    refused(text_file(tmp_path, "t.trc", "\n".join(lines)), f"{field} gives a rate of 1e\\+308 Hz", line=3)


@pytest.mark.parametrize("rate", [1e7, 1e-4])
def test_a_c3d_point_rate_out_of_range_is_refused_at_its_byte(tmp_path, rate):
    path, at = patched_c3d(tmp_path, c3d_markers(analog=False), "POINT", "RATE", rate, "<f4")
    refused(path, "POINT:RATE gives a rate of", offset=at)


def test_a_c3d_analog_rate_out_of_range_is_refused_at_its_byte(tmp_path):
    path, at = patched_c3d(tmp_path, c3d_markers(), "ANALOG", "RATE", 1e9, "<f4")
    refused(path, "ANALOG:RATE gives a rate of 1e\\+09", offset=at)


def test_a_memg_rate_out_of_range_is_refused(tmp_path):
    refused(
        mesh_pair(tmp_path, "t.memg", memg_bytes(fps=2_000_000_000)), "frame rate gives a rate of 2e\\+09", offset=4
    )


@pytest.mark.parametrize("sampling", [1e-45, 1e6])
def test_a_pc2_sampling_step_of_an_absurd_rate_is_refused(tmp_path, sampling):
    refused(mesh_pair(tmp_path, "t.pc2", pc2_bytes(sampling=sampling)), "sampling step .* gives a rate of", offset=24)


def test_a_pc2_rate_out_of_range_with_a_given_fps_is_refused(tmp_path):
    path = mesh_pair(tmp_path, "t.pc2", pc2_bytes(sampling=2**-10))
    assert read(path).fps == 24 * 1024
    refused(path, "10000 fps / sampling step 0.000976562 gives a rate of 1.024e\\+07", offset=24, fps=1e4)


def test_a_famc_whose_frame_times_give_an_absurd_rate_is_refused(tmp_path):
    from mocap_io.core.mesh import Mesh, MeshAnimation

    mesh = Mesh(np.eye(3), [3], [0, 1, 2])
    core.write(MeshAnimation(mesh, 1.0, np.stack([np.eye(3), 2 * np.eye(3)])), tmp_path / "t.famc")
    data = bytearray((tmp_path / "t.famc").read_bytes())
    times = np.array([0, 1000], ">u4").tobytes()
    at = data.index(times)
    data[at + 4 : at + 8] = np.array([2**32 - 1], ">u4").tobytes()  # the second frame 49 days later
    (tmp_path / "t.famc").write_bytes(bytes(data))
    refused(tmp_path / "t.famc", "timeFrame \\(1 frame steps in 4294967295 ms\\) gives a rate of 2.3", offset=0)


# ---------------------------------------------------------------- 4. a missing keyword names its section's lines


@pytest.mark.parametrize("key", ["EulerRotationOrder", "DataFrameRate", "NumFrames"])
def test_a_gtr_without_a_header_keyword_names_the_header_lines(tmp_path, key):
    core.write(read(text_file(tmp_path, "t.htr", SAMPLE)), tmp_path / "t.gtr")
    text = (tmp_path / "t.gtr").read_text()
    start = text.index(f"{key} ")
    text = text[:start] + text[text.index("\n", start) + 1 :]
    first, last = line_of(text, "[Header]"), line_of(text, "ScaleFactor")
    path = text_file(tmp_path, "t.gtr", text)
    refused(path, f"missing {key} in \\[Header\\], lines {first}-{last}", line=first)


# ---------------------------------------------------------------- what reads is finite


def test_samples_that_read_give_finite_numbers(tmp_path):
    (tmp_path / "t.asf").write_text(ASF)
    values = {"root": [[1, 2, 3, 4, 5, 6]], "spine": [[1, 2, 3, 4, 5, 6]], "child": [[1, 2, 1]]}
    for path in (
        text_file(tmp_path, "t.bvh", SIMPLE),
        text_file(tmp_path, "t.htr", SAMPLE),
        text_file(tmp_path, "t.amc", amc_text(values)),
    ):
        assert every_number_finite(read(path)), path
