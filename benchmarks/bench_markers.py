"""Marker read speed against ezc3d (C++) and the c3d package (pure Python), on a generated long
take: 100 markers x 100,000 frames at 100 Hz with 16 analog channels at 1000 Hz (float storage,
5% gaps), written by our writer. Every reader is timed in this process, on the same file.

Then TRC: the same markers (no analog) written by our TRC writer, read by ours against
pandas.read_csv of the same rows and against our C3D reader of the same data (a markers-only C3D),
timed in turns in this process; each reader's peak memory is measured in a fresh process (the
rise of its resident set over the reading, /proc's high-water mark) and set against the
positions array it makes (frames x markers x 3 float64). The writers are timed too.

Then, where bpy is installed (the main venv), Blender import of 100 markers x 10,000 frames of
the same kind: our operator (empties; point cloud) against two peers written here, same run:
  - keyframe_insert per key, an empty per marker (what the issue calls io_anim_c3d's approach, and
    what simple importers do). Its cost per key grows with the curve (48 s for one marker's 9,500
    keys in bpy 5.0), so it is timed in full on PEER_MARKERS markers, each its own curve, and
    scaled to 100: a lower bound.
  - io_anim_c3d's method as its current source has it: the c3d package's reader frame by frame,
    then per marker keyframe_points.add + foreach_set on the location curves of one armature's
    pose bones, and FCurve.update() on every curve.

    python benchmarks/bench_markers.py [frames]        (default: 100000)

Needs ezc3d, c3d and pandas (requirements-bench.txt); a missing peer is reported, not fatal.
Prints seconds (best of several runs) and ratios. Each peer's result is checked against ours first.
"""

import importlib
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
from timing import best, interleaved

from mocap_io import core
from mocap_io.core.markers import Analog, Markers

MARKERS, CHANNELS, RATE, PER_FRAME = 100, 16, 100.0, 10
BLENDER_FRAMES, PEER_MARKERS = 10_000, 2


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
        trc(frames, pathlib.Path(folder))
        blender(pathlib.Path(folder))


def read_pandas(lib, path):
    """pandas.read_csv of a TRC file's rows (frame, time, coordinates), as an array."""
    return lib.read_csv(path, sep="\t", skiprows=6, header=None).to_numpy()


READERS = {  # (label, format, how): the TRC readers and our C3D reader of the same data
    "ours": ("mocap_io core.read (TRC)", "trc", lambda path: core.read(path).positions),
    "pandas": ("pandas.read_csv (TRC rows)", "trc", lambda path: read_pandas(importlib.import_module("pandas"), path)),
    "c3d": ("mocap_io core.read (C3D)", "c3d", lambda path: core.read(path).positions),
}


def trc(frames, folder):
    """TRC read and write: ours against pandas.read_csv (the same rows) and our C3D reader (the same data)."""
    markers = long_take(frames)
    markers.analog = None
    paths = {"trc": folder / "long.trc", "c3d": folder / "markers.c3d"}
    writes = {kind: best(lambda kind=kind: core.write(markers, paths[kind]), 1) for kind in paths}
    ours = core.read(paths["trc"])
    assert np.array_equal(ours.positions.astype(np.float32), markers.positions, equal_nan=True), "TRC not exact"
    readers = dict(READERS)
    try:
        table = read_pandas(importlib.import_module("pandas"), paths["trc"])
    except ImportError:
        print("\n  pandas is not installed: no pandas.read_csv row")
        del readers["pandas"]
    else:
        rows = ours.positions.reshape(frames, -1)
        assert np.allclose(table[:, 2 : 2 + rows.shape[1]], rows, rtol=1e-15, atol=0, equal_nan=True), "pandas"
    seconds = interleaved(
        {key: lambda how=how, kind=kind: how(paths[kind]) for key, (_, kind, how) in readers.items()}, 2
    )
    array = ours.positions.nbytes
    size = paths["trc"].stat().st_size
    print(
        f"\nTRC, {MARKERS} markers x {frames} frames (5% gaps, float32 values from the C3D model): {size / 1e6:.0f} MB "
        f"(the C3D of the same data: {paths['c3d'].stat().st_size / 1e6:.0f} MB); positions array {array / 1e6:.0f} MB"
    )
    print(f"  {'read with':<28} {'seconds':>8} {'ours/this':>9} {'peak MB':>8} {'peak/array':>10}")
    for key, (label, kind, _) in readers.items():
        peak = peak_memory(key, paths[kind])
        print(
            f"  {label:<28} {seconds[key]:8.2f} {seconds['ours'] / seconds[key]:9.2f} {peak / 1e6:8.0f} "
            f"{peak / array:10.2f}"
        )
    print(f"  write (ours): TRC {writes['trc']:.2f} s, C3D {writes['c3d']:.2f} s")


def peak_memory(key, path):
    """Bytes by which a fresh process's resident set rises while `READERS[key]` reads `path`."""
    result = subprocess.run(
        [sys.executable, __file__, "--peak", key, str(path)], capture_output=True, text=True, check=True
    )
    return int(result.stdout.split()[-1])


