"""C3D writer and reader on generated takes: exact round trips (gaps, residuals, camera masks,
analog, events, long takes, long label lists), VAX floats, and broken files named by byte."""

import os
import warnings

import numpy as np
import pytest

import c3d_peers
from mocap_io import core
from mocap_io.core.formats.c3d import params
from mocap_io.core.markers import Analog, Event, Markers


def take(frames=40, markers=5, channels=3, per_frame=4, seed=0):
    rng = np.random.default_rng(seed)
    positions = rng.normal(0, 800, (frames, markers, 3)).astype(np.float32)
    missing = rng.random((frames, markers)) < 0.2
    positions[missing] = np.nan
    residuals = (rng.integers(0, 256, (frames, markers)) * np.float32(0.25)).astype(np.float32)
    residuals[missing] = np.nan
    cameras = np.where(missing, 0, rng.integers(0, 128, (frames, markers))).astype(np.uint8)
    analog = Analog(
        rng.normal(0, 100, (frames * per_frame, channels)).astype(np.float32),
        120.0 * per_frame,
        [f"EMG {i}" for i in range(channels)],
        ["V"] * channels,
        [f"channel {i}" for i in range(channels)],
    )
    return Markers(
        [f"M{i} left" for i in range(markers)],
        positions,
        120.0,
        units="mm",
        first_frame=7,
        residuals=residuals,
        camera_masks=cameras,
        descriptions=[f"marker {i}" for i in range(markers)],
        analog=analog,
        events=[Event(0.5, "Foot Strike", "Left", "heel"), Event(1.25, "Foot Off", "Right")],
        metadata={"scale": -0.25},
    )


def same(a, b):
    assert a.names == b.names and a.descriptions == b.descriptions
    assert (a.rate, a.units, a.first_frame, a.events) == (b.rate, b.units, b.first_frame, b.events)
    for field in ("positions", "residuals", "camera_masks"):
        assert np.array_equal(getattr(a, field), getattr(b, field), equal_nan=True), field
    assert np.array_equal(a.analog.values, b.analog.values)
    assert (a.analog.names, a.analog.units, a.analog.descriptions, a.analog.rate) == (
        b.analog.names,
        b.analog.units,
        b.analog.descriptions,
        b.analog.rate,
    )


def test_round_trip_is_exact(tmp_path):
    markers = take()
    core.write(markers, tmp_path / "t.c3d")
    again = core.read(tmp_path / "t.c3d", strict=True)
    same(again, markers)
    assert again.metadata["processor"] == "Intel" and again.metadata["storage"] == "float"
    assert os.path.getsize(tmp_path / "t.c3d") % 512 == 0
    core.write(again, tmp_path / "u.c3d")
    assert (tmp_path / "u.c3d").read_bytes() == (tmp_path / "t.c3d").read_bytes()


def test_peers_read_what_we_write(tmp_path):
    markers = take()
    core.write(markers, tmp_path / "t.c3d")
    for theirs in (c3d_peers.ezc3d_read(tmp_path / "t.c3d"), c3d_peers.c3d_read(tmp_path / "t.c3d")):
        if theirs is None:
            continue
        assert np.array_equal(theirs["positions"], markers.positions, equal_nan=True)
        assert np.array_equal(theirs["analog"], markers.analog.values)
    if not c3d_peers.installed("c3d"):
        pytest.skip("the c3d package is not installed")
    theirs = c3d_peers.c3d_read(tmp_path / "t.c3d")
    seen = markers.valid
    assert np.array_equal(theirs["residuals"][seen], markers.residuals[seen])
    assert np.array_equal(theirs["cameras"], markers.camera_masks)


def test_more_than_65535_frames(tmp_path):
    """POINT:FRAMES 65535 with POINT:LONG_FRAMES and TRIAL:ACTUAL_START/END_FIELD (c3d.org's
    conventions): we, ezc3d and the c3d package read every frame."""
    frames = 70_000
    positions = np.zeros((frames, 1, 3), np.float32)
    positions[:, 0, 0] = np.arange(frames)
    markers = Markers(["a"], positions, 1000.0, first_frame=65_000)
    core.write(markers, tmp_path / "long.c3d")
    again = core.read(tmp_path / "long.c3d", strict=True)
    assert again.frame_count == frames and again.first_frame == 65_000
    assert np.array_equal(again.positions, positions)
    for theirs in (c3d_peers.ezc3d_read(tmp_path / "long.c3d"), c3d_peers.c3d_read(tmp_path / "long.c3d")):
        if theirs is not None:
            assert np.array_equal(theirs["positions"], positions)


