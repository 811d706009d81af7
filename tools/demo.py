"""The main job: import a motion-capture take into Blender headless and save out/demo.blend.

    python tools/demo.py [file.bvh ...]

Runs inside the `bpy` module (pip package). Without arguments it generates out/sample.bvh (a
CMU-like walk, 31 joints x 1,200 frames at 120 fps, centimetres) and imports that.
"""

import pathlib
import sys
import time

import mocap_io
from sample_motion import cmu_like_motion

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main(paths):
    import bpy  # after the package, so a missing bpy is the only possible error here

    from mocap_io.addon import import_bvh

    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    if not paths:
        paths = [out / "sample.bvh"]
        mocap_io.core.write(cmu_like_motion(mocap_io.core, 1200), paths[0])
    bpy.ops.wm.read_factory_settings(use_empty=True)
    mocap_io.register()
    start = time.perf_counter()
    objects, messages = import_bvh(bpy.context, [str(p) for p in paths], auto_scale=True)
    seconds = time.perf_counter() - start
    scene = bpy.context.scene
    for message in messages:
        print(" ", message)
    for obj in objects:
        action = obj.animation_data.action
        keys = sum(len(c.keyframe_points) for c in mocap_io.addon.common.compat.action_fcurves(obj))
        print(f"  armature {obj.name!r}: {len(obj.data.bones)} bones, action {action.name!r} with {keys:,} keys")
    print(
        f"  scene: frames {scene.frame_start}-{scene.frame_end} at "
        f"{scene.render.fps / scene.render.fps_base:g} fps (fps {scene.render.fps}, base {scene.render.fps_base:g})"
    )
    print(f"  imported {len(paths)} file(s) in {seconds:.3f} s")
    blend = out / "demo.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    print(f"  saved {blend}")


if __name__ == "__main__":
    main(sys.argv[1:])
