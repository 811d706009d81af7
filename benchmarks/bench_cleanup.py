"""Marker gap filling against gapfill 0.0.7 and kineticstoolkit, by hold-out on real takes.

From corpus takes with long complete trajectories (../shared/corpus: OptiTrack's mocap36.c3d, 36
markers at 100 Hz; Motion Analysis' MACsample.c3d, a fast 60 Hz walk; a 100 Hz TRC of 9 markers;
Kaydara's Knee.trc, a rigid model at 200 Hz), the markers seen in half the frames or more, over the
longest run of frames where all of them are seen, are taken as the truth. (badParameterOffset.c3d
is left out: its 250 Hz frames repeat in pairs, a stair that no fill should reproduce.) Each round
(seeded) cuts one gap of 5 to 120 frames into a quarter of the markers that move, at random places
with at least MARGIN frames on either side; every method fills them and is compared with the
truth (mm) per gap-length band:

  - ours: core.fill_gaps with each method (auto, rigid, pattern, spline), max_gap=None, one call
    per round (it finds its own donors);
  - gapfill: fill_marker_gap_rbt (rigid, Kabsch from both ends), fill_marker_gap_pattern and
    fill_marker_gap_interp (a cubic InterpolatedUnivariateSpline), one call per gap, given the
    donors our rules pick among those seen throughout the gap (rigid: the 3 whose distance to the
    gapped marker varies least; pattern: the one whose offset varies least), so that the fill is
    what differs;
  - kineticstoolkit: TimeSeries.fill_missing_samples(0, method="cubic"), one call per round.

Time: each method's total over all rounds (ours includes finding donors; the peers are given
theirs). gapfill 0.0.7 calls np.int, which numpy 1.24 removed: the script restores the alias.

    python benchmarks/bench_cleanup.py [rounds]     (default: 40 rounds per take)

Needs gapfill and kineticstoolkit (requirements-bench.txt) and the corpus; a missing peer is
reported, not fatal.
"""

import importlib
import pathlib
import sys
import time
import warnings

import numpy as np

from mocap_io import core

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus"
TAKES = (
    "c3d/btk/mocap36.c3d",
    "c3d/btk-c3d.org-sample06/MACsample.c3d",
    "trc/trc-data-reader/test_file_06_2tab_one_space.trc",
    "trc/btk/Knee.trc",
)
BANDS = ((0.05, 0.15), (0.15, 0.5), (0.5, 1.0))
SHORTEST, LONGEST, MARGIN = 5, 120, 10
OURS = ("auto", "rigid", "pattern", "spline")