def test_more_than_255_labels_go_to_labels2(tmp_path):
    names = [f"m{i}" for i in range(300)]
    markers = Markers(names, np.ones((2, 300, 3), np.float32), 50.0)
    core.write(markers, tmp_path / "many.c3d")
    again = core.read(tmp_path / "many.c3d", strict=True)
    assert again.names == names
    assert (
        len(again.parameters["POINT"]["LABELS"].value) == 255 and len(again.parameters["POINT"]["LABELS2"].value) == 45
    )


def test_parameters_of_other_groups_are_kept(tmp_path):
    markers = take()
    markers.parameters = {
        "SUBJECTS": core.markers.Group(
            {
                "NAMES": core.markers.Parameter(np.array(["Ann", "Bo"]), "who", locked=True),
                "MATRIX": core.markers.Parameter(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),
                "FLAGS": core.markers.Parameter(np.array([1, -2], np.int8)),
            },
            description="subjects",
        )
    }
    core.write(markers, tmp_path / "t.c3d")
    group = core.read(tmp_path / "t.c3d").parameters["SUBJECTS"]
    assert group.description == "subjects" and group["NAMES"].locked and group["NAMES"].description == "who"
    assert group["NAMES"].value.tolist() == ["Ann", "Bo"]
    assert (
        np.array_equal(group["MATRIX"].value, np.arange(24).reshape(2, 3, 4))
        and group["MATRIX"].value.dtype == np.float32
    )
    assert group["FLAGS"].value.tolist() == [1, -2]


def test_residuals_without_a_scale_use_the_largest_coordinate(tmp_path):
    markers = take()
    markers.metadata = {}
    markers.residuals = np.where(markers.valid, 1.0, np.nan).astype(np.float32)
    core.write(markers, tmp_path / "t.c3d")
    again = core.read(tmp_path / "t.c3d")
    scale = np.float32(np.nanmax(np.abs(markers.positions)) / 32000)
    assert again.metadata["scale"] == -scale
    np.testing.assert_allclose(again.residuals[markers.valid], 1.0, atol=scale / 2)


def test_writer_refuses_non_finite_data(tmp_path):
    markers = take()
    markers.positions[3, 2, 1] = np.inf
    with pytest.raises(ValueError, match="marker 'M2 left' Y at frame 3 is inf"):
        core.write(markers, tmp_path / "t.c3d")
    markers = take()
    markers.analog.values[9, 1] = np.nan
    with pytest.raises(ValueError, match="analog channel 'EMG 1' sample 9 is nan"):
        core.write(markers, tmp_path / "t.c3d")
    assert os.listdir(tmp_path) == []


def test_vax_floats():
    """VAX F-floating (DEC processors): 16-bit words in little-endian order, the first holding the
    sign, an 8-bit exponent biased by 128 and the high fraction bits of 0.1fff... (binary). 1.0 is
    bytes 80 40 00 00; encoded here from that definition, for IEEE-normal values."""
    words = np.frombuffer(b"\x80\x40\x00\x00\x80\xc0\x00\x00\x00\x00\x00\x00", "<u4")
    assert params.vax_to_ieee(words).tolist() == [1.0, -1.0, 0.0]
    values = np.random.default_rng(1).normal(0, 1e3, 1000).astype(np.float32)
    values = np.concatenate([values, np.float32([1.7e38, -1e-37, 2.0**-126, 0.5, 3.0])])
    mantissa, exponent = np.frexp(values.astype(np.float64))  # |mantissa| in [0.5, 1): VAX's 0.1fff
    fraction = np.rint((np.abs(mantissa) * 2 - 1) * 2**23).astype(np.uint32)  # the 23 bits after the hidden 1
    high = (values < 0).astype(np.uint32) << 15 | (exponent + 128).astype(np.uint32) << 7 | fraction >> 16
    stored = high | (fraction & 0xFFFF) << 16  # first word (sign, exponent, high fraction), then the low fraction
    assert np.array_equal(params.vax_to_ieee(stored.astype(np.uint32)), values)


def written(tmp_path, markers=None):
    path = tmp_path / "t.c3d"
    core.write(markers or take(), path)
    return path, bytearray(path.read_bytes())


