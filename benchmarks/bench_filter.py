"""Zero-lag Butterworth filtering: core.filtering (numpy alone) against scipy.signal's
butter + filtfilt (and sosfiltfilt with filtfilt's padding), time and largest difference.

Cases: 100 markers x 100,000 frames at 100 Hz (300 columns, 6 Hz, order 4); 16 analog channels x
1,000,000 samples at 1000 Hz (6 Hz and 50 Hz, order 4); and filter_markers on the same take with
5 % of its frames in gaps (3,000 runs between gaps, each filtered on its own) against a loop of
scipy's filtfilt over the runs. Random walks (marker-like: a few hundred units of spread).
Differences are given relative to the largest value of the input; filtfilt works on the (b, a)
form, which loses digits for low cutoffs at high rates (sosfiltfilt is the exact filter there).
Time: best of 3, in turns (benchmarks/timing.py); BLAS threads as numpy has them.

    python benchmarks/bench_filter.py
"""

import warnings

import numpy as np
from scipy import signal
from timing import interleaved

from mocap_io import core
from mocap_io.core.filtering import lowpass, padlen

ORDER = 4


def walks(frames, columns, seed=0):
    return np.cumsum(np.random.default_rng(seed).normal(0, 10, (frames, columns)), axis=0)


def arrays(name, values, cutoff, rate):
    """One row: lowpass against filtfilt and sosfiltfilt on the columns of `values`."""
    b, a = signal.butter(ORDER, cutoff, fs=rate)
    sections = signal.butter(ORDER, cutoff, fs=rate, output="sos")
    results = {}
    candidates = {
        "ours": lambda: results.__setitem__("ours", lowpass(values, cutoff, rate, ORDER)),
        "filtfilt": lambda: results.__setitem__("filtfilt", signal.filtfilt(b, a, values, axis=0)),
        "sosfiltfilt": lambda: results.__setitem__(
            "sosfiltfilt", signal.sosfiltfilt(sections, values, axis=0, padlen=padlen(ORDER))
        ),
    }
    times = interleaved(candidates, 3)
    scale = np.abs(values).max()
    row(name, times, *(np.abs(results["ours"] - results[peer]).max() / scale for peer in ("filtfilt", "sosfiltfilt")))


def gappy(frames=100_000, count=100):
    """filter_markers on a take with gaps against scipy's filtfilt run by run."""
    rng = np.random.default_rng(1)
    positions = walks(frames, 3 * count).reshape(frames, count, 3)
    for m in range(count):  # 30 gaps of 1 to 300 frames per marker: 5 % of the frames
        for start in rng.choice(frames - 300, 30, replace=False):
            positions[start : start + rng.integers(1, 300), m] = np.nan
    markers = core.Markers([f"m{i}" for i in range(count)], positions, 100.0)
    b, a = signal.butter(ORDER, 6.0, fs=100.0)
    edge = padlen(ORDER)

    def scipy_runs():
        out = positions.copy()
        for m in range(count):
            seen = np.r_[False, markers.valid[:, m], False].astype(np.int8)
            starts, stops = np.flatnonzero(np.diff(seen) == 1), np.flatnonzero(np.diff(seen) == -1)
            for start, stop in zip(starts, stops, strict=True):
                if stop - start > edge:
                    out[start:stop, m] = signal.filtfilt(b, a, positions[start:stop, m], axis=0)
        return out

    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # runs too short to filter
        times = interleaved(
            {
                "ours": lambda: results.__setitem__("ours", core.filter_markers(markers, 6.0, ORDER).positions),
                "filtfilt": lambda: results.__setitem__("filtfilt", scipy_runs()),
            },
            3,
        )
    difference = np.nanmax(np.abs(results["ours"] - results["filtfilt"])) / np.nanmax(np.abs(positions))
    assert (np.isnan(results["ours"]) == np.isnan(positions)).all()
    runs = sum(len(v) for v in [np.flatnonzero(np.diff(np.r_[0, markers.valid[:, m], 0]) == 1) for m in range(count)])
    row(f"filter_markers, 100 markers, {runs} runs", times, difference, None)


def row(name, times, filtfilt, sosfiltfilt):
    others = "  ".join(f"{peer} {times[peer]:.2f} s" for peer in times if peer != "ours")
    sos = f"{sosfiltfilt:.1e}" if sosfiltfilt is not None else "-"
    print(f"  {name:<44} ours {times['ours']:.2f} s  {others}  |diff| filtfilt {filtfilt:.1e}  sosfiltfilt {sos}")


def main():
    arrays("markers 300 columns x 100,000 at 100 Hz, 6 Hz", walks(100_000, 300), 6.0, 100.0)
    analog = walks(1_000_000, 16, seed=2)
    arrays("analog 16 x 1,000,000 at 1000 Hz, 6 Hz", analog, 6.0, 1000.0)
    arrays("analog 16 x 1,000,000 at 1000 Hz, 50 Hz", analog, 50.0, 1000.0)
    gappy()


if __name__ == "__main__":
    main()