def complete(path):
    """The take's markers seen in at least half its frames, over the longest run of frames where
    all of them are seen (float64), and which of them move (more than 1 mm)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markers = core.read(path)
    seen = markers.valid
    kept = seen.mean(axis=0) >= 0.5
    run = np.diff(np.r_[0, seen[:, kept].all(axis=1).astype(int), 0])
    starts, stops = np.flatnonzero(run == 1), np.flatnonzero(run == -1)
    longest = np.argmax(stops - starts)
    truth = markers.positions[starts[longest] : stops[longest]][:, kept].astype(np.float64)
    names = [n for n, k in zip(markers.names, kept, strict=True) if k]
    moving = np.ptp(truth, axis=0).max(axis=1) > 1
    return core.Markers(names, truth, markers.rate, units=markers.units), moving


def cut(truth, moving, rng):
    """The take with one gap in a quarter of its moving markers: (gapped Markers, gaps as
    (marker, start, stop))."""
    frames = truth.frame_count
    longest = min(LONGEST, int(BANDS[-1][1] * truth.rate), frames - 2 * MARGIN)
    shortest = max(SHORTEST, int(np.ceil(BANDS[0][0] * truth.rate)))
    chosen = rng.choice(np.flatnonzero(moving), max(1, moving.sum() // 4), replace=False)
    positions = truth.positions.copy()
    gaps = []
    for marker in chosen:
        length = int(rng.integers(shortest, longest + 1))
        start = int(rng.integers(MARGIN, frames - MARGIN - length + 1))
        positions[start : start + length, marker] = np.nan
        gaps.append((marker, start, start + length))
    return core.Markers(truth.names, positions, truth.rate, units=truth.units), gaps


def donor_order(positions):
    """(2, M, M) each marker's others by how little their distance varies, and their offset (the
    rules ours uses for rigid and pattern donors)."""
    offset = positions[:, :, None] - positions[:, None, :]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spread = np.stack(
            [np.nanstd(np.linalg.norm(offset, axis=-1), axis=0), np.sqrt((np.nanstd(offset, axis=0) ** 2).sum(-1))]
        )
    spread[~np.isfinite(spread)] = np.inf
    spread[:, np.eye(positions.shape[1], dtype=bool)] = np.inf
    return np.argsort(spread, axis=2, kind="stable")


def donors_for(order, seen, marker, start, stop, count):
    """The first `count` donors of `marker` (by distance for 3, by offset for 1) seen from the frame
    before the gap to the one after."""
    picked = [d for d in order[int(count == 1), marker] if d != marker and seen[start - 1 : stop + 1, d].all()]
    return picked[:count]


def ours(method):
    def fill(gapped, gaps, order):
        return core.fill_gaps(gapped, method, max_gap=None)[0].positions

    return fill


def gapfill_method(name, count):
    gapfill = importlib.import_module("gapfill")
    function = getattr(gapfill, name)

    def fill(gapped, gaps, order):
        out = gapped.positions.copy()
        seen = gapped.valid
        for marker, start, stop in gaps:
            target = out[:, marker].copy()
            donors = donors_for(order, seen, marker, start, stop, count)
            if len(donors) < count:
                continue
            cluster = gapped.positions[:, donors].transpose(1, 0, 2)
            function(target, *([cluster[0]] if count == 1 else [cluster] if count else []))
            out[start:stop, marker] = target[start:stop]
        return out

    return fill


def ktk_cubic():
    ktk = importlib.import_module("kineticstoolkit")

    def fill(gapped, gaps, order):
        series = ktk.TimeSeries(time=np.arange(gapped.frame_count) / gapped.rate)
        for i in range(gapped.marker_count):
            series.data[f"m{i}"] = gapped.positions[:, i]
        filled = series.fill_missing_samples(0, method="cubic")
        return np.stack([filled.data[f"m{i}"] for i in range(gapped.marker_count)], axis=1)

    return fill


def methods():
    """name -> fill(gapped Markers, gaps, donor order) -> positions; the peers that import."""
    table = {f"ours {m}": ours(m) for m in OURS}
    np.int = int  # gapfill 0.0.7 calls np.int (removed in numpy 1.24)
    peers = {
        "gapfill rigid (rbt)": lambda: gapfill_method("fill_marker_gap_rbt", 3),
        "gapfill pattern": lambda: gapfill_method("fill_marker_gap_pattern", 1),
        "gapfill spline": lambda: gapfill_method("fill_marker_gap_interp", 0),
        "kineticstoolkit cubic": ktk_cubic,
    }
    for name, make in peers.items():
        try:
            table[name] = make()
        except ImportError as error:
            print(f"  {name}: not installed ({error.name})")
    return table


def main(rounds):
    if not CORPUS.is_dir():
        sys.exit(f"no corpus at {CORPUS}")
    table = methods()
    errors = {name: [[] for _ in BANDS] for name in table}
    per_take = {}
    left = dict.fromkeys(table, 0)
    seconds = dict.fromkeys(table, 0.0)
    counts = [0] * len(BANDS)
    rng = np.random.default_rng(31)
    for path in TAKES:
        truth, moving = complete(CORPUS / path)
        print(f"  {path}: {truth.marker_count} markers x {truth.frame_count} frames at {truth.rate:g} Hz")
        take = per_take[path] = {name: [[] for _ in BANDS] for name in table}
        for _ in range(rounds):
            gapped, gaps = cut(truth, moving, rng)
            order = donor_order(gapped.positions)
            bands = [band_of((stop - start) / truth.rate) for _, start, stop in gaps]
            for band in bands:
                if band is not None:
                    counts[band] += 1
            for name, fill in table.items():
                begin = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    filled = fill(gapped, gaps, order)
                seconds[name] += time.perf_counter() - begin
                for (marker, start, stop), band in zip(gaps, bands, strict=True):
                    error = np.linalg.norm(filled[start:stop, marker] - truth.positions[start:stop, marker], axis=1)
                    if np.isnan(error).any():
                        left[name] += 1
                    elif band is not None:
                        errors[name][band].append(error)
                        take[name][band].append(error)
    report(table, errors, left, seconds, counts)
    print("\n  per take, RMSE (mm): ours auto / the best peer in that band")
    for path, take in per_take.items():
        cells = ""
        for band in range(len(BANDS)):
            rmse = {name: rms(take[name][band]) for name in table if take[name][band]}
            peers = [name for name in rmse if not name.startswith("ours")]
            best = min(peers, key=rmse.get) if peers else None
            text = f"{rmse['ours auto']:.2f} / {rmse[best]:.2f} {best}" if best and "ours auto" in rmse else "-"
            cells += f"  {text:<36}"
        print(f"  {pathlib.Path(path).name:<36}{cells}")


def band_of(duration):
    for i, (low, high) in enumerate(BANDS):
        if low <= duration < high or (i == len(BANDS) - 1 and duration == high):
            return i
    return None


def rms(errors):
    return float(np.sqrt(np.mean(np.concatenate(errors) ** 2)))


def report(table, errors, left, seconds, counts):
    heads = "".join(f"{f'{low:g}-{high:g} s ({n})':>22}" for (low, high), n in zip(BANDS, counts, strict=True))
    print("\n  RMSE / max error (mm) per gap length (gaps), gaps left unfilled, seconds in total\n")
    print(f"  {'method':<24}{heads}{'left':>6}{'seconds':>9}")
    for name in table:
        cells = ""
        for band in errors[name]:
            if band:
                cells += f"{f'{rms(band):.2f} / {np.concatenate(band).max():.1f}':>22}"
            else:
                cells += f"{'-':>22}"
        print(f"  {name:<24}{cells}{left[name]:>6}{seconds[name]:>9.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
