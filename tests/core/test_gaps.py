"""Marker gap filling (core.fill_gaps): each method exact where its model holds (a rigid body, a
cubic, a donor at a constant offset), the edges of a take, the limits (max_gap, donors), the input
and the seen samples untouched, residual 0 through a C3D, and a hold-out on real takes."""

import pathlib
import re
import warnings

import numpy as np
import pytest

from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.core.gaps import MAX_GAP, FillReport, Gap

RATE = 100.0


def rotations(frames):
    """(F, 3, 3) a smooth, large rotation about a turning axis."""
    t = np.arange(frames) / RATE
    axis = np.stack([np.cos(t), np.sin(0.7 * t), 0.5 + 0 * t], axis=1)
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = 1.5 * np.sin(1.3 * t)
    k = np.zeros((frames, 3, 3))
    k[:, [2, 0, 1], [1, 2, 0]] = axis
    k -= k.transpose(0, 2, 1)
    return np.eye(3) + np.sin(angle)[:, None, None] * k + (1 - np.cos(angle))[:, None, None] * k @ k


def rigid_take(frames=200, others=2):
    """Five markers on one rigid body (the first is the one to cut) and `others` that move their
    own ways, in mm."""
    rng = np.random.default_rng(3)
    body = rng.normal(0, 80, (5, 3))
    t = np.arange(frames)[:, None] / RATE
    path = np.hstack([300 * np.sin(t), 200 * np.cos(0.8 * t), 1000 + 50 * t])
    on_body = np.einsum("fij,mj->fmi", rotations(frames), body) + path[:, None]
    free = rng.normal(0, 300, (others, 3)) + 150 * np.sin(t[:, :, None] * rng.uniform(2, 6, (others, 3)))
    positions = np.concatenate([on_body, free.transpose(0, 1, 2).reshape(frames, others, 3)], axis=1)
    names = ["target", "b1", "b2", "b3", "b4"] + [f"free{i}" for i in range(others)]
    return core.Markers(names, positions, RATE, units="mm")


def cut(markers, marker, start, stop):
    positions = markers.positions.copy()
    positions[start:stop, marker] = np.nan
    return core.Markers(markers.names, positions, markers.rate, units=markers.units)


def test_rigid_recovers_a_marker_on_a_rigid_body():
    truth = rigid_take()
    for method in ("rigid", "auto"):
        filled, report = core.fill_gaps(cut(truth, 0, 60, 140), method, max_gap=None)
        assert [(g.marker, g.name, g.start, g.stop, g.method) for g in report.filled] == [
            (0, "target", 60, 140, "rigid")
        ]
        np.testing.assert_allclose(filled.positions, truth.positions, rtol=0, atol=1e-9)


def test_rigid_needs_three_donors_and_no_ends():
    truth = rigid_take(others=0)
    three = core.Markers(truth.names[:4], truth.positions[:, :4], RATE)
    for start, stop in ((0, 50), (150, 200)):  # no sample before, no sample after
        filled, report = core.fill_gaps(cut(three, 0, start, stop), "rigid", max_gap=None)
        assert report.frames_filled == 50
        np.testing.assert_allclose(filled.positions, three.positions, rtol=0, atol=1e-9)
    two = core.Markers(truth.names[:3], truth.positions[:, :3], RATE)
    filled, report = core.fill_gaps(cut(two, 0, 50, 60), "rigid")
    assert report.unfilled == [Gap(0, "target", 50, 60, "rigid", "fewer than 3 donors seen throughout")]
    assert np.isnan(filled.positions[50:60, 0]).all()


def test_spline_recovers_a_cubic():
    t = np.arange(120)[:, None] / RATE
    cubic = core.Markers(["m"], (5 + 40 * t - 300 * t**2 + 700 * t**3)[:, None, :] * [1, -2, 0.5], RATE)
    for method in ("spline", "auto"):  # one marker: auto can only use the spline
        filled, report = core.fill_gaps(cut(cubic, 0, 30, 55), method)
        assert [g.method for g in report.filled] == ["spline"]
        np.testing.assert_allclose(filled.positions, cubic.positions, rtol=0, atol=1e-9)


def test_pattern_follows_a_donor_at_a_constant_offset():
    t = np.arange(150) / RATE
    donor = np.stack([200 * np.sin(3 * t), 100 * np.cos(5 * t) ** 3, 50 * t**2], axis=1)
    truth = core.Markers(["m", "donor"], np.stack([donor + [10, -20, 30], donor], axis=1), RATE)
    for method in ("pattern", "auto"):
        for start, stop in ((40, 70), (0, 20), (130, 150)):
            filled, report = core.fill_gaps(cut(truth, 0, start, stop), method, max_gap=None)
            assert [g.method for g in report.filled] == ["pattern"]
            np.testing.assert_allclose(filled.positions, truth.positions, rtol=0, atol=1e-9)


