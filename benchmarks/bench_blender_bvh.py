"""Blender BVH import/export: ours against Blender's built-in operators, in one process.

    python benchmarks/bench_blender_bvh.py [frames ...]     (default: 1000 10000; needs bpy)

Every timed call starts from a fresh empty scene; files are generated CMU-like takes (31 joints).
"""

import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import bpy

import mocap_io
from sample_motion import cmu_like_motion

mocap_io.register()  # classes stay registered across read_factory_settings


def fresh_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def timed(setup, action, repeat):
    best = float("inf")
    for _ in range(repeat):
        fresh_scene()
        setup()
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def bench(frames, folder):
    path = str(folder / f"cmu_like_{frames}.bvh")
    mocap_io.core.write(cmu_like_motion(mocap_io.core, frames), path)
    out = str(folder / "out.bvh")
    repeat = 5 if frames <= 1000 else 3
    rows = []
    ours = timed(lambda: None, lambda: bpy.ops.import_anim.mocap_bvh(filepath=path), repeat)
    builtin = timed(lambda: None, lambda: bpy.ops.import_anim.bvh(filepath=path), repeat)
    rows.append(("import", ours, builtin))
    ours = timed(lambda: bpy.ops.import_anim.mocap_bvh(filepath=path),
                 lambda: bpy.ops.export_anim.mocap_bvh(filepath=out), repeat)
    builtin = timed(lambda: bpy.ops.import_anim.bvh(filepath=path, update_scene_duration=True),
                    lambda: bpy.ops.export_anim.bvh(filepath=out, frame_start=1, frame_end=frames), repeat)
    rows.append(("export", ours, builtin))
    read = min(timed(lambda: None, lambda: mocap_io.core.read(path), repeat) for _ in range(2))
    print(f"\n{frames} frames x 31 joints (bpy {bpy.app.version_string})")
    print(f"  {'operation':<10} {'ours (s)':>9} {'built-in (s)':>13} {'built-in/ours':>14}")
    for name, ours, builtin in rows:
        print(f"  {name:<10} {ours:9.3f} {builtin:13.3f} {builtin / ours:14.1f}")
    print(f"  (of our import, the core read takes {read:.3f} s)")


def main(counts):
    with tempfile.TemporaryDirectory() as folder:
        for frames in counts or [1000, 10_000]:
            bench(int(frames), pathlib.Path(folder))


if __name__ == "__main__":
    main(sys.argv[1:])
