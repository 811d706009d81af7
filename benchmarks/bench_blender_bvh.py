"""Blender BVH import/export: ours against Blender's built-in operators, in one run.

    python benchmarks/bench_blender_bvh.py [frames ...]     (default: 1000 10000; needs bpy)

Files are generated CMU-like takes (31 joints). Every timed call starts from a fresh empty scene.
Two measurements per operation: the FIRST call in a fresh process (what a user feels: module
imports, thread start-up and first-use costs included; each in its own subprocess, the median of
FIRST_RUNS), and the best of N calls in this process. Ratios are built-in time / our time.
"import" compares the defaults (ours keys quaternions: 4 curves per joint; the built-in keys Euler
angles: 3); "import (Euler)" compares like for like (ours with Euler keys in each joint's file order).
"""

import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))

FIRST_RUNS = 3
OPERATIONS = ("import", "import (Euler)", "export")


def bpy_session():
    """The bpy module with the add-on registered (imported only where a measurement needs it)."""
    import bpy

    import mocap_io

    mocap_io.register()  # classes stay registered across read_factory_settings
    return bpy


def calls(bpy, path, out, frames):
    """{(operation, who): (setup, timed call)}."""
    return {
        ("import", "ours"): (lambda: None, lambda: bpy.ops.import_anim.mocap_bvh(filepath=path)),
        ("import", "built-in"): (lambda: None, lambda: bpy.ops.import_anim.bvh(filepath=path)),
        # like for like: Euler keys in each joint's file order, as the built-in importer keys them
        ("import (Euler)", "ours"): (
            lambda: None,
            lambda: bpy.ops.import_anim.mocap_bvh(filepath=path, rotation_mode="NATIVE"),
        ),
        ("export", "ours"): (
            lambda: bpy.ops.import_anim.mocap_bvh(filepath=path),
            lambda: bpy.ops.export_anim.mocap_bvh(filepath=out),
        ),
        ("export", "built-in"): (
            lambda: bpy.ops.import_anim.bvh(filepath=path, update_scene_duration=True),
            lambda: bpy.ops.export_anim.bvh(filepath=out, frame_start=1, frame_end=frames),
        ),
    }


def timed(bpy, setup, action):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    setup()
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def first_call(operation, who, path, out, frames):
    """Seconds of one call in a fresh process (this script, run as a subprocess)."""
    result = subprocess.run(
        [sys.executable, __file__, "--first", operation, who, path, out, str(frames)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(result.stdout.strip().splitlines()[-1])


def bench(bpy, frames, folder, core):
    from sample_motion import cmu_like_motion

    path, out = str(folder / f"cmu_like_{frames}.bvh"), str(folder / "out.bvh")
    core.write(cmu_like_motion(core, frames), path)
    repeat = 5 if frames <= 1000 else 3
    table = calls(bpy, path, out, frames)
    rows = []
    seconds = {}  # (operation, who) -> (first call, best); the built-in has no Euler option: its import keys Euler
    for operation, who in table:
        first = statistics.median(first_call(operation, who, path, out, frames) for _ in range(FIRST_RUNS))
        seconds[operation, who] = first, min(timed(bpy, *table[operation, who]) for _ in range(repeat))
    seconds["import (Euler)", "built-in"] = seconds["import", "built-in"]
    for operation in OPERATIONS:
        (first_ours, best_ours), (first_theirs, best_theirs) = (
            seconds[operation, "ours"],
            seconds[operation, "built-in"],
        )
        rows.append([operation, first_ours, first_theirs, best_ours, best_theirs])
    read = min(timed(bpy, lambda: None, lambda: core.read(path)) for _ in range(repeat))
    print(
        f"\n{frames} frames x 31 joints (bpy {bpy.app.version_string}); first call: median of {FIRST_RUNS} "
        f"fresh processes; best of {repeat} in one process"
    )
    print(
        f"  {'operation':<14} {'first: ours':>11} {'built-in':>9} {'ratio':>6}   {'best: ours':>10} {'built-in':>9} "
        f"{'ratio':>6}"
    )
    for name, first_ours, first_theirs, best_ours, best_theirs in rows:
        print(
            f"  {name:<14} {first_ours:10.3f}s {first_theirs:8.3f}s {first_theirs / first_ours:6.1f}   "
            f"{best_ours:9.3f}s {best_theirs:8.3f}s {best_theirs / best_ours:6.1f}"
        )
    print(f"  (of our import, the core read takes {read:.3f} s)")


def main(counts):
    bpy = bpy_session()
    import mocap_io

    with tempfile.TemporaryDirectory() as folder:
        for frames in counts or [1000, 10_000]:
            bench(bpy, int(frames), pathlib.Path(folder), mocap_io.core)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--first"]:
        operation, who, path, out, frames = sys.argv[2:]
        bpy = bpy_session()
        print(timed(bpy, *calls(bpy, path, out, int(frames))[operation, who]))
    else:
        main(sys.argv[1:])
