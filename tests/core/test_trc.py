"""TRC reader and writer: the corpus files per MANIFEST.tsv, the layouts real writers use (tabs or
spaces, empty fields, CR CR LF, padded fields, names with spaces), exact round trips, errors by line."""

import os
import warnings

import numpy as np
import pytest

from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
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
    again = core.read(tmp_path / "again.trc")
    assert again.names == markers.names and again.rate == markers.rate and again.first_frame == markers.first_frame
    assert np.array_equal(again.positions, markers.positions, equal_nan=True)


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
    with pytest.raises(ValueError, match="marker 'a' Z at frame 1 is infinite"):
        core.write(Markers(["a"], positions, 10.0), tmp_path / "t.trc")
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