def test_spline_leaves_the_take_s_ends_with_the_reason():
    t = np.arange(50)[:, None] / RATE
    markers = core.Markers(["m"], np.repeat(t[:, None] * 100, 3, axis=2), RATE)
    gapped = cut(cut(markers, 0, 0, 5), 0, 45, 50)
    expected = {
        "spline": ["no sample before: spline needs both ends", "no sample after: spline needs both ends"],
        "auto": ["no donor seen throughout and no sample before", "no donor seen throughout and no sample after"],
    }
    for method, reasons in expected.items():
        filled, report = core.fill_gaps(gapped, method)
        assert [(g.start, g.method, g.reason) for g in report.unfilled] == list(zip((0, 45), [method] * 2, reasons))
        assert np.array_equal(filled.positions, gapped.positions, equal_nan=True)
        assert str(report) == f"0 gaps filled, 2 left: 1 {reasons[0]}, 1 {reasons[1]}"


@pytest.mark.parametrize(
    "positions",
    [np.full((30, 3, 3), np.nan), np.full((1, 1, 3), np.nan), np.zeros((0, 2, 3)), np.zeros((10, 0, 3))],
    ids=["all missing", "one NaN sample", "no frames", "no markers"],
)
def test_takes_with_nothing_to_fill_from(positions):
    markers = core.Markers([f"m{i}" for i in range(positions.shape[1])], positions, RATE)
    for method in ("auto", "rigid", "pattern", "spline"):
        filled, report = core.fill_gaps(markers, method)
        assert np.array_equal(filled.positions, positions, equal_nan=True)
        assert report.filled == [] and report.frames_filled == 0
        assert [g.reason for g in report.unfilled] == ["never seen"] * (positions.shape[1] if len(positions) else 0)
    assert str(report) == (
        "no gaps" if not report.unfilled else f"0 gaps filled, {len(report.unfilled)} left: never seen"
    )


def test_a_marker_seen_in_three_frames_is_carried_by_its_donors():
    truth = rigid_take(frames=40)
    positions = truth.positions.copy()
    positions[:20, 0] = positions[23:, 0] = np.nan
    filled, report = core.fill_gaps(core.Markers(truth.names, positions, RATE), max_gap=None)
    assert [(g.start, g.stop, g.method) for g in report.filled] == [(0, 20, "rigid"), (23, 40, "rigid")]
    np.testing.assert_allclose(filled.positions, truth.positions, rtol=0, atol=1e-9)
    positions[21:23, 0] = np.nan  # seen once: too little to tell its donors (nor a spline: one side)
    report = core.fill_gaps(core.Markers(truth.names, positions, RATE), max_gap=None)[1]
    assert [g.reason for g in report.unfilled] == [
        "no donor seen throughout and no sample before",
        "no donor seen throughout and no sample after",
    ]


def c3d_like_take():
    """A float32 take with residuals and camera masks, and gaps in two markers."""
    truth = rigid_take()
    positions = truth.positions.astype(np.float32)
    positions[50:60, 0] = positions[100:103, 5] = np.nan
    seen = ~np.isnan(positions[..., 0])
    residuals = np.where(seen, np.random.default_rng(1).uniform(0.2, 3, seen.shape), np.nan).astype(np.float32)
    masks = np.where(seen, 0x15, 0).astype(np.uint8)
    return core.Markers(truth.names, positions, RATE, units="mm", residuals=residuals, camera_masks=masks)


def test_input_and_seen_samples_are_unchanged():
    markers = c3d_like_take()
    before = [markers.positions.copy(), markers.residuals.copy(), markers.camera_masks.copy()]
    filled, report = core.fill_gaps(markers)
    assert report.frames_filled == 13 and not report.unfilled
    for array, kept in zip((markers.positions, markers.residuals, markers.camera_masks), before, strict=True):
        assert np.array_equal(array, kept, equal_nan=True)
    seen = markers.valid
    assert filled.positions.dtype == np.float32 and filled.residuals.dtype == np.float32
    assert np.array_equal(filled.positions[seen], markers.positions[seen])
    assert np.array_equal(filled.residuals[seen], markers.residuals[seen])
    assert (filled.residuals[~seen] == 0).all() and (filled.camera_masks[~seen] == 0).all()
    assert filled.valid.all() and filled.names == markers.names and filled.rate == markers.rate


def test_filled_samples_read_back_from_c3d_as_interpolated(tmp_path):
    filled, _ = core.fill_gaps(c3d_like_take())
    filled.residuals[0, 1] = 0.01  # a seen residual below half the scale is not written as 0
    core.write(filled, tmp_path / "filled.c3d")
    back = core.read(tmp_path / "filled.c3d")
    interpolated = back.residuals == 0
    assert np.array_equal(interpolated, filled.residuals == 0)
    assert interpolated[50:60, 0].all() and interpolated[100:103, 5].all() and interpolated.sum() == 13
    assert back.residuals[0, 1] > 0
    assert np.array_equal(back.positions, filled.positions)


