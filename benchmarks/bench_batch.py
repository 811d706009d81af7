"""Batch conversion speed: files per second of `mocap-io batch` against a plain loop doing the same
conversions (core.read + core.write, one file after another), and the per-file overhead of the
batch machinery (planning, outcome records, warnings capture, the report; processes) on small files.

    python benchmarks/bench_batch.py [files] [frames] [target]   (default: 300 files, 30 frames, bvh)

Every row converts the same generated BVH files (31 joints) to the target format (default BVH: the
cheapest conversion, where the machinery weighs most), measured in turns (best of 3):
  plain loop              the floor: read and write in this process, nothing else
  batch -j 1              the whole command on one worker process: the machinery's own cost (planning,
                          outcomes, the report) and that of shipping each file to the worker (target < 10 %)
  batch -j 2              two worker processes (on a machine with 2 cores, shared with others)
"""

import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from timing import interleaved

from mocap_io import cli, core
from sample_motion import cmu_like_motion


def make_files(folder, count, frames):
    """`count` small BVH files in nested folders (ten per folder)."""
    for i in range(count):
        path = folder / f"set{i // 10:03d}" / f"take{i:04d}.bvh"
        path.parent.mkdir(parents=True, exist_ok=True)
        core.write(cmu_like_motion(core, frames, seed=i), path)


def plain_loop(source, destination, target):
    for folder, _, names in os.walk(source):
        for name in sorted(names):
            out = os.path.join(destination, os.path.relpath(folder, source), name[:-4] + "." + target)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            core.write(core.read(os.path.join(folder, name)), out)


def command(source, destination, target, jobs):
    code = cli.main(["batch", source, destination, "--to", target, "-j", str(jobs), "--force", "-q"])
    assert code == 0, code


def main(count=300, frames=30, target="bvh"):
    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        source = scratch / "source"
        make_files(source, count, frames)
        size = sum(p.stat().st_size for p in source.rglob("*.bvh")) / count
        out = {name: str(scratch / name) for name in ("plain", "batch1", "batch2")}
        times = interleaved(
            {
                "plain loop": lambda: plain_loop(source, out["plain"], target),
                "batch -j 1": lambda: command(str(source), out["batch1"], target, 1),
                "batch -j 2": lambda: command(str(source), out["batch2"], target, 2),
            },
            3,
        )
    floor = times["plain loop"]
    print(f"{count} BVH files of {frames} frames, 31 joints ({size / 1024:.0f} KiB each) to {target.upper()}")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'':<18} {'seconds':>8} {'files/s':>8} {'vs loop':>8} {'overhead per file':>18}")
    for name, seconds in times.items():
        overhead = (seconds - floor) / count * 1000
        print(
            f"{name:<18} {seconds:>8.3f} {count / seconds:>8.1f} {seconds / floor:>7.2f}x "
            f"{overhead:>+9.3f} ms ({overhead / (floor / count * 1000):+.0%})"
        )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:4])
