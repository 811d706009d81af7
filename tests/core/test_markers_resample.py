"""Markers in time (core.resample.resample_markers) and a motion's joints as markers
(core.markers.joint_markers): frames met are kept bit for bit, gaps stay gaps, analog channels and
the clock follow."""

import warnings

import numpy as np
import pytest

from mocap_io import core
from mocap_io.core.markers import Analog, Event, joint_markers
from mocap_io.core.resample import resample_markers
from sample_motion import cmu_like_motion


def take(frames=40, rate=100.0, analog_rate=1000.0, first_frame=1):
    rng = np.random.default_rng(5)
    positions = rng.normal(0, 500, (frames, 3, 3)).astype(np.float32)
    positions[10:13, 1] = np.nan
    residuals = np.where(np.isnan(positions[..., 0]), np.nan, rng.uniform(0.1, 2, (frames, 3))).astype(np.float32)
    masks = np.where(np.isnan(positions[..., 0]), 0, 5).astype(np.uint8)
    per_frame = int(analog_rate / rate)
    analog = Analog(rng.normal(0, 1, (frames * per_frame, 2)).astype(np.float32), analog_rate, ["fx", "fy"])
    return core.Markers(
        ["a", "b", "c"],
        positions,
        rate,
        units="mm",
        first_frame=first_frame,
        residuals=residuals,
        camera_masks=masks,
        analog=analog,
        events=[Event(0.2, "Foot Strike", "Left")],
    )


def test_a_lower_rate_keeps_the_frames_it_meets_as_they_are():
    markers = take()
    half = resample_markers(markers, 50)
    assert (half.frame_count, half.rate, half.first_frame, half.units) == (20, 50.0, 1, "mm")
    assert half.positions.dtype == np.float32
    assert np.array_equal(half.positions, markers.positions[::2], equal_nan=True)
    assert np.array_equal(half.residuals, markers.residuals[::2], equal_nan=True)
    assert np.array_equal(half.camera_masks, markers.camera_masks[::2])
    assert np.array_equal(half.analog.values[:400], markers.analog.values)  # 1000 Hz kept: 20 x 20 samples
    assert half.analog_per_frame == 20 and half.events == markers.events


def test_between_frames_gaps_spread_to_the_frames_that_touch_them():
    markers = take()
    double = resample_markers(markers, 200)
    assert double.frame_count == 79
    assert np.array_equal(double.positions[::2], markers.positions, equal_nan=True)
    middle = (markers.positions[0].astype(float) + markers.positions[1]) / 2
    np.testing.assert_allclose(double.positions[1], middle, rtol=1e-6)
    missing = np.flatnonzero(np.isnan(double.positions[:, 1, 0]))
    assert list(missing) == list(range(19, 26))  # 100 Hz frames 10-12, and the half frames on either side
    assert double.residuals[1, 0] == 0 and double.camera_masks[1, 0] == 0  # interpolated (C3D's residual 0)
    assert np.isnan(double.residuals[19, 1])
    cubic = resample_markers(markers, 200, translation="cubic")
    assert np.array_equal(cubic.positions[::2], markers.positions, equal_nan=True)
    assert list(np.flatnonzero(np.isnan(cubic.positions[:, 1, 0]))) == list(missing)  # linear beside a gap
    assert np.allclose(cubic.positions[17, 1], double.positions[17, 1])  # the gap is an outer key of frame 17
    assert not np.allclose(cubic.positions[1, 0], double.positions[1, 0])


def test_analog_channels_follow_when_their_rate_is_a_multiple():
    markers = take()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        thirty = resample_markers(markers, 30)
    assert thirty.analog is None and thirty.frame_count == 12
    assert [str(w.message) for w in caught] == ["analog channels at 1000 Hz left out: not a whole multiple of 30 fps"]
    trimmed = resample_markers(markers, 50, start=0.1, end=0.3)
    assert (trimmed.frame_count, trimmed.first_frame) == (11, 6)  # 0.1 s at 50 fps: frame 6
    np.testing.assert_array_equal(trimmed.positions, markers.positions[10:31:2])
    np.testing.assert_array_equal(trimmed.analog.values, markers.analog.values[100:320])
    assert trimmed.times()[0] == pytest.approx(0.1)


def test_a_loop_wraps_and_one_frame_repeats():
    markers = take()
    looped = resample_markers(markers, 100, end=0.45, loop=True)
    assert looped.frame_count == 46
    assert np.array_equal(looped.positions[40:], markers.positions[:6], equal_nan=True)
    assert np.array_equal(looped.analog.values[400:], markers.analog.values[:60])
    single = resample_markers(take(frames=1), 50, end=0.1)
    assert single.frame_count == 6 and (single.positions == single.positions[0]).all()
    with pytest.raises(ValueError, match="without frames"):
        resample_markers(core.Markers(["a"], np.zeros((0, 1, 3)), 100.0), 50)
    with pytest.raises(ValueError, match="'linear' or 'cubic'"):
        resample_markers(markers, 50, translation="spline")


def test_a_trc_clock_moves_with_the_start(tmp_path):
    markers = take(frames=20, first_frame=1)
    markers.analog = None
    core.write(markers, tmp_path / "t.trc")
    read = core.read(tmp_path / "t.trc")
    later = resample_markers(read, 50, start=0.1)
    core.write(later, tmp_path / "later.trc")
    back = core.read(tmp_path / "later.trc")
    assert (back.first_frame, back.metadata["start_time"], back.frame_count) == (6, pytest.approx(0.1), 5)
    np.testing.assert_allclose(back.positions, read.positions[10::2], atol=1e-4)


def test_joint_markers_are_the_joints_world_paths_at_the_rate_the_take_stands_for():
    motion = cmu_like_motion(core, 12)
    motion.frame_time_text = "0.008333"  # 1 / 0.008333 is 120.000048: it stands for 120 fps
    markers = joint_markers(motion, units="cm")
    assert markers.names == motion.skeleton.names and (markers.rate, markers.units) == (120.0, "cm")
    np.testing.assert_array_equal(markers.positions, motion.world_positions())