def test_broken_headers_and_parameters_name_the_byte(tmp_path):
    path, data = written(tmp_path)
    cases = [
        (data[:300], 300, "file of 300 bytes: expected a 512-byte C3D header"),
        (b"\x02\x51" + data[2:], 1, "not a C3D file"),
        (data[:512] + data[512:515] + b"\x53" + data[516:], 515, "processor type 83"),
        (data[:700], None, "runs past the end of the parameter section"),
    ]
    for broken, offset, message in cases:
        path.write_bytes(bytes(broken))
        with pytest.raises(core.ParseError, match=message) as info:
            core.read(path)
        assert offset is None or info.value.offset == offset
        assert info.value.offset is not None


def test_a_file_cut_inside_a_frame(tmp_path):
    path, data = written(tmp_path)
    start = 512 * (data[16] - 1)
    record = (4 * 5 + 3 * 4) * 4
    path.write_bytes(bytes(data[: start + 10 * record + 7]))
    with pytest.raises(core.ParseError, match="file ends inside frame 11 of the 40 declared") as info:
        core.read(path, strict=True)
    assert info.value.offset == start + 10 * record + 7
    with pytest.warns(UserWarning, match="40 frames declared, the data section holds 10"):
        assert core.read(path).frame_count == 10


def test_non_finite_data_names_frame_point_and_byte(tmp_path):
    markers = take()
    markers.positions[:] = np.nan_to_num(markers.positions)
    path, data = written(tmp_path, markers)
    start = 512 * (data[16] - 1)
    record = (4 * 5 + 3 * 4) * 4
    at = start + 6 * record + (4 * 3 + 2) * 4
    data[at : at + 4] = np.float32(np.inf).tobytes()
    path.write_bytes(bytes(data))
    with pytest.raises(core.ParseError, match="frame 7, point 4: coordinate Z is inf") as info:
        core.read(path)
    assert info.value.offset == at
    data[at : at + 4] = np.float32(1).tobytes()
    at = start + 2 * record + 4 * 5 * 4 + (1 * 3 + 2) * 4
    data[at : at + 4] = np.float32(np.nan).tobytes()
    path.write_bytes(bytes(data))
    with pytest.raises(core.ParseError, match="analog channel 3, sample 10 is nan") as info:
        core.read(path)
    assert info.value.offset == at


def test_invalid_points_may_hold_anything(tmp_path):
    """A point whose fourth word is negative is missing, whatever its coordinates say."""
    markers = take()
    path, data = written(tmp_path, markers)
    start = 512 * (data[16] - 1)
    frame, point = np.argwhere(~markers.valid)[0]
    at = start + frame * (4 * 5 + 3 * 4) * 4 + 4 * point * 4
    data[at : at + 4] = np.float32(np.nan).tobytes()
    path.write_bytes(bytes(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(core.read(path).positions[frame, point]).all()


def test_markers_model_checks_shapes():
    with pytest.raises(ValueError, match="positions"):
        Markers(["a"], np.zeros((3, 2, 3)), 10)
    with pytest.raises(ValueError, match="analog samples"):
        Markers(["a"], np.zeros((3, 1, 3)), 10, analog=Analog(np.zeros((7, 1)), 20.0, ["x"]))
    with pytest.raises(ValueError, match="not a multiple"):
        Markers(["a"], np.zeros((3, 1, 3)), 10, analog=Analog(np.zeros((3, 1)), 15.0, ["x"]))
    markers = Markers(["a", "b"], np.zeros((4, 2, 3)), 100, first_frame=11)
    assert markers.times().tolist() == [0.1, 0.11, 0.12, 0.13] and markers.valid.all()


@pytest.mark.parametrize("frames, markers", [(5, 0), (0, 2), (0, 0)])
def test_takes_of_no_markers_or_no_frames_write_and_read_back(tmp_path, frames, markers):
    """(writing them raised 'memoryview: cannot cast view with zeros in shape'; a take of no frames
    now holds one empty data block, where readers look for its data)"""
    names = [f"m{i}" for i in range(markers)]
    core.write(Markers(names, np.zeros((frames, markers, 3)), 100.0), tmp_path / "t.c3d")
    back = core.read(tmp_path / "t.c3d")
    assert back.positions.shape == (frames, markers, 3) and back.names == names and back.rate == 100.0
