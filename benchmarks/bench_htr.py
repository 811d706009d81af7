"""HTR core speed against the numpy floor, on a generated take of 60 segments.

    python benchmarks/bench_htr.py [frames ...]        (default: 20000)

The file is written by our writer from a CMU-like walk with finger chains (BVH -> HTR with its
base pose). Prints seconds (best of several runs) and ratios, all measured in this process: the
read against the fastest plain numpy parse of the same numbers (the frame rows of every segment
block, without headers or comments: no checks, no model), the write against numpy.savetxt of the
same table.
"""

import io
import pathlib
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from timing import best

from mocap_io import core
from sample_motion import cmu_like_motion

SEGMENTS = 60


def sixty_segments(frames):
    """The CMU-like walk (31 joints) with chains of finger joints under the hands: 60 segments."""
    walk = cmu_like_motion(core, frames)
    s = walk.skeleton
    names, parents, offsets = list(s.names), list(s.parents), list(s.offsets)
    rng = np.random.default_rng(1)
    while len(names) < SEGMENTS:
        hand = names.index("LeftHand" if len(names) % 2 else "RightHand")
        parent = hand if len(names) % 6 < 2 else len(names) - 2
        names.append(f"Finger{len(names)}")
        parents.append(parent)
        offsets.append(rng.uniform(-3, 3, 3))
    skeleton = core.Skeleton(
        names, parents, offsets, end_site_parents=s.end_site_parents, end_site_offsets=s.end_site_offsets
    )
    extra = SEGMENTS - s.joint_count
    euler = np.concatenate(
        [walk.euler, np.radians(20) * np.sin(np.arange(frames)[:, None, None] / 30 + rng.uniform(0, 6, (1, extra, 3)))],
        1,
    )
    translations = np.concatenate([walk.translations, np.broadcast_to(offsets[s.joint_count :], (frames, extra, 3))], 1)
    return core.Motion(skeleton, walk.fps, euler, ["ZXY"] * SEGMENTS, translations)


def frame_rows(path):
    """The frame rows of every segment block: the numbers alone."""
    data = pathlib.Path(path).read_bytes()
    start = data.index(b"#Beginning of Data.")
    lines = data[start : data.rindex(b"[EndOfFile]")].split(b"\n")
    return b"\n".join(line for line in lines if line and line[:1] not in b"[#")


def floor(rows, repeat):
    """The fastest plain numpy parse of the frame rows alone (no checks, no header)."""
    text = rows.decode("latin-1")
    candidates = {
        "loadtxt": lambda: np.loadtxt(io.BytesIO(rows)),
        "fromstring": lambda: np.fromstring(text, sep=" "),
        "split": lambda: np.array(rows.split(), float),
    }
    times = {name: best(f, repeat) for name, f in candidates.items()}
    name = min(times, key=times.get)
    return times[name], name


def bench(frames, folder):
    path = folder / f"walk_{frames}.htr"
    core.write(sixty_segments(frames), path)
    motion = core.read(path)
    repeat = 3
    rows = frame_rows(path)
    table = np.fromstring(rows.decode("latin-1"), sep=" ").reshape(-1, 8)
    assert table.shape == (SEGMENTS * frames, 8)
    read = best(lambda: core.read(path), repeat)
    floor_time, floor_name = floor(rows, repeat)
    write = best(lambda: core.write(motion, folder / "out.htr"), repeat)
    savetxt = best(lambda: np.savetxt(folder / "savetxt.txt", table, fmt="%.6f", delimiter="\t"), 1)
    fk = best(motion.world_positions, repeat)
    print(f"\n{SEGMENTS} segments x {frames} frames, {path.stat().st_size / 1e6:.1f} MB")
    print(f"  {'operation':<15} {'ours (s)':>9}  {'against':<28} {'theirs (s)':>10} {'theirs/ours':>11}")
    for operation, ours, name, theirs in (
        ("read", read, f"floor ({floor_name})", floor_time),
        ("write", write, "numpy.savetxt (same table)", savetxt),
        ("FK, all frames", fk, "our read", read),
    ):
        print(f"  {operation:<15} {ours:9.3f}  {name:<28} {theirs:10.3f} {theirs / ours:11.2f}")


def main(counts):
    with tempfile.TemporaryDirectory() as folder:
        for frames in counts or [20_000]:
            bench(int(frames), pathlib.Path(folder))


if __name__ == "__main__":
    main(sys.argv[1:])