def measure_peak(key, path):
    """(In the fresh process) the reader's rise of the resident set: the high-water mark, reset first."""
    how = READERS[key][2]
    importlib.import_module("pandas" if key == "pandas" else f"mocap_io.core.formats.{READERS[key][1]}")
    status = pathlib.Path("/proc/self/status")

    def field(name):
        return next(int(line.split()[1]) * 1024 for line in status.read_text().splitlines() if line.startswith(name))

    pathlib.Path("/proc/self/clear_refs").write_text("5")  # the high-water mark starts from here
    before = field("VmRSS:")
    how(path)
    print(field("VmHWM:") - before)


def blender(folder):
    """Blender import of MARKERS x BLENDER_FRAMES: ours against the peers (see the module's text)."""
    try:
        import bpy
    except ImportError:
        print("\n  bpy not installed: no Blender timings (run in the main venv)")
        return
    import mocap_io
    from mocap_io.addon.common import compat

    mocap_io.register()
    path = folder / "blender.c3d"
    core.write(long_take(BLENDER_FRAMES), path)
    markers = core.read(path)

    def fresh(call):
        def run():
            bpy.ops.wm.read_factory_settings(use_empty=True)
            call()

        return run

    def first_keys(obj, data_path="location"):  # the x keys of the first marker, to compare with ours
        curve = next(c for c in compat.action_fcurves(obj) if c.data_path == data_path and c.array_index == 0)
        co = np.empty(2 * len(curve.keyframe_points), np.float32)
        curve.keyframe_points.foreach_get("co", co)
        return co

    candidates = {
        "mocap_io, empties": fresh(lambda: bpy.ops.import_anim.mocap_c3d(filepath=str(path))),
        "mocap_io, point cloud": fresh(
            lambda: bpy.ops.import_anim.mocap_c3d(filepath=str(path), representation="POINT_CLOUD")
        ),
    }
    candidates["mocap_io, empties"]()
    ours = first_keys(bpy.data.objects[markers.names[0]])
    try:
        import c3d
    except ImportError:
        print("\n  the c3d package is not installed: no io_anim_c3d method")
    else:
        method = candidates["io_anim_c3d's method"] = fresh(
            lambda: io_anim_c3d_method(bpy, compat, c3d, path, markers.names)
        )
        method()
        rig = bpy.data.objects["rig"]
        assert np.array_equal(first_keys(rig, f'pose.bones["{markers.names[0]}"].location'), ours), "io_anim_c3d"
    rows = list(interleaved(candidates, 3).items())
    seconds = best(fresh(lambda: keyframe_insert_import(bpy, markers, PEER_MARKERS)), 1)
    assert np.array_equal(first_keys(bpy.data.objects[markers.names[0]]), ours), "keyframe_insert"
    rows.append(
        (
            f"keyframe_insert per key ({PEER_MARKERS} markers x {MARKERS // PEER_MARKERS})",
            seconds * MARKERS / PEER_MARKERS,
        )
    )
    print(
        f"\nBlender import, {MARKERS} markers x {BLENDER_FRAMES} frames (bpy {bpy.app.version_string}), "
        "best of 3 in turns from an empty scene (keyframe_insert: one run)"
    )
    print(f"  {'import with':<40} {'seconds':>8} {'theirs/ours':>11}")
    for label, seconds in rows:
        print(f"  {label:<40} {seconds:8.2f} {seconds / rows[0][1]:11.2f}")


def keyframe_insert_import(bpy, markers, count):
    """The first `count` markers as empties (all created), a keyframe_insert per seen frame."""
    parent = bpy.data.objects.new("take", None)
    bpy.context.collection.objects.link(parent)
    for m, name in enumerate(markers.names):
        obj = bpy.data.objects.new(name, None)
        bpy.context.collection.objects.link(obj)
        obj.parent = parent
        if m >= count:
            continue
        for frame in np.flatnonzero(markers.valid[:, m]):
            obj.location = markers.positions[frame, m].astype(float) * 0.001
            obj.keyframe_insert("location", frame=float(1 + frame))


def io_anim_c3d_method(bpy, compat, c3d, path, names):
    """The c3d package's reader frame by frame; a bone per marker; keys per curve in bulk."""
    with open(path, "rb") as f:
        points = np.array([p for _, p, _ in c3d.Reader(f).read_frames()])
    valid = points[..., 3] >= 0
    rig = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    bpy.context.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    for name in names:
        bone = rig.data.edit_bones.new(name)
        bone.head, bone.tail = (0, 0, 0), (0, 0, 0.02)
    bpy.ops.object.mode_set(mode="OBJECT")
    _, fcurves = compat.new_action(rig, "take")
    group = "group_name" if compat.SLOTTED_ACTIONS else "action_group"
    for m, name in enumerate(names):
        frames = np.flatnonzero(valid[:, m])
        for axis in range(3):
            curve = fcurves.new(f'pose.bones["{name}"].location', index=axis, **{group: name})
            keys = np.empty((len(frames), 2), np.float32)
            keys[:, 0] = 1 + frames
            keys[:, 1] = points[frames, m, axis].astype(float) * 0.001
            curve.keyframe_points.add(len(frames))
            curve.keyframe_points.foreach_set("co", keys.ravel())
            curve.update()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--peak"]:
        measure_peak(sys.argv[2], sys.argv[3])
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
