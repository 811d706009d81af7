"""Every C3D in the shared corpus: `expect ok` files read (in strict mode too) and round-trip
exactly; `error` files raise ParseError with a byte offset (`error (strict)` files only in strict
mode, and read by default with a warning). Wherever ezc3d or the `c3d` package reads a file, the
points, residuals, camera masks and analog values are theirs."""

import re
import warnings

import numpy as np
import pytest

import c3d_peers
from corpus_files import CORPUS, by_path, manifest, needs_corpus
from mocap_io import core

ROWS = manifest("c3d")
OK = [r["path"] for r in ROWS if r["expect"] == "ok"]
STRICT_ERRORS = [r["path"] for r in ROWS if r["expect"].startswith("error (strict)")]
ERRORS = [r["path"] for r in ROWS if r["expect"].startswith("error:")]
SAMPLE02 = "c3d/btk-c3d.org-sample02/"
WARNED = "sample06|ezc3d"  # ok files read with a warning (tests below): MACsample's scales, Optotrak's frames


def read(name, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return core.read(CORPUS / name, **options)


def test_the_corpus_has_c3d_files():
    if not CORPUS.is_dir():
        pytest.skip("no corpus")
    assert len(OK) >= 10 and len(STRICT_ERRORS) == 2 and ERRORS


@needs_corpus
@pytest.mark.parametrize("name", OK + STRICT_ERRORS)
def test_reads_and_round_trips_exactly(name, tmp_path):
    markers = read(name)
    assert markers.frame_count > 0 and markers.marker_count > 0
    seen = markers.valid
    assert seen.any() and np.isfinite(markers.positions[seen]).all()
    assert np.isnan(markers.residuals[~seen]).all() and (markers.camera_masks[~seen] == 0).all()
    assert (markers.residuals[seen] >= 0).all()
    core.write(markers, tmp_path / "again.c3d")
    again = core.read(tmp_path / "again.c3d", strict=True)
    for field in ("names", "descriptions", "units", "rate", "first_frame", "events"):
        assert getattr(again, field) == getattr(markers, field), field
    for field in ("positions", "residuals", "camera_masks"):
        assert np.array_equal(getattr(again, field), getattr(markers, field), equal_nan=True), field
    assert again.positions.dtype == np.float32
    if markers.analog is not None:
        assert np.array_equal(again.analog.values, markers.analog.values)
        assert (again.analog.names, again.analog.units, again.analog.rate) == (
            markers.analog.names,
            markers.analog.units,
            markers.analog.rate,
        )
    kept = {g: set(p) for g, p in markers.parameters.items() if g not in ("POINT", "ANALOG", "EVENT", "TRIAL")}
    assert {g: set(p) for g, p in again.parameters.items() if g in kept} == kept


# the first marker's first position seen (frame index, mm), as ezc3d and the c3d package read it too
FIRST_SEEN = {
    "btk-c3d.org-sample02": ("RFT1", 10, (363.56815, 361.03754, 81.54274)),  # all six: one take
    "MyCube.c3d": ("PBLeiden01_1", 0, (56.415478, 23.846853, 358.4448)),
    "c3d_test_file_01.c3d": ("RAsis", 0, (-477.98962, 148.50432, 1036.9617)),
    "c3d_test_file_03.c3d": ("PEL_MO", 0, (240.042, -1057.66, 952.255)),
}


@needs_corpus
@pytest.mark.parametrize("row", by_path(r for r in ROWS if r["expect"] == "ok" and not re.search(WARNED, r["path"])))
def test_ok_files_read_in_strict_mode_without_warnings(row):
    """Read strictly, with no warning: the manifest's frames, points and rate, the lenient reading's
    numbers, and the first marker where it is first seen."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        markers = core.read(CORPUS / row["path"], strict=True)
    rate = float(re.search(r"; ([\d.]+) Hz;", row["quirks"])[1])
    points = int(row["joints_or_vertices"].removesuffix(" points"))
    assert (markers.frame_count, markers.marker_count, markers.rate) == (int(row["frames"]), points, rate)
    lenient = read(row["path"])
    assert markers.names == lenient.names and np.array_equal(markers.positions, lenient.positions, equal_nan=True)
    name, frame, position = next(v for k, v in FIRST_SEEN.items() if k in row["path"])
    assert markers.names[0] == name and np.flatnonzero(markers.valid[:, 0])[0] == frame
    np.testing.assert_allclose(markers.positions[frame, 0], position, rtol=1e-7)


@needs_corpus
@pytest.mark.parametrize("name", ERRORS)
def test_broken_files_raise_with_a_byte_offset(name):
    with pytest.raises(core.ParseError) as info:
        core.read(CORPUS / name)
    assert info.value.offset == 0 and "expected a 512-byte C3D header" in str(info.value)


@needs_corpus
@pytest.mark.parametrize(
    "name, offset, parameter, labels",
    [
        ("c3d/btk/mocap36.c3d", 629, "LABELS", ["Skeleton_Hip2", "Skeleton_Hip1"]),
        ("c3d/btk/badParameterOffset.c3d", 753, "LABELS", ["Point    1", "Point    2"]),
    ],
)
def test_disagreeing_next_pointers_strict_and_lenient(name, offset, parameter, labels):
    """Strict mode names the entry and its byte; by default the pointers are followed (the
    entries lack their description-length bytes: the pointers are right) with one warning."""
    with pytest.raises(core.ParseError) as info:
        core.read(CORPUS / name, strict=True)
    assert info.value.offset == offset and f"next-pointer of {parameter}" in str(info.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        markers = core.read(CORPUS / name)
    assert any("parameter next-pointers disagree with the parameter sizes" in str(w.message) for w in caught)
    assert markers.names[:2] == labels and len(set(markers.names)) == markers.marker_count


@needs_corpus
def test_ezc3d_or_c3d_reads_most_files_and_we_read_them_all():
    peers = {name: (c3d_peers.ezc3d_read(CORPUS / name), c3d_peers.c3d_read(CORPUS / name)) for name in OK}
    if not (c3d_peers.installed("ezc3d") and c3d_peers.installed("c3d")):
        pytest.skip("ezc3d and c3d (requirements.txt) are not both installed")
    by_ezc3d = sum(e is not None for e, _ in peers.values())
    by_c3d = sum(c is not None for _, c in peers.values())
    either = sum(e is not None or c is not None for e, c in peers.values())
    print(f"of {len(OK)} ok files: ezc3d reads {by_ezc3d}, c3d {by_c3d}, either {either}; we read all")
    assert by_ezc3d >= 6 and by_c3d >= 9 and either >= 10


@needs_corpus
@pytest.mark.parametrize("name", OK)
def test_same_points_residuals_and_analog_as_ezc3d(name):
    theirs = c3d_peers.ezc3d_read(CORPUS / name)
    if theirs is None:
        pytest.skip("ezc3d is not installed or cannot read this file (MIPS, or it crashes)")
    ours = read(name)
    _same_positions_and_analog(ours, theirs)
    # ezc3d 1.7.2 takes the residual from the high byte of word 4 and the camera mask from the low
    # byte; c3d.org's spec (its example word 0x3E10: cameras 2-6, residual 0x10) and the c3d
    # package say the opposite. The same bytes, swapped:
    seen = ours.valid
    scale = abs(ours.metadata["scale"])
    np.testing.assert_allclose(theirs["residuals"][seen], ours.camera_masks[seen] * scale, rtol=1e-6)
    residual_bytes = np.rint(ours.residuals[seen] / scale).astype(int)
    assert np.array_equal(theirs["cameras"][seen], residual_bytes & 0x7F)
    assert (theirs["residuals"][~seen] < 0).all()


@needs_corpus
@pytest.mark.parametrize("name", OK)
def test_same_points_residuals_and_analog_as_the_c3d_package(name):
    theirs = c3d_peers.c3d_read(CORPUS / name)
    if theirs is None:
        pytest.skip("the c3d package is not installed or cannot read this file")
    ours = read(name)
    _same_positions_and_analog(ours, theirs)
    seen = ours.valid
    np.testing.assert_allclose(theirs["residuals"][seen], ours.residuals[seen], rtol=1e-6)
    assert np.array_equal(theirs["cameras"], ours.camera_masks)


def _same_positions_and_analog(ours, theirs):
    assert theirs["positions"].shape == ours.positions.shape
    assert np.array_equal(np.isnan(theirs["positions"]), np.isnan(ours.positions))
    np.testing.assert_allclose(ours.positions, theirs["positions"], rtol=1e-6, atol=1e-6)
    analog = theirs["analog"]
    if ours.analog is None:
        assert analog is None or analog.size == 0
        return
    assert analog.shape == ours.analog.values.shape
    for channel in range(analog.shape[1]):  # float32 of each channel's value: half a unit in the last place
        reference = analog[:, channel]
        np.testing.assert_allclose(
            ours.analog.values[:, channel], reference, rtol=1e-6, atol=1e-7 * abs(reference).max()
        )


@needs_corpus
def test_every_processor_type_and_storage_gives_the_same_data():
    """c3d.org's sample02: one take written for Intel, DEC (VAX floats) and SGI/MIPS (big-endian)
    processors, each in integer and float storage. The SGI files and the float files hold the
    very same numbers as pc_int / pc_real; DEC_INT was rounded on its own (coordinates within one
    scale unit, 96 of 3204 camera bytes one higher: the c3d package reads the same bytes)."""
    takes = {name: read(SAMPLE02 + name) for name in ("pc_int.c3d", "sgi_int.c3d", "DEC_INT.C3D")}
    takes |= {name: read(SAMPLE02 + name) for name in ("pc_real.c3d", "sgi_real.c3d", "Dec_real.c3d")}
    assert {t.metadata["processor"] for t in takes.values()} == {"Intel", "DEC", "MIPS"}
    integer, real = takes["pc_int.c3d"], takes["pc_real.c3d"]
    scale = integer.metadata["scale"]
    assert scale == pytest.approx(0.2812, abs=1e-4)
    for name, take in takes.items():
        assert take.names == integer.names and take.rate == 50 and take.frame_count == 89, name
        assert np.array_equal(take.residuals, integer.residuals, equal_nan=True), name
        np.testing.assert_allclose(take.analog.values, integer.analog.values, rtol=1e-6, atol=1e-3)
        reference = integer if take.metadata["storage"] == "integer" else real
        if name == "DEC_INT.C3D":
            assert np.nanmax(np.abs(take.positions - reference.positions)) <= scale * 1.0001
            assert np.count_nonzero(take.camera_masks != reference.camera_masks) == 96
        else:
            assert np.array_equal(take.positions, reference.positions, equal_nan=True), name
            assert np.array_equal(take.camera_masks, reference.camera_masks), name
    assert np.nanmax(np.abs(real.positions - integer.positions)) <= scale * 1.0001  # truncated, not rounded
    assert [(round(e.time, 6), e.label) for e in real.events[:3]] == [(0.38, "RHS"), (0.68, "STRT"), (0.72, "RMS")]


@needs_corpus
def test_sgi_byte_swapped_last_pointer_ends_the_parameters():
    """POINT:LABELS's next-pointer reads 0x3F01 (0x013F byte-swapped): it points past the
    section, where the sizes end it too: every group is read, no warning even in strict mode."""
    data = (CORPUS / SAMPLE02 / "sgi_int.c3d").read_bytes()
    assert data.find(b"\x3f\x01", 512, 512 * data[514]) > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        markers = core.read(CORPUS / SAMPLE02 / "sgi_int.c3d", strict=True)
    assert set(markers.parameters) == {"POINT", "ANALOG", "FORCE_PLATFORM", "FPLOC", "SUBJECT"}


@needs_corpus
def test_stale_frame_count_reads_the_frames_present():
    """Optotrak: the header and POINT:FRAMES say 1149 frames; the file ends after 29 whole ones
    (ezc3d reads the same 29)."""
    with pytest.warns(UserWarning, match="1149 frames declared, the data section holds 29"):
        markers = core.read(CORPUS / "c3d/ezc3d/Optotrak.c3d", strict=True)
    assert markers.frame_count == 29


@needs_corpus
def test_header_scale_wins_for_integer_data_by_evidence():
    """MACsample: the header's scale 0.0551 against POINT:SCALE 0.0215. With the header's, the
    right shoulder is 0.47 m above the right hip and the hip markers 0.25 m apart, an adult's
    sizes; POINT:SCALE would make them 0.18 m and 0.10 m."""
    with pytest.warns(UserWarning, match="POINT:SCALE 0.0215412 and the header's scale 0.0551136 disagree"):
        markers = core.read(CORPUS / "c3d/btk-c3d.org-sample06/MACsample.c3d")
    assert markers.metadata["scale"] == pytest.approx(0.0551136, rel=1e-6)

    def distance(a, b):
        return np.nanmedian(
            np.linalg.norm(markers.positions[:, markers.index(a)] - markers.positions[:, markers.index(b)], axis=1)
        )

    assert 400 < distance("RSHO", "RHIP") < 550 and 200 < distance("RHIP", "LHIP") < 320
    assert markers.analog.values.shape == (180 * 17, 16) and markers.analog.rate == 1020


@needs_corpus
def test_files_no_peer_reads_match_an_independent_decoding():
    """mocap36 and badParameterOffset (Intel float): the data section decoded here by hand from
    the header's data block and counts."""
    for name in ("c3d/btk/mocap36.c3d", "c3d/btk/badParameterOffset.c3d"):
        data = (CORPUS / name).read_bytes()
        words = np.frombuffer(data, "<u2", 256)
        points, frames = int(words[1]), int(words[4] - words[3] + 1)
        record = np.frombuffer(data, "<f4", frames * 4 * points, 512 * (int(words[8]) - 1)).reshape(frames, points, 4)
        expected = np.where(record[..., 3:] < 0, np.nan, record[..., :3])
        assert np.array_equal(read(name).positions, expected, equal_nan=True), name


@needs_corpus
def test_first_frame_and_the_trc_written_from_the_same_take():
    """c3d_test_file_03 starts at frame 228; test_file_05.trc was written from it by another tool."""
    ours = read("c3d/trc-data-reader/c3d_test_file_03.c3d")
    trc = core.read(CORPUS / "trc/trc-data-reader/test_file_05.trc")
    assert ours.first_frame == trc.first_frame == 228 and ours.names == trc.names
    assert np.array_equal(np.isnan(ours.positions), np.isnan(trc.positions))
    np.testing.assert_allclose(ours.positions, trc.positions, atol=5e-6 + 1e-7 * np.nanmax(np.abs(trc.positions)))
