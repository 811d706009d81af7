"""The numbers an import and an export produce, to compare Blender versions.

    python tools/blender_numbers.py save out.npz        (inside a venv with bpy)
    python tools/blender_numbers.py compare a.npz b.npz  (any venv with numpy)

`save` imports a generated take (and, when present, corpus files), records the world heads of
every pose bone at several frames and the world positions of an exported file; `compare` fails
if two runs differ by more than 1e-5 of the skeleton height.
"""

import pathlib
import sys
import tempfile

import numpy as np

import mocap_io

ROOT = pathlib.Path(__file__).resolve().parents[1]

CORPUS_FILES = (
    "bvh/cmu-cgspeed/cmu_12_01_walk.bvh",
    "bvh/pybvh/bvh_test1.bvh",
    "bvh/bandai-namco/dataset-1_dash_normal_001.bvh",
)


def save(target):
    import bpy

    mocap_io.register()

    from mocap_io.addon import export_bvh, import_bvh
    from sample_motion import cmu_like_motion

    corpus = ROOT.parent / "shared" / "corpus"
    numbers = {}
    with tempfile.TemporaryDirectory() as folder:
        sample = pathlib.Path(folder) / "sample.bvh"
        mocap_io.core.write(cmu_like_motion(mocap_io.core, 120), sample)
        paths = [sample] + [corpus / name for name in CORPUS_FILES if (corpus / name).exists()]
        for path in paths:
            bpy.ops.wm.read_factory_settings(use_empty=True)
            obj = import_bvh(bpy.context, [str(path)])[0][0]
            heads = []
            for frame in (1, 2, 10, 20):
                bpy.context.scene.frame_set(frame)
                flat = np.empty(3 * len(obj.pose.bones), dtype=np.float32)
                obj.pose.bones.foreach_get("head", flat)
                heads.append(flat.reshape(-1, 3))
            numbers[path.stem + ".heads"] = np.array(heads)
            exported = pathlib.Path(folder) / "export.bvh"
            export_bvh(bpy.context, obj, exported)
            numbers[path.stem + ".export"] = mocap_io.core.read(exported).world_positions()
    np.savez(target, **numbers)
    print(f"saved {len(numbers)} arrays (bpy {bpy.app.version_string}) to {target}")


def compare(first, second):
    a, b = np.load(first), np.load(second)
    if sorted(a.files) != sorted(b.files):
        sys.exit(f"different contents: {sorted(a.files)} vs {sorted(b.files)}")
    worst = 0.0
    for name in a.files:
        height = max(np.ptp(a[name], axis=-2).max(), 1e-9)
        worst = max(worst, np.abs(a[name] - b[name]).max() / height)
    print(f"{len(a.files)} arrays; largest difference {worst:.2e} of the skeleton height")
    if worst > 1e-5:
        sys.exit("the two Blender versions disagree")


if __name__ == "__main__":
    command, *paths = sys.argv[1:]
    {"save": save, "compare": compare}[command](*paths)
