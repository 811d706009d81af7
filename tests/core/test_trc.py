"""TRC reader and writer: the corpus files per MANIFEST.tsv, the layouts real writers use (tabs or
spaces, empty fields, `nan`, CR CR LF, padded fields, names with spaces), exact round trips (the
shortest text of each float32 or float64), files OpenSim reads (every row with all its fields),
files read in chunks (boundaries, errors by line, memory that follows the file, not its counts)."""

import os
import re
import tracemalloc
import warnings

import numpy as np
import pytest

from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
from mocap_io.core.formats import trc
from mocap_io.core.markers import Markers

ROWS = manifest("trc")
OK = [r["path"] for r in ROWS if r["expect"] == "ok"]
ERRORS = [r["path"] for r in ROWS if r["expect"].startswith("error")]

SAMPLE = (
    "PathFileType\t4\t(X/Y/Z)\tsample.trc\n"
    "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n"
    "120\t120\t3\t2\tm\t120\t5\t3\n"
    "Frame#\tTime\tleft knee\t\t\tRTOE\n"
    "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\n"
    "\n"
    "5\t0.03333\t1.5\t2\t-3.25\t\t\t\n"
    "6\t0.04167\t1.6\t2.1\t-3.5\t4\t5\t6\n"
    "7\t0.05\t\t\t\t4.5\t5.5\t6.5\n"
)


