"""BVH core speed against pybvh, bvhio, polars.read_csv and the numpy floor, on generated takes
(CMU-like for 31 joints, a wide skeleton of chains otherwise).

    python benchmarks/bench_bvh.py [JOINTSxFRAMES ...]        (default: 31x20000 200x20000 31x100000)

Needs pybvh and bvhio (requirements-bench.txt); a missing peer is reported, not fatal. Prints one
table per file: seconds (best of several runs) and ratios, all measured in this process.
"""

import importlib
import io
import os
import pathlib
import sys
import tempfile
import tracemalloc

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from timing import best, interleaved

from mocap_io import core
from sample_motion import cmu_like_motion


def motion_block(path):
    data = pathlib.Path(path).read_bytes()
    start = data.index(b"Frame Time:")
    return data[data.index(b"\n", start) + 1 :]


def floor(block, repeat):
    """The fastest plain numpy parse of the MOTION block alone (no checks, no header)."""
    text = block.decode("latin-1")
    candidates = {
        "loadtxt": lambda: np.loadtxt(io.BytesIO(block)),
        "fromstring": lambda: np.fromstring(text, sep=" "),
        "split": lambda: np.array(block.split(), float),
    }
    times = {name: best(f, repeat) for name, f in candidates.items()}
    name = min(times, key=times.get)
    return times[name], name


def peer(module, call, repeat):
    try:
        lib = importlib.import_module(module)
    except ImportError:
        return None
    return best(lambda: call(lib), repeat)


def peak_memory(function):
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def wide_motion(joints, frames):
    """A take of `joints` joints (a root and chains of 10 under it), rotating randomly."""
    names = [f"j{j}" for j in range(joints)]
    parents = [-1] + [0 if j % 10 == 1 else j - 1 for j in range(1, joints)]
    skeleton = core.Skeleton(names, parents, np.tile([0.0, 5.0, 0.0], (joints, 1)))
    rng = np.random.default_rng(0)
    euler = np.radians(rng.uniform(-90.0, 90.0, (frames, joints, 3)))
    translations = np.repeat(skeleton.offsets[None], frames, axis=0)
    translations[:, 0] += rng.normal(0.0, 50.0, (frames, 3))
    return core.Motion(skeleton, 120.0, euler, ["ZXY"] * joints, translations)


def polars_read(path, block, repeat):
    """Seconds of core.read(path) and of polars.read_csv of the MOTION block (space separated,
    schema inferred, all its threads; None without polars), run in turns: both meet the same quiet
    and busy moments of a shared machine."""
    try:
        import polars
    except ImportError:
        return best(lambda: core.read(path), repeat), None
    times = interleaved(
        {
            "ours": lambda: core.read(path),
            "polars": lambda: polars.read_csv(io.BytesIO(block), separator=" ", has_header=False),
        },
        repeat,
    )
    return times["ours"], times["polars"]


def bench(joints, frames, folder):
    path = folder / f"take_{joints}x{frames}.bvh"
    motion = cmu_like_motion(core, frames) if joints == 31 else wide_motion(joints, frames)
    core.write(motion, path)
    repeat = 5 if frames <= 10_000 else 2
    fast = 9  # runs of our read and polars': the best of many, as both vary with the machine's load
    block = motion_block(path)
    motion = core.read(path)
    table = np.loadtxt(io.BytesIO(block))
    rows = []
    read, polars_time = polars_read(path, block, fast)
    floor_time, floor_name = floor(block, repeat)
    rows.append(("read", read, f"floor ({floor_name})", floor_time))
    rows.append(("read", read, "polars.read_csv (MOTION block)", polars_time))
    for name, module, call, times in (
        ("pybvh", "pybvh", lambda lib: lib.read_bvh_file(path), repeat),
        ("bvhio", "bvhio", lambda lib: lib.readAsBvh(str(path)), 1),
    ):
        seconds = peer(module, call, times)
        rows.append(("read", read, name + (" (not installed)" if seconds is None else ""), seconds))
    write = best(lambda: core.write(motion, folder / "out.bvh"), repeat)
    savetxt = best(lambda: np.savetxt(folder / "savetxt.txt", table, fmt="%.6f"), max(1, repeat // 2))
    rows.append(("write", write, "numpy.savetxt (same array)", savetxt))
    fk = best(motion.world_positions, repeat)
    rows.append(("FK, all frames", fk, "our read", read))
    size = path.stat().st_size
    peak = peak_memory(lambda: core.read(path))
    print(f"\n{frames} frames x {joints} joints, {size / 1e6:.1f} MB")
    print(f"  {'operation':<15} {'ours (s)':>9}  {'against':<28} {'theirs (s)':>10} {'theirs/ours':>11}")
    for operation, ours, name, theirs in rows:
        if theirs is None:
            print(f"  {operation:<15} {ours:9.3f}  {name:<28} {'-':>10} {'-':>11}")
        else:
            print(f"  {operation:<15} {ours:9.3f}  {name:<28} {theirs:10.3f} {theirs / ours:11.2f}")
    result = motion.euler.nbytes + motion.translations.nbytes
    print(
        f"  peak memory of a read: {peak / 1e6:.0f} MB = {peak / result:.2f} x the result's arrays "
        f"({result / 1e6:.0f} MB: Euler angles and translations, float64)"
    )


def main(takes):
    with tempfile.TemporaryDirectory() as folder:
        for take in takes or ["31x20000", "200x20000", "31x100000"]:
            joints, frames = (int(n) for n in take.split("x"))
            bench(joints, frames, pathlib.Path(folder))
    print(f"\nnumpy {np.__version__}; load average at the end {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main(sys.argv[1:])
