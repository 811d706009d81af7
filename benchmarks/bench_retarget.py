"""Retargeting and resampling speed in the core, on a generated CMU-like walk (31 joints) and a
Mixamo-like rig in an A pose with other bone rolls.

    python benchmarks/bench_retarget.py [frames ...]        (default: 10000)

Prints one table per length: seconds (best of several runs) and ratios against the peers, all
measured in this process: the forward kinematics of the source (the least any retargeting must
do), scipy's Slerp (resampling), and, where the bpy module is installed, Blender's own way of
retargeting (see BLENDER below).
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
    ours = best(lambda: core.retarget(motion, target, bone_map), repeat)  # the default: feet fixed
    fk = best(motion.world_transforms, repeat)
    plain = best(lambda: core.retarget(motion, target, bone_map, fix_feet=False), repeat)
    rows = [
        ("retarget", ours, "source FK alone", fk),
        ("retarget, no feet", plain, "source FK alone", fk),
        ("auto_map", best(lambda: core.auto_map(motion.skeleton, target), repeat), "", None),
    ]
    slerp = best(lambda: core.resample(motion, fps=30.0), repeat)
    rows.append(("resample 120->30", slerp, "scipy Slerp (rotations only)", scipy_slerp(motion, 30.0)))
    spline = best(lambda: core.resample(motion, fps=30000 / 1001, rotation="spline", translation="cubic"), repeat)
    rows.append(("spline 120->29.97", spline, "", None))
    return rows


# ---- BLENDER ------------------------------------------------------------------------------------
# Inside Blender's Python (the bpy module) the same `motion` and `target` become two armatures, the
# source imported by our importer and the target built with its own bone axes (A pose, random
# rolls), and the retarget runs two ways: ours (mocap_io.retarget's bake: read the source's keys,
# core.retarget, key the target in bulk; with its default Fix Feet, and without) and Blender's own
# (a Copy Rotation constraint, world space, on every mapped target bone, Copy Location on the hips,
# then Bake Action with visual keying: nothing holds its feet).
def blender_rows(motion, target):
    try:
        import bpy
    except ImportError:
        return []
    import mocap_io
    from mocap_io.addon import retarget_armature
    from mocap_io.addon.common.progress import run
    from mocap_io.addon.common.units import axis_matrix
    from mocap_io.addon.to_blender.armature import build_armature
    from mocap_io.addon.to_blender.motions import build_motions

    mocap_io.register()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    context = bpy.context
    (source,), _ = run(build_motions(context, [("walk.bvh", motion)], scale=0.01), context, "source")
    rig = build_armature(context, target, "Rig", axis_matrix("-Z", "Y"), 0.01)
    bone_map = core.auto_map(motion.skeleton, target)

    def bake_ours(**options):
        action = retarget_armature(context, source, rig, bone_map, **options)
        rig.animation_data.action = None
        bpy.data.actions.remove(action)

    mine = best(bake_ours, 3)
    plain = best(lambda: bake_ours(fix_feet=False), 3)
    for joint, bone in bone_map.items():
        constraint = rig.pose.bones[bone].constraints.new("COPY_ROTATION")
        constraint.target, constraint.subtarget = source, joint
        if joint == motion.skeleton.names[0]:
            constraint = rig.pose.bones[bone].constraints.new("COPY_LOCATION")
            constraint.target, constraint.subtarget = source, joint
    for obj in context.view_layer.objects:
        obj.select_set(obj == rig)
    context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="POSE")
    options = {"frame_start": 1, "frame_end": motion.frame_count, "only_selected": False}
    options |= {"visual_keying": True, "clear_constraints": True, "bake_types": {"POSE"}}
    theirs = best(lambda: bpy.ops.nla.bake(**options), 1)
    peer = "Copy Rotation constraints + Bake Action"
    return [("retarget, Blender", mine, peer, theirs), ("Blender, no feet", plain, peer, theirs)]


# -------------------------------------------------------------------------------------------------


def bench(frames):
    motion = cmu_like_motion(core, frames)
    target = restyled_skeleton(core, motion.skeleton, names=MIXAMO_NAMES, a_pose=45.0, seed=1)
    repeat = 5 if frames <= 10_000 else 2
    rows = core_rows(motion, target, repeat) + blender_rows(motion, target)
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