def write(tmp_path, text, name="t.trc"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@needs_corpus
def test_the_corpus_has_trc_files():
    assert len(OK) >= 5 and len(ERRORS) == 2


@needs_corpus
@pytest.mark.parametrize("name", OK)
def test_corpus_files_read_and_round_trip_exactly(name, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        markers = core.read(CORPUS / name)
    assert bool(caught) == ("Unnamed" in name)  # NumMarkers 0 with coordinates: warned
    assert markers.frame_count > 0 and markers.units == "mm"
    core.write(markers, tmp_path / "again.trc")
    assert_opensim_reads(tmp_path / "again.trc")
    again = core.read(tmp_path / "again.trc")
    assert again.names == markers.names and again.rate == markers.rate and again.first_frame == markers.first_frame
    assert np.array_equal(again.positions, markers.positions, equal_nan=True)


@needs_corpus
@pytest.mark.parametrize(
    "name", [r["path"] for r in manifest("c3d") if r["expect"].startswith(("ok", "error (strict)"))]
)
def test_corpus_c3d_files_to_trc_exactly_and_as_opensim_reads(name, tmp_path):
    """The issue's 19 outputs are these 13 (read leniently where strict reading refuses) and the 6 TRC
    round trips above: every one counts as OpenSim counts, and gives back the C3D's float32 values
    exactly (mocap36's 0.0127235325 was written 0.012723533)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markers = core.read(CORPUS / name)
    core.write(markers, tmp_path / "out.trc")
    assert_opensim_reads(tmp_path / "out.trc")
    again = core.read(tmp_path / "out.trc")
    assert np.array_equal(again.positions.astype(np.float32), markers.positions, equal_nan=True)


@needs_corpus
@pytest.mark.parametrize("name", ERRORS)
def test_corpus_errors_name_the_line(name):
    with pytest.raises(core.ParseError) as info:
        core.read(CORPUS / name)
    assert info.value.line in (1, 3)


@needs_corpus
def test_corpus_quirks():
    knee = core.read(CORPUS / "trc/btk/Knee.trc")
    assert knee.marker_count == 71 and knee.rate == 200 and knee.frame_count == 200
    assert knee.names[0] == "genou1_ NewMarker" and knee.names[3] == " genou1_NewMarker3 "
    assert 0 < np.isnan(knee.positions[..., 0]).sum() < knee.positions[..., 0].size
    assert np.array_equal(np.isnan(knee.positions).any(-1), np.isnan(knee.positions).all(-1))  # whole markers
    crcrlf = core.read(CORPUS / "trc/trc-data-reader/test_file_04.trc")  # CR CR LF line ends
    assert crcrlf.frame_count == 2 and crcrlf.marker_count == 37 and crcrlf.names[:2] == ["LASI", "RASI"]
    padded = core.read(CORPUS / "trc/trc-data-reader/test_file_01.trc")  # NumFrames "       4"
    assert padded.frame_count == 4 and padded.rate == 60
    assert padded.positions[0, 0].tolist() == [-2894.17090, 1663.10840, -3255.51221]
    spaces = core.read(CORPUS / "trc/trc-data-reader/test_file_06_2tab_one_space.trc")
    assert spaces.first_frame == 0 and spaces.marker_count == 9 and spaces.frame_count == 1091
    with pytest.warns(UserWarning, match="NumMarkers is 0, the rows hold coordinates of 10 markers"):
        unnamed = core.read(CORPUS / "trc/btk/10002-20130626160334-Unnamed.trc")
    assert unnamed.frame_count == 882 and unnamed.rate == 400 and np.isnan(unnamed.positions[0]).all()


def test_tabs_empty_fields_and_names_with_spaces(tmp_path):
    markers = core.read(write(tmp_path, SAMPLE))
    assert markers.names == ["left knee", "RTOE"] and markers.units == "m" and markers.rate == 120
    assert markers.first_frame == 5 and markers.metadata["start_time"] == 0.03333
    expected = np.array(
        [[[1.5, 2, -3.25], [np.nan] * 3], [[1.6, 2.1, -3.5], [4, 5, 6]], [[np.nan] * 3, [4.5, 5.5, 6.5]]]
    )
    assert np.array_equal(markers.positions, expected, equal_nan=True)
    assert markers.valid.tolist() == [[True, False], [True, True], [False, True]]


def test_space_separated_and_old_line_ends(tmp_path):
    text = SAMPLE.replace("\t\t\t\n", "\n").replace("left knee", "left_knee")
    rows = text.split("\n")
    rows[6:9] = ["5 0.03333 1.5 2 -3.25 0 0 0", "6 0.04167 1.6 2.1 -3.5 4 5 6", "7 0.05 1 1 1 4.5 5.5 6.5"]
    rows[3] = "Frame# Time left_knee RTOE"
    spaced = "\n".join(rows)
    for ending in ("\n", "\r\n", "\r\r\n", "\r"):
        markers = core.read(write(tmp_path, spaced.replace("\n", ending)))
        assert markers.names == ["left_knee", "RTOE"] and markers.positions[2, 1].tolist() == [4.5, 5.5, 6.5]


def test_writer_round_trip_and_decimals(tmp_path):
    rng = np.random.default_rng(3)
    positions = np.round(rng.normal(0, 500, (50, 4, 3)), 3)
    positions[rng.random((50, 4)) < 0.3] = np.nan
    markers = Markers(["a b", "c", "d", "e"], positions, 59.94, units="mm", first_frame=10)
    core.write(markers, tmp_path / "t.trc")
    text = (tmp_path / "t.trc").read_text()
    assert "\t\t\t" in text and "nan" not in text and "10\t0.15015" in text  # frame 10 at 9 / 59.94 s
    again = core.read(tmp_path / "t.trc")
    assert again.names == markers.names and again.rate == 59.94 and again.first_frame == 10
    assert np.array_equal(again.positions, positions, equal_nan=True)
    core.write(markers, tmp_path / "two.trc", precision=1)
    np.testing.assert_allclose(core.read(tmp_path / "two.trc").positions, positions, atol=0.05 + 1e-9)


def test_float32_from_c3d_survives_trc(tmp_path):
    """float32 coordinates are written with the decimals that give each float32 back."""
    positions = np.random.default_rng(4).normal(0, 1000, (20, 3, 3)).astype(np.float32)
    markers = Markers(["a", "b", "c"], positions, 100.0)
    core.write(markers, tmp_path / "t.trc")
    assert np.array_equal(core.read(tmp_path / "t.trc").positions.astype(np.float32), positions)


def test_writer_refuses_what_the_format_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match="tab or line break"):
        core.write(Markers(["a\tb"], np.zeros((1, 1, 3)), 10.0), tmp_path / "t.trc")
    positions = np.zeros((2, 1, 3))
    positions[1, 0, 2] = -np.inf
    with pytest.raises(ValueError, match="marker 'a' Z at frame 1 is -inf: cannot write non-finite numbers"):
        core.write(Markers(["a"], positions, 10.0), tmp_path / "t.trc")
    positions[1, 0, 2] = 2e15
    with pytest.raises(ValueError, match="marker 'a' Z at frame 1 is 2e[+]15: expected a finite number of magnitude"):
        core.write(Markers(["a"], positions, 10.0), tmp_path / "t.trc")
    with pytest.raises(ValueError, match="the frame rate gives a rate of 1e[+]07 Hz: expected 0.001 to 1e[+]06 Hz"):
        core.write(Markers(["a"], np.zeros((2, 1, 3)), 1e7), tmp_path / "t.trc")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "change, line, message",
    [
        (lambda t: t.replace("PathFileType", "Path"), 1, "expected 'PathFileType'"),
        (lambda t: t.replace("120\t120\t3", "fast\t120\t3"), 3, "DataRate is 'fast'"),
        (lambda t: t.replace("NumMarkers", "Markers"), 2, "expected NumMarkers"),
        (lambda t: t.replace("Frame#", "Frame"), 4, "expected 'Frame#'"),
        (lambda t: t.replace("1.6\t2.1", "1.6\tx2"), 8, "column 4: expected a number, found 'x2'"),
        (lambda t: t.replace("6\t0.04167", "\t0.04167"), 8, "expected the frame number in column 1"),
        (lambda t: t.replace("4.5\t5.5", "4.5\x01\t5.5"), 9, "control character"),
        (lambda t: t.replace("4.5\t5.5", "4.5\tinf"), 9, "expected a number, found 'inf'"),
    ],
)
def test_errors_name_the_line(tmp_path, change, line, message):
    with pytest.raises(core.ParseError, match=message) as info:
        core.read(write(tmp_path, change(SAMPLE)))
    assert info.value.line == line


def test_a_huge_marker_count_is_refused_before_allocating(tmp_path):
    text = SAMPLE.replace("120\t120\t3\t2", "120\t120\t3\t900000000")
    with pytest.raises(core.ParseError, match="would take"):
        core.read(write(tmp_path, text))


def opensim_fields(line):
    """The fields OpenSim 4.6's TRC reader finds in a line (FileAdapter::tokenize, TRC delimiters tab
    and CR): split at every delimiter, an empty field between two delimiters kept, none after a
    final one. So a row that ends with empty fields and no tab after them comes out short."""
    fields = re.split("[\t\r]", line)
    if fields[-1] == "":
        fields.pop()
    return fields


def assert_opensim_reads(path):
    """Check a TRC file the way OpenSim 4.6 (TRCFileAdapter::extendRead) reads one: the eight header
    names, eight non-empty values, NumMarkers + 2 labels, X1 Y1 Z1 ..., then rows up to the first
    blank line, each of exactly 2 + 3 x NumMarkers fields, a marker three numbers or three empty
    fields (OpenSim reads only those, the rest as NaN); NumFrames rows."""
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0].split("\t")[0] == "PathFileType"
    keys = [f for f in opensim_fields(lines[1]) if f]
    values = [f for f in opensim_fields(lines[2]) if f]
    assert keys == list(trc._HEADER) and len(values) == len(keys)
    header = dict(zip(keys, values))
    count = int(header["NumMarkers"])
    labels = [f for f in opensim_fields(lines[3]) if f]
    assert labels[:2] == ["Frame#", "Time"] and len(labels) == count + 2
    assert [f for f in opensim_fields(lines[4]) if f] == [f"{a}{i}" for i in range(1, count + 1) for a in "XYZ"]
    rest = lines[5:]
    while rest and not opensim_fields(rest[0]):
        rest.pop(0)
    rows = rest[: next((i for i, line in enumerate(rest) if not opensim_fields(line)), len(rest))]
    assert not any(line.strip() for line in rest[len(rows) :])  # nothing after the rows OpenSim reads
    assert len(rows) == int(header["NumFrames"])
    for line in rows:
        fields = opensim_fields(line)
        assert len(fields) == 2 + 3 * count, line[:80]
        float(fields[1])
        for marker in range(count):
            xyz = fields[2 + 3 * marker : 5 + 3 * marker]
            assert xyz == ["", "", ""] or all(np.isfinite(float(v)) for v in xyz), line[:80]


def test_rows_ending_in_gaps_keep_every_field(tmp_path):
    """OpenSim refused a row whose last markers are gaps ("Expected = 26. Received = 25"): every field
    is now followed by a tab, as OpenSim's own writer does, so such a row keeps its empty fields."""
    positions = np.arange(4 * 3 * 3, dtype=float).reshape(4, 3, 3) + 0.5
    positions[0, 2] = positions[1, 1:] = positions[2] = np.nan  # the last marker, the last two, all
    core.write(Markers(["a", "b c", "d"], positions, 100.0, units="mm"), tmp_path / "t.trc")
    text = (tmp_path / "t.trc").read_text()
    assert "1\t0\t0.5\t1.5\t2.5\t3.5\t4.5\t5.5\t\t\t\t\n" in text
    assert "3\t0.02\t\t\t\t\t\t\t\t\t\t\n" in text
    assert "Frame#\tTime\ta\t\t\tb c\t\t\td\t\t\t\n\t\tX1\tY1\tZ1\tX2\tY2\tZ2\tX3\tY3\tZ3\t\n\n" in text
    assert_opensim_reads(tmp_path / "t.trc")
    assert np.array_equal(core.read(tmp_path / "t.trc").positions, positions, equal_nan=True)
    old = text.replace("\t\n", "\n")  # the layout written before: OpenSim's count comes out short
    with pytest.raises(AssertionError):
        assert_opensim_reads(write(tmp_path, old, "old.trc"))


def test_opensim_itself_reads_what_we_write(tmp_path):
    """With the opensim package (it needs numpy 2, so not in the test venv): the same values."""
    opensim = pytest.importorskip("opensim")
    positions = np.random.default_rng(5).normal(0, 300, (30, 4, 3)).astype(np.float32)
    positions[::3, 3] = np.nan
    core.write(Markers(["a", "b", "c", "d"], positions, 120.0, units="mm"), tmp_path / "t.trc")
    table = opensim.TimeSeriesTableVec3(str(tmp_path / "t.trc"))
    flat = table.flatten()  # (kept: getMatrix() is a view into it)
    values = flat.getMatrix().to_numpy().reshape(30, 4, 3)
    assert np.array_equal(values.astype(np.float32), positions, equal_nan=True)  # (doubles of the shortest text)


def test_opensim_files_read_nan_as_missing(tmp_path):
    """What OpenSim 4.6's TRCFileAdapter writes: `nan` for a missing marker and a tab after every field."""
    text = (
        "PathFileType\t4\t(X/Y/Z)\t/tmp/osim_out.trc\n"
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n"
        "100\t100\t2\t2\tmm\t100\t0\t2\n"
        "Frame#\tTime\tA\t\t\tB\t\t\t\n"
        "\t\tX1\tY1\tZ1\tX2\tY2\tZ2\t\n"
        "\n"
        "1\t0\t1.5\t2\t3\tnan\tnan\tnan\t\n"
        "2\t0.01\t-nan\tNaN\tnan\t0.0127235325\t8\t9\t\n"
    )
    markers = core.read(write(tmp_path, text))
    assert markers.names == ["A", "B"] and markers.first_frame == 1
    expected = [[[1.5, 2, 3], [np.nan] * 3], [[np.nan] * 3, [0.0127235325, 8, 9]]]
    assert np.array_equal(markers.positions, expected, equal_nan=True)
    with pytest.raises(core.ParseError, match="expected the time in column 2, found 'nan'") as info:
        core.read(write(tmp_path, text.replace("2\t0.01\t", "2\tnan\t")))
    assert info.value.line == 8


def test_float32_values_as_their_shortest_text(tmp_path):
    """docs/markers.md promises float32 values back exactly: 9 decimals wrote 0.0127235325 as
    0.012723533. Now each value is the shortest text that reads back as the same float32 (numpy's
    format_float_positional(unique=True)), whatever its size (up to 1e15, the most a reader accepts)."""
    rng = np.random.default_rng(6)
    values = (rng.normal(0, 1, 3000) * 10.0 ** rng.integers(-9, 8, 3000)).astype(np.float32)
    values[:6] = [0.0127235325, 0, -0.0, 1024, 1e-30, 1e10]
    markers = Markers(["a"], values.reshape(-1, 1, 3), 100.0, units="mm")
    core.write(markers, tmp_path / "t.trc")
    rows = (tmp_path / "t.trc").read_text().split("\n")[6:-1]
    written = [field for row in rows for field in row.split("\t")[2:5]]
    expected = [np.format_float_positional(v, unique=True, trim="-").lstrip("-" if v == 0 else "") for v in values]
    assert written == expected and "0.0127235325" in written
    assert np.array_equal(core.read(tmp_path / "t.trc").positions.astype(np.float32), markers.positions)


def test_float64_values_read_back_exactly(tmp_path):
    """float64 positions (a TRC read, joint paths) come back as the same doubles: up to 17 digits."""
    rng = np.random.default_rng(7)
    positions = rng.normal(0, 500, (40, 5, 3)) * 10.0 ** rng.integers(-6, 6, (40, 5, 3))
    positions[0, 0] = [0.1 + 0.2, 1 / 3, 1e-20]
    positions[1] = np.round(positions[1], 3)
    positions[2, 1] = np.nan
    core.write(Markers(list("abcde"), positions, 100.0), tmp_path / "t.trc")
    assert np.array_equal(core.read(tmp_path / "t.trc").positions, positions, equal_nan=True)
    assert "\t0.30000000000000004\t0.3333333333333333\t0.00000000000000000001\t" in (tmp_path / "t.trc").read_text()


def big_take(frames, count, seed=8):
    rng = np.random.default_rng(seed)
    positions = (np.cumsum(rng.normal(0, 2, (frames, count, 3)), axis=0) + rng.normal(0, 500, (count, 3))).astype(
        np.float32
    )
    positions[rng.random((frames, count)) < 0.05] = np.nan
    return Markers([f"m{i}" for i in range(count)], positions, 100.0, units="mm", first_frame=0)


def test_files_of_many_chunks_read_exactly(tmp_path):
    """Rows cut into chunks at line ends and parsed on threads: the same table whatever the line
    ends (LF, CR LF, CR CR LF), gaps across chunk boundaries, a line longer than a chunk."""
    markers = big_take(3000, 40)
    core.write(markers, tmp_path / "t.trc")
    data = (tmp_path / "t.trc").read_bytes()
    assert len(data) > 3 * trc._CHUNK
    for name, text in (
        ("lf", data),
        ("crlf", data.replace(b"\n", b"\r\n")),
        ("crcrlf", data.replace(b"\n", b"\r\r\n")),
    ):
        again = core.read(write(tmp_path, text, f"{name}.trc"))
        assert again.first_frame == 0 and again.frame_count == 3000, name
        assert np.array_equal(again.positions.astype(np.float32), markers.positions, equal_nan=True), name
    wide = big_take(3, 30_000)  # one row: more than a chunk
    core.write(wide, tmp_path / "wide.trc")
    assert len((tmp_path / "wide.trc").read_bytes()) / 3 > trc._CHUNK
    assert np.array_equal(core.read(tmp_path / "wide.trc").positions.astype(np.float32), wide.positions, equal_nan=True)


def test_errors_deep_in_a_file_name_their_line(tmp_path):
    markers = big_take(3000, 40)
    core.write(markers, tmp_path / "t.trc")
    lines = (tmp_path / "t.trc").read_bytes().split(b"\n")

    def field(column, text):
        return lambda row: b"\t".join(text if i == column else f for i, f in enumerate(row.split(b"\t")))

    for line, change, message in (
        (2500, field(4, b"1.2x"), "column 5: expected a number, found '1.2x'"),
        (2000, field(6, b"1 7"), "column 7: expected a number, found '1 7'"),
        (2900, field(1, b"inf"), "expected the time in column 2, found 'inf'"),
        (1234, field(0, b""), "expected the frame number in column 1, found an empty field"),
        (3005, lambda row: row.replace(b"\t", b"\x0c", 1), "control character"),
    ):
        broken = lines.copy()
        broken[line - 1] = change(broken[line - 1])
        with pytest.raises(core.ParseError, match=message) as info:
            core.read(write(tmp_path, b"\n".join(broken), "broken.trc"))
        assert info.value.line == line


def test_memory_follows_the_file_not_its_counts(tmp_path):
    """The positions array is filled chunk by chunk: the peak stays within 3 x the array (it was
    some 30 x, and 65 s for a 428 MB file), and a NumFrames far beyond the rows allocates nothing."""
    markers = big_take(20_000, 60)
    core.write(markers, tmp_path / "t.trc")
    tracemalloc.start()
    try:
        positions = core.read(tmp_path / "t.trc").positions
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 3 * positions.nbytes
    text = SAMPLE.replace("120\t120\t3\t2", "120\t120\t999999999999\t2")
    tracemalloc.start()
    try:
        with pytest.warns(UserWarning, match="NumFrames is 999999999999, the file has 3 rows"):
            assert core.read(write(tmp_path, text)).frame_count == 3
        assert tracemalloc.get_traced_memory()[1] < 16 << 20  # (a read block), not 48 TB
    finally:
        tracemalloc.stop()


def test_first_frame_zero_survives_c3d(tmp_path):
    """TRC -> C3D turned a first frame of 0 into 1 without a word: the C3D keeps it (the header's
    first frame and TRIAL:ACTUAL_START_FIELD), and a first frame C3D cannot hold warns."""
    markers = core.read(write(tmp_path, SAMPLE.replace("\n5\t0.03333", "\n0\t0.03333")))
    assert markers.first_frame == 0
    core.write(markers, tmp_path / "t.c3d")
    again = core.read(tmp_path / "t.c3d")
    assert again.first_frame == 0 and again.parameters["TRIAL"]["ACTUAL_START_FIELD"].value.tolist() == [0, 0]
    core.write(again, tmp_path / "t2.trc")
    assert core.read(tmp_path / "t2.trc").first_frame == 0
    negative = Markers(["a"], np.zeros((2, 1, 3), np.float32), 100.0, first_frame=-4)
    with pytest.warns(UserWarning, match="C3D cannot hold first frame -4"):
        core.write(negative, tmp_path / "n.c3d")
    assert core.read(tmp_path / "n.c3d").first_frame == 1
