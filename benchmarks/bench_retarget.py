"""Retargeting and resampling speed in the core, on a generated CMU-like walk (31 joints) and a
Mixamo-like rig in an A pose with other bone rolls.

    python benchmarks/bench_retarget.py [frames ...]        (default: 10000)

Prints one table per length: seconds (best of several runs) and ratios against the peers, all
measured in this process: the forward kinematics of the source (the least any retargeting must
do), scipy's Slerp (resampling), and in Blender (see BLENDER below) its own way of retargeting.
"""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
from timing import best

from mocap_io import core
from sample_motion import cmu_like_motion, restyled_skeleton

MIXAMO_NAMES = {
    n: "mixamorig:" + n
    for n in (
        *("Hips", "Spine", "Spine1", "Neck", "Head", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand"),
        *("RightShoulder", "RightArm", "RightForeArm", "RightHand", "LeftUpLeg", "LeftLeg", "LeftFoot"),
        *("LeftToeBase", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"),
    )
}


def scipy_slerp(motion, fps):
    """Every joint's local rotations resampled with scipy's Slerp (no Euler angles back)."""
    try:
        from scipy.spatial.transform import Rotation, Slerp
    except ImportError:
        return None
    keys = np.arange(motion.frame_count) / motion.fps
    times = np.arange(0, keys[-1] + 1e-9, 1 / fps)

    def run():
        for j, order in enumerate(motion.euler_orders):
            Slerp(keys, Rotation.from_euler(order, motion.euler[:, j]))(times)

    return best(run, 3)


def core_rows(motion, target, repeat):
    bone_map = core.auto_map(motion.skeleton, target)
    ours = best(lambda: core.retarget(motion, target, bone_map), repeat)
    fk = best(motion.world_transforms, repeat)
    rows = [
        ("retarget", ours, "source FK alone", fk),
        ("retarget, feet", best(lambda: core.retarget(motion, target, bone_map, fix_feet=True), repeat), "", None),
        ("auto_map", best(lambda: core.auto_map(motion.skeleton, target), repeat), "", None),
    ]
    slerp = best(lambda: core.resample(motion, fps=30.0), repeat)
    rows.append(("resample 120->30", slerp, "scipy Slerp (rotations only)", scipy_slerp(motion, 30.0)))
    spline = best(lambda: core.resample(motion, fps=30000 / 1001, rotation="spline", translation="cubic"), repeat)
    rows.append(("spline 120->29.97", spline, "", None))
    return rows, ours


# ---- BLENDER ------------------------------------------------------------------------------------
# The Blender half of issue 19 goes here (added by the add-on's side, run inside Blender's Python),
# measured in this same run on the same `motion` and `target`:
#   ("retarget", ours, "Blender: mocap_io.retarget (bake)", seconds)
#   ("retarget", ours, "Blender: Copy Rotation constraints + bake action", seconds)
# Target: constraints + bake at least 10 x slower than ours.
def blender_rows(motion, target, ours):
    return []


# -------------------------------------------------------------------------------------------------


def bench(frames):
    motion = cmu_like_motion(core, frames)
    target = restyled_skeleton(core, motion.skeleton, names=MIXAMO_NAMES, a_pose=45.0, seed=1)
    repeat = 5 if frames <= 10_000 else 2
    rows, ours = core_rows(motion, target, repeat)
    rows += blender_rows(motion, target, ours)
    print(f"\n{frames} frames x {motion.skeleton.joint_count} joints at {motion.fps:g} fps")
    print(f"  {'operation':<18} {'ours (s)':>9}  {'against':<48} {'theirs (s)':>10} {'theirs/ours':>11}")
    for operation, mine, name, theirs in rows:
        if theirs is None:
            print(f"  {operation:<18} {mine:9.3f}  {name or '-':<48} {'-':>10} {'-':>11}")
        else:
            print(f"  {operation:<18} {mine:9.3f}  {name:<48} {theirs:10.3f} {theirs / mine:11.2f}")


def main(counts):
    for frames in counts or [10_000]:
        bench(int(frames))


if __name__ == "__main__":
    main(sys.argv[1:])
