"""The main job: generate a sample take, read it, print what it holds, write it back out.

    python tools/demo.py [file.bvh ...]

Without arguments it writes out/sample.bvh (a generated CMU-like walk, 31 joints x 1,200 frames)
and uses that.
"""

import pathlib
import sys
import time

from package import ROOT, import_package
from sample_motion import cmu_like_motion


def summary(core, path):
    start = time.perf_counter()
    motion = core.read(path)
    read_time = time.perf_counter() - start
    positions = motion.world_positions()
    low, high = positions.min(axis=(0, 1)), positions.max(axis=(0, 1))
    rows = [("file", str(path)), ("joints", motion.skeleton.joint_count),
            ("end sites", len(motion.skeleton.end_site_parents)), ("frames", motion.frame_count),
            ("fps", f"{motion.fps:.6g}"), ("duration", f"{motion.frame_count / motion.fps:.3f} s"),
            ("extent (file units)", " x ".join(f"{v:.1f}" for v in high - low)),
            ("read + FK", f"{(time.perf_counter() - start) * 1000:.1f} ms (read {read_time * 1000:.1f} ms)")]
    width = max(len(k) for k, _ in rows)
    print("\n".join(f"  {k:<{width}}  {v}" for k, v in rows))
    return motion


def main(paths):
    core = import_package().core
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    if not paths:
        paths = [out / "sample.bvh"]
        core.write(cmu_like_motion(core, 1200), paths[0])
    for path in map(pathlib.Path, paths):
        motion = summary(core, path)
        copy = out / (path.stem + "_copy.bvh")
        core.write(motion, copy)
        print(f"  written back to  {copy}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
