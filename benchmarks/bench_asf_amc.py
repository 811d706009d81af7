"""AMC reading speed: ours against a straightforward line-by-line reader and the raw float-parse
floor, on a long take generated for a corpus ASF (CMU 02.asf; a converted CMU-like sample without
the corpus).

    python benchmarks/bench_asf_amc.py [frames ...]        (default: 20000)

Prints one table per take: seconds (best of several runs) and ratios, all measured in this process.
The floor parses the same numbers with the names already removed (the faster of numpy's two
parsers that take rows of any length), so it does none of the work of finding frames and bones.
Candidates run in turns (best of 7 rounds each), so that a busy machine slows all of them alike.
With the bpy module, a last row: importing the take (.asf + .amc) in Blender with our operator
against importing its BVH conversion with our BVH operator (target: within 1.2x).
"""

import os
import pathlib
import re
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from timing import interleaved

from mocap_io import core
from mocap_io.core.formats import asf
from mocap_io.core.skeleton import euler_order
from sample_motion import cmu_like_motion

CORPUS = pathlib.Path(os.environ.get("MOCAP_IO_CORPUS", pathlib.Path(__file__).resolve().parents[2] / "shared/corpus"))
CORPUS_ASF = CORPUS / "asfamc/cmu/02.asf"


def skeleton(folder):
    """The corpus ASF's skeleton, else a CMU-like sample written as an ASF; its path, and where it came from."""
    if CORPUS_ASF.is_file():
        return asf.read_asf(CORPUS_ASF), CORPUS_ASF, CORPUS_ASF.name
    core.write(cmu_like_motion(core, 1), folder / "sample.asf", amc=False)
    return asf.read_asf(folder / "sample.asf"), folder / "sample.asf", "CMU-like sample (no corpus)"


def blender_import(asf_path, amc_path, folder):
    """(BVH operator on the take's BVH conversion, seconds; ours on the .asf + .amc, seconds), best of
    3 in turns from an empty scene each; None without the bpy module."""
    try:
        import bpy
    except ImportError:
        return None
    import mocap_io

    mocap_io.register()
    bvh = folder / "take.bvh"
    core.write(core.read(asf_path, motion=amc_path), bvh)

    def fresh(call):
        def run():
            bpy.ops.wm.read_factory_settings(use_empty=True)
            call()

        return run

    times = interleaved(
        {
            "bvh": fresh(lambda: bpy.ops.import_anim.mocap_bvh(filepath=str(bvh))),
            "asf": fresh(
                lambda: bpy.ops.import_anim.mocap_asf(
                    files=[{"name": asf_path.name}, {"name": amc_path.name}], directory=str(asf_path.parent)
                )
            ),
        },
        3,
    )
    return times["bvh"], times["asf"]


def take(skeleton, frames, seed=0):
    """A Motion of `frames` frames on `skeleton`: every dof a sine with noise (degrees), the root
    walking; values printed as Vicon does, 6 significant digits."""
    rng = np.random.default_rng(seed)
    count = skeleton.joint_count
    phase = 2 * np.pi * 0.9 * np.arange(frames)[:, None, None] / 120.0
    euler = np.radians(
        rng.uniform(2, 40, (1, count, 3)) * np.sin(phase + rng.uniform(0, 6.3, (1, count, 3)))
        + rng.normal(0, 0.3, (frames, count, 3))
    )
    for j, dofs in enumerate(skeleton.channels):  # axes without a dof stay zero
        order = euler_order(dofs)
        for slot, axis in enumerate(order):
            if not any(d[0] in "rR" and d[1].upper() == axis for d in dofs):
                euler[:, j, slot] = 0.0
    translations = np.broadcast_to(skeleton.offsets, (frames, count, 3)).copy()
    translations[:, 0, 2] += 0.8 * np.arange(frames) / 120.0 * 17.0
    orders = skeleton.euler_orders()
    return core.Motion(skeleton, 120.0, euler, orders, translations)


def line_by_line(path, skeleton):
    """The straightforward reader: each line split, a frame number starts a frame, a bone line's
    values go to that bone's list."""
    values = {name: [] for name, dofs in zip(skeleton.names, skeleton.channels) if dofs}
    with open(path, encoding="latin-1") as f:
        for line in f:
            tokens = line.split()
            if not tokens or tokens[0][0] in "#:" or tokens[0].isdigit():
                continue
            values[tokens[0]].append([float(t) for t in tokens[1:]])
    return {name: np.array(rows) for name, rows in values.items()}


def numbers_only(data):
    """The AMC's numbers alone (names and header removed), as bytes and as text."""
    numbers = re.sub(rb"(?m)^[ \t]*[A-Za-z_:#][^ \t\r\n]*", b"", data)
    return numbers, numbers.decode("latin-1")


def bench(frames, folder):
    bones, asf_path, source = skeleton(folder)
    path = folder / f"take_{frames}.amc"
    core.write(take(bones, frames), path, precision=5)
    data = path.read_bytes()
    numbers, text = numbers_only(data)
    times = interleaved(
        {
            "ours": lambda: asf.read_amc(path, bones),
            "floor: numpy fromstring": lambda: np.fromstring(text, sep=" "),
            "floor: numpy array(split)": lambda: np.array(numbers.split(), float),
        },
        7,
    )
    times.update(interleaved({"line-by-line Python reader": lambda: line_by_line(path, bones)}, 2))
    ours = times.pop("ours")
    floor = min((name for name in times if name.startswith("floor")), key=times.get)
    rows = [(floor, times[floor]), ("line-by-line Python reader", times["line-by-line Python reader"])]
    print(f"\n{frames} frames of {source}: {bones.joint_count} joints, {len(data) / 1e6:.1f} MB")
    print(f"  {'against':<34} {'theirs (s)':>10} {'ours (s)':>9} {'ours/theirs':>11}")
    for name, theirs in rows:
        print(f"  {name:<34} {theirs:10.3f} {ours:9.3f} {ours / theirs:11.2f}")
    shutil.copy(asf_path, folder / asf_path.name)  # the .asf beside the take, as the importer wants it
    imported = blender_import(folder / asf_path.name, path, folder)
    if imported is not None:
        theirs, ours = imported
        print(f"  {'Blender: our BVH import of it':<34} {theirs:10.3f} {ours:9.3f} {ours / theirs:11.2f}")


def main(counts):
    with tempfile.TemporaryDirectory() as folder:
        for frames in counts or [20_000]:
            bench(int(frames), pathlib.Path(folder))


if __name__ == "__main__":
    main(sys.argv[1:])
