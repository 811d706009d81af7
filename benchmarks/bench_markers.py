"""Marker read speed against ezc3d (C++) and the c3d package (pure Python), on a generated long
take: 100 markers x 100,000 frames at 100 Hz with 16 analog channels at 1000 Hz (float storage,
5% gaps), written by our writer. Every reader is timed in this process, on the same file.

    python benchmarks/bench_markers.py [frames]        (default: 100000)

Needs ezc3d and c3d (requirements-bench.txt); a missing peer is reported, not fatal. Prints
seconds (best of several runs) and ratios. Each peer's result is checked against ours first.
"""

import importlib
import pathlib
import sys
import tempfile

import numpy as np
from timing import best

from mocap_io import core
from mocap_io.core.markers import Analog, Markers

MARKERS, CHANNELS, RATE, PER_FRAME = 100, 16, 100.0, 10


def long_take(frames):
    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.normal(0, 2, (frames, MARKERS, 3)), axis=0, dtype=np.float64) + rng.normal(
        0, 500, (MARKERS, 3)
    )
    positions = walk.astype(np.float32)
    positions[rng.random((frames, MARKERS)) < 0.05] = np.nan
    analog = Analog(
        rng.normal(0, 50, (frames * PER_FRAME, CHANNELS)).astype(np.float32),
        RATE * PER_FRAME,
        [f"Force.Fz{i}" for i in range(CHANNELS)],
        ["N"] * CHANNELS,
    )
    return Markers([f"marker{i:03d}" for i in range(MARKERS)], positions, RATE, units="mm", analog=analog)


def read_ezc3d(lib, path):
    c = lib.c3d(str(path))
    return c["data"]["points"][:3].transpose(2, 1, 0), c["data"]["analogs"][0].T


def read_c3d(lib, path):
    points, analog = [], []
    with open(path, "rb") as f:
        for _, p, a in lib.Reader(f).read_frames():
            points.append(p)
            analog.append(a)
    points = np.array(points)
    return np.where(points[..., 3:4] < 0, np.nan, points[..., :3]), np.concatenate([a.T for a in analog])


def main(frames):
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "long.c3d"
        markers = long_take(frames)
        write = best(lambda: core.write(markers, path), 2)
        ours = core.read(path)
        read = best(lambda: core.read(path), 3)
        size = path.stat().st_size
        print(
            f"\n{MARKERS} markers x {frames} frames at {RATE:g} Hz, {CHANNELS} analog channels at "
            f"{RATE * PER_FRAME:g} Hz: {size / 1e6:.0f} MB"
        )
        print(f"  {'read with':<22} {'seconds':>8} {'theirs/ours':>11}")
        print(f"  {'mocap_io core.read':<22} {read:8.2f} {1:11.2f}")
        for name, module, call, repeat in (("ezc3d", "ezc3d", read_ezc3d, 2), ("c3d", "c3d", read_c3d, 1)):
            try:
                lib = importlib.import_module(module)
            except ImportError:
                print(f"  {name:<22} {'not installed':>8}")
                continue
            positions, analog = call(lib, path)
            assert np.array_equal(positions, ours.positions, equal_nan=True), name
            assert np.array_equal(analog, ours.analog.values), name
            seconds = best(lambda lib=lib, call=call: call(lib, path), repeat)
            print(f"  {name:<22} {seconds:8.2f} {seconds / read:11.2f}")
        print(f"  write (ours): {write:.2f} s")
        # Blender import of 100 markers x 10,000 frames (empties, keyed locations) against
        # io_anim_c3d's approach (keyframe_insert per key): the lead adds it here, timed in Blender.


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