def test_max_gap_in_seconds():
    truth = rigid_take()
    gapped = cut(cut(truth, 0, 10, 10 + 25), 0, 100, 100 + 26)  # 0.25 s and 0.26 s at 100 Hz
    filled, report = core.fill_gaps(gapped)
    assert MAX_GAP == 0.25
    assert [(g.start, g.method) for g in report.filled] == [(10, "rigid")]
    assert report.unfilled == [Gap(0, "target", 100, 126, "auto", "longer than max_gap 0.25 s")]
    assert np.isnan(filled.positions[100:126, 0]).all() and not np.isnan(filled.positions[10:35, 0]).any()
    assert str(report) == "1 gap filled (1 rigid), 1 left: longer than max_gap 0.25 s"
    assert core.fill_gaps(gapped, max_gap=0.1)[1].frames_filled == 0
    assert core.fill_gaps(gapped, max_gap=None)[1].frames_filled == 51
    with pytest.raises(ValueError, match="max_gap"):
        core.fill_gaps(gapped, max_gap=-1)
    with pytest.raises(ValueError, match="method"):
        core.fill_gaps(gapped, "woltring")


def test_donors_limit_what_a_fill_draws_on():
    truth = rigid_take()
    gapped = cut(truth, 0, 60, 80)
    report = core.fill_gaps(gapped, donors={"target": ["b1", "free0", "free1"]})[1]
    assert [g.method for g in report.filled] in (["pattern"], ["spline"])  # b1, free0 and free1 are no rigid body
    assert core.fill_gaps(gapped, "rigid", donors=["b1", "b2"])[1].unfilled[0].reason.startswith("fewer than 3")
    filled, report = core.fill_gaps(gapped, "rigid", donors={"target": ["b2", "b3", "b4"]})
    np.testing.assert_allclose(filled.positions, truth.positions, rtol=0, atol=1e-9)
    with pytest.raises(KeyError, match="nobody"):
        core.fill_gaps(gapped, donors={"target": ["nobody"]})
    with pytest.raises(TypeError, match="list"):
        core.fill_gaps(gapped, donors="b1")


def test_the_documented_default_max_gap_is_the_code_s():
    text = " ".join((pathlib.Path(__file__).parents[2] / "docs" / "markers.md").read_text(encoding="utf-8").split())
    assert float(re.search(r"\(default max_gap ([\d.]+) s", text).group(1)) == MAX_GAP


def test_report_summary():
    gaps = [Gap(0, "a", 0, 4, "rigid"), Gap(1, "b", 2, 5, "rigid"), Gap(2, "c", 9, 10, "spline")]
    report = FillReport(gaps, [Gap(3, "d", 1, 90, "auto", "longer than max_gap 0.25 s")])
    assert str(report) == "3 gaps filled (2 rigid, 1 spline), 1 left: longer than max_gap 0.25 s"
    assert report.frames_filled == 8
    assert str(FillReport([], [])) == "no gaps"


HOLD_OUT = {  # take -> RMSE bound (mm); measured: 8.92 (12 gaps; one 45-frame gap of a hand marker
    # whose hand has two other markers gives 23.6 mm) and 0.21 (3 gaps)
    "c3d/btk/mocap36.c3d": 10,
    "trc/trc-data-reader/test_file_06_2tab_one_space.trc": 0.3,
}


@needs_corpus
@pytest.mark.parametrize("name", HOLD_OUT)
def test_hold_out_on_real_takes(name):
    """Gaps of 0.05 to 0.5 s cut into a third of a real take's complete trajectories, filled by
    auto, within the bound of the truth."""
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"no {path}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markers = core.read(path)
    complete = markers.valid.mean(axis=0) > 0.5  # over the longest run of frames where all these are seen:
    run = np.diff(np.r_[0, markers.valid[:, complete].all(axis=1), 0].astype(int))
    starts, stops = np.flatnonzero(run == 1), np.flatnonzero(run == -1)
    longest = np.argmax(stops - starts)
    truth = markers.positions[starts[longest] : stops[longest]][:, complete].astype(np.float64)
    rng = np.random.default_rng(31)
    gapped = truth.copy()
    cuts = []
    for marker in rng.choice(truth.shape[1], truth.shape[1] // 3, replace=False):
        length = int(rng.integers(5, 50))
        start = int(rng.integers(10, len(truth) - 10 - length))
        gapped[start : start + length, marker] = np.nan
        cuts.append((marker, start, start + length))
    names = [n for n, c in zip(markers.names, complete, strict=True) if c]
    filled, report = core.fill_gaps(core.Markers(names, gapped, markers.rate), max_gap=None)
    assert report.frames_filled == sum(stop - start for _, start, stop in cuts) and not report.unfilled
    errors = np.concatenate([filled.positions[a:b, m] - truth[a:b, m] for m, a, b in cuts])
    rmse = np.sqrt(np.mean(np.sum(errors**2, axis=1)))
    assert rmse < HOLD_OUT[name], rmse
