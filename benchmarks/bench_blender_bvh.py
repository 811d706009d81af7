"""Blender BVH import/export: ours against Blender's built-in operators, in one run.

    python benchmarks/bench_blender_bvh.py [frames ...]     (default: 1000 10000; needs bpy)

Files are generated CMU-like takes (31 joints). Every timed call starts from a fresh empty scene.
Two measurements per operation: the FIRST call in a fresh process (what a user feels: module
imports, thread start-up and first-use costs included; each in its own subprocess, the median of
FIRST_RUNS), and the best of N calls in this process. The add-on's modules are compiled first, as
any Blender session after the first finds them (where PYTHONDONTWRITEBYTECODE is set, every fresh
process would otherwise compile the modules an import loads: some 25 ms of its first call).
Ratios are built-in time / our time.
"import" compares the defaults (ours keys quaternions: 4 curves per joint; the built-in keys Euler
angles: 3); "import (Euler)" compares like for like (ours with Euler keys in each joint's file order).
"import/floor" sets our import against Blender's own floor for the keys it creates (see `floor`).
"""

import compileall
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
        ("import", "floor"): floor(bpy, frames),
        ("export", "ours"): (
            lambda: bpy.ops.import_anim.mocap_bvh(filepath=path),
            lambda: bpy.ops.export_anim.mocap_bvh(filepath=out),
        ),
        ("export", "built-in"): (
            lambda: bpy.ops.import_anim.bvh(filepath=path, update_scene_duration=True),
            lambda: bpy.ops.export_anim.bvh(filepath=out, frame_start=1, frame_end=frames),
        ),
    }


def floor(bpy, frames):
    """(setup, timed call) of Blender's own floor for what our import of the generated take creates,
    without reading any file: an armature of 31 bones built in edit mode, one action whose 127
    F-curves (31 quaternions, the root's location) get their keys through keyframe_points.add and
    foreach_set of "co" and "interpolation", and the depsgraph update an operator ends with. The
    key arrays are made in the setup, untimed."""
    import numpy as np

    from mocap_io.addon.common import compat

    joints, rng = 31, np.random.default_rng(0)
    co = np.empty((127, 2 * frames), dtype=np.float32)
    co[:, 0::2], co[:, 1::2] = np.arange(1, frames + 1), rng.normal(size=(127, frames))
    linear = compat.interpolations(frames)

    def call():
        armature = bpy.data.armatures.new("floor")
        obj = bpy.data.objects.new("floor", armature)
        bpy.context.collection.objects.link(obj)
        bpy.context.view_layer.objects.active = obj
        bpy.ops.object.mode_set(mode="EDIT")
        bones = []
        for j in range(joints):
            bone = armature.edit_bones.new(f"j{j}")
            bone.head, bone.tail = (0.0, 0.0, 0.1 * j), (0.0, 0.0, 0.1 * j + 0.1)
            bone.parent = bones[-1] if bones else None
            bones.append(bone)
        bpy.ops.object.mode_set(mode="OBJECT")
        _, fcurves = compat.new_action(obj, "floor")
        curves = [(f'pose.bones["j{j}"].rotation_quaternion', i, f"j{j}") for j in range(joints) for i in range(4)]
        curves += [('pose.bones["j0"].location', i, "j0") for i in range(3)]
        for k, (path, index, group) in enumerate(curves):
            compat.add_curve(fcurves, path, index, group, co[k], linear)
        bpy.context.view_layer.update()

    return lambda: None, call


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
    repeat = 5
    table = calls(bpy, path, out, frames)
    rows = []
    seconds = {}  # (operation, who) -> (first call, best); the built-in has no Euler option: its import keys Euler
    for operation, who in table:
        first = statistics.median(first_call(operation, who, path, out, frames) for _ in range(FIRST_RUNS))
        seconds[operation, who] = first, min(timed(bpy, *table[operation, who]) for _ in range(repeat))
    seconds["import (Euler)", "built-in"] = seconds["import", "built-in"]
    floor_first, floor_best = seconds["import", "floor"]
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
    first_ours, best_ours = seconds["import", "ours"]
    print(
        f"  {'import/floor':<14} {first_ours:10.3f}s {floor_first:8.3f}s {first_ours / floor_first:6.2f}x  "
        f"{best_ours:9.3f}s {floor_best:8.3f}s {best_ours / floor_best:6.2f}x  (ours over Blender's floor for "
        "the same keys: armature, action, 127 curves keyed in bulk, depsgraph update; no file read)"
    )
    print(f"  (of our import, the core read takes {read:.3f} s)")


def main(counts):
    bpy = bpy_session()
    import mocap_io

    package = pathlib.Path(mocap_io.__file__).parent
    compileall.compile_file(package / "__init__.py", quiet=1)
    for part in ("core", "addon", "cli"):
        compileall.compile_dir(package / part, quiet=1)

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
