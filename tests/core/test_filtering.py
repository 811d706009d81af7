"""Zero-lag Butterworth filtering (core.filtering): scipy.signal.butter's coefficients and
scipy.signal.filtfilt's output (scipy is a test-only reference), gaps kept, short runs left, the
input unchanged, analog channels at their own rate."""

import inspect
import pathlib
import re
import warnings

import numpy as np
import pytest

from mocap_io import core
from mocap_io.core import filtering
from mocap_io.core.filtering import butterworth, lowpass, padlen
from mocap_io.core.markers import Analog, Event

signal = pytest.importorskip("scipy.signal")

# (order, cutoff Hz, rate Hz): marker rates, odd orders, a high order, a low cutoff at an analog rate
DESIGNS = [(4, 6.0, 100.0), (2, 6.0, 100.0), (1, 10.0, 60.0), (3, 12.0, 120.0), (8, 20.0, 250.0), (4, 6.0, 1000.0)]


def walk(frames, columns, seed=0):
    """Random walks (frames, columns) with a few hundred units of spread: marker-like, noisy."""
    return np.cumsum(np.random.default_rng(seed).normal(0, 10, (frames, columns)), axis=0)


@pytest.mark.parametrize(("order", "cutoff", "rate"), DESIGNS)
def test_the_coefficients_are_scipys(order, cutoff, rate):
    b, a = butterworth(order, cutoff, rate)
    expected_b, expected_a = signal.butter(order, cutoff, fs=rate)
    np.testing.assert_allclose(b, expected_b, rtol=1e-12, atol=0)
    np.testing.assert_allclose(a, expected_a, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(("order", "cutoff", "rate"), DESIGNS[:-1])
def test_the_output_is_scipys_filtfilt(order, cutoff, rate):
    values = walk(3000, 4)  # longer than a stretch of blocks and groups: the state is carried across them
    expected = signal.filtfilt(*signal.butter(order, cutoff, fs=rate), values, axis=0)
    scale = np.abs(values).max()
    assert np.abs(lowpass(values, cutoff, rate, order) - expected).max() <= 1e-9 * scale


def test_a_low_cutoff_at_a_high_rate_is_the_exact_filter():
    """6 Hz at 1000 Hz: the (b, a) form loses digits (scipy's filtfilt and sosfiltfilt differ by
    1e-10 of the signal); ours is the cascade of sections, as sosfiltfilt with filtfilt's padding."""
    values = walk(20000, 2)
    sections = signal.butter(4, 6.0, fs=1000.0, output="sos")
    expected = signal.sosfiltfilt(sections, values, axis=0, padlen=padlen(4))
    ours = lowpass(values, 6.0, 1000.0)
    scale = np.abs(values).max()
    assert np.abs(ours - expected).max() <= 1e-11 * scale
    assert np.abs(ours - signal.filtfilt(*signal.butter(4, 6.0, fs=1000.0), values, axis=0)).max() <= 1e-8 * scale


def test_the_edges_follow_filtfilts_odd_extension():
    """A constant passes unchanged (each pass starts in its steady state); a run just longer than
    padlen is filtered as filtfilt does it, one no longer is refused."""
    constant = np.full((40, 2), [3.5, -120.25])
    np.testing.assert_allclose(lowpass(constant, 6.0, 100.0), constant, rtol=1e-13)
    short = walk(padlen(4) + 1, 3)
    expected = signal.filtfilt(*signal.butter(4, 6.0, fs=100.0), short, axis=0)
    np.testing.assert_allclose(lowpass(short, 6.0, 100.0), expected, atol=1e-9 * np.abs(short).max())
    with pytest.raises(ValueError, match="needs more than 15"):
        lowpass(short[:-1], 6.0, 100.0)


@pytest.mark.parametrize(("order", "cutoff"), [(0, 6.0), (2.5, 6.0), (4, 0.0), (4, 50.0), (4, float("nan"))])
def test_bad_designs_are_refused(order, cutoff):
    with pytest.raises(ValueError, match="order|cutoff"):
        butterworth(order, cutoff, 100.0)


def take(frames=200):
    rng = np.random.default_rng(3)
    positions = walk(frames, 9, seed=4).reshape(frames, 3, 3).astype(np.float32)
    positions[50:60, 0] = np.nan  # a gap in the middle
    positions[:5, 1] = np.nan  # seen from frame 5
    positions[100:190, 1] = np.nan  # ... and a run of 10 frames after the gap: too short to filter
    seen = ~np.isnan(positions[..., 0])
    return core.Markers(
        ["a", "b", "c"],
        positions,
        100.0,
        units="mm",
        first_frame=11,
        residuals=np.where(seen, rng.uniform(0.1, 2, seen.shape), np.nan).astype(np.float32),
        camera_masks=np.where(seen, 7, 0).astype(np.uint8),
        analog=Analog(walk(frames * 10, 2, seed=5).astype(np.float32), 1000.0, ["fz", "emg"]),
        events=[Event(0.5, "Foot Strike", "Left")],
        metadata={"note": 1},
    )


def test_markers_are_filtered_run_by_run_and_gaps_stay_gaps():
    markers = take()
    before = markers.positions.copy()
    with pytest.warns(UserWarning, match=r"1 run of 15 frames or fewer .*: b 201-210$"):
        result = core.filter_markers(markers, 6.0)
    np.testing.assert_array_equal(markers.positions, before)  # the input is unchanged
    assert result.positions.dtype == np.float32 and result.positions is not markers.positions
    np.testing.assert_array_equal(np.isnan(result.positions), np.isnan(before))
    b, a = signal.butter(4, 6.0, fs=100.0)
    runs = [(0, 0, 50), (0, 60, 200), (1, 5, 100), (2, 0, 200)]
    for m, start, stop in runs:
        expected = signal.filtfilt(b, a, before[start:stop, m].astype(float), axis=0)
        np.testing.assert_allclose(result.positions[start:stop, m], expected, rtol=1e-6, atol=1e-3)
    np.testing.assert_array_equal(result.positions[190:, 1], before[190:, 1])  # too short: as it was
    assert not np.allclose(result.positions[:, 2], before[:, 2])
    # everything else as it was
    np.testing.assert_array_equal(result.residuals, markers.residuals)
    np.testing.assert_array_equal(result.camera_masks, markers.camera_masks)
    assert (result.names, result.rate, result.first_frame, result.units) == (["a", "b", "c"], 100.0, 11, "mm")
    assert result.events == markers.events and result.metadata == markers.metadata
    np.testing.assert_array_equal(result.analog.values, markers.analog.values)  # no analog_cutoff: kept


def test_analog_channels_are_filtered_at_their_rate():
    markers = take()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the short run
        result = core.filter_markers(markers, 6.0, order=2, analog_cutoff=50.0)
    expected = signal.filtfilt(*signal.butter(2, 50.0, fs=1000.0), markers.analog.values.astype(float), axis=0)
    assert result.analog.values.dtype == np.float32 and result.analog.rate == 1000.0
    np.testing.assert_allclose(result.analog.values, expected, rtol=1e-6, atol=1e-3)
    assert result.analog.names == ["fz", "emg"]
    with pytest.raises(ValueError, match="cutoff 600 Hz must lie between 0 and half the rate"):
        core.filter_markers(markers, 6.0, analog_cutoff=600.0)


def test_takes_without_runs_long_enough_or_without_frames():
    empty = core.Markers(["a"], np.zeros((0, 1, 3)), 100.0)
    assert core.filter_markers(empty).frame_count == 0
    never = core.Markers(["a"], np.full((30, 1, 3), np.nan), 100.0)
    assert np.isnan(core.filter_markers(never).positions).all()
    with pytest.raises(ValueError, match="cutoff 50 Hz"):
        core.filter_markers(never, 50.0)


def test_markers_seen_over_the_same_frames_are_filtered_as_one():
    """Many markers and frames at once (column stretches, chunking) give each marker's own result."""
    values = walk(5000, 60, seed=9)
    markers = core.Markers([f"m{i}" for i in range(20)], values.reshape(5000, 20, 3), 120.0)
    expected = signal.filtfilt(*signal.butter(4, 8.0, fs=120.0), values, axis=0)
    result = core.filter_markers(markers, 8.0).positions.reshape(5000, 60)
    assert np.abs(result - expected).max() <= 1e-9 * np.abs(values).max()


def test_the_docs_state_the_defaults_and_the_padding():
    text = " ".join((pathlib.Path(__file__).parents[2] / "docs" / "markers.md").read_text(encoding="utf-8").split())
    signature = re.search(r"`core\.filter_markers\(markers, cutoff=([\d.]+), order=(\d+), \*, analog_cutoff", text)
    defaults = inspect.signature(core.filter_markers).parameters
    assert (float(signature[1]), int(signature[2])) == (defaults["cutoff"].default, defaults["order"].default)
    assert int(re.search(r"3 x \(order \+ 1\) samples at each end \((\d+) at order 4\)", text)[1]) == padlen(4)
    blocks = re.search(r"blocks of (\d+) samples .* groups of (\d+) blocks .* once per (\d+) samples", text)
    assert tuple(map(int, blocks.groups())) == (filtering._BLOCK, filtering._GROUP, filtering._BLOCK * filtering._GROUP)
