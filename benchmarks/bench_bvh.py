"""BVH core speed against pybvh, bvhio and the numpy floor, on generated CMU-like takes.

    python benchmarks/bench_bvh.py [frames ...]        (default: 10000 100000)

Needs pybvh and bvhio (requirements-bench.txt); a missing peer is reported, not fatal. Prints one
table per file: seconds (best of several runs) and ratios, all measured in this process.
"""

import importlib
import io
import pathlib
import sys
import tempfile
import tracemalloc

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from timing import best

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


def bench(frames, folder):
    path = folder / f"cmu_like_{frames}.bvh"
    motion = cmu_like_motion(core, frames)
    core.write(motion, path)
    repeat = 5 if frames <= 10_000 else 2
    block = motion_block(path)
    motion = core.read(path)
    table = np.loadtxt(io.BytesIO(block))
    rows = []
    read = best(lambda: core.read(path), repeat)
    floor_time, floor_name = floor(block, repeat)
    rows.append(("read", read, f"floor ({floor_name})", floor_time))
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
    print(f"\n{frames} frames x 31 joints, {size / 1e6:.1f} MB")
    print(f"  {'operation':<15} {'ours (s)':>9}  {'against':<28} {'theirs (s)':>10} {'theirs/ours':>11}")
    for operation, ours, name, theirs in rows:
        if theirs is None:
            print(f"  {operation:<15} {ours:9.3f}  {name:<28} {'-':>10} {'-':>11}")
        else:
            print(f"  {operation:<15} {ours:9.3f}  {name:<28} {theirs:10.3f} {theirs / ours:11.2f}")
    budget = size + table.nbytes
    print(
        f"  peak memory of a read: {peak / 1e6:.0f} MB = {peak / budget:.2f} x (file + float64 array "
        f"= {budget / 1e6:.0f} MB)"
    )


def main(counts):
    with tempfile.TemporaryDirectory() as folder:
        for frames in counts or [10_000, 100_000]:
            bench(int(frames), pathlib.Path(folder))


if __name__ == "__main__":
    main(sys.argv[1:])
