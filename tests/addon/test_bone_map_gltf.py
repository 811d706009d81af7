"""auto_map onto a real glTF character: Khronos's CesiumMan imported by Blender's own glTF importer,
whose bones are named by limb, side and number ("Skeleton_arm_joint_L__4_", "leg_joint_R_1"). The
expected bones were read off the imported rest pose, and the test checks them there too."""

import numpy as np

from blender_scene import bpy, fresh_scene
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.addon.from_blender.armature import armature_skeleton

pytestmark = needs_corpus
CESIUM_MAN = CORPUS / "mesh/khronos-cesiumman/CesiumMan.glb"
WALK = CORPUS / "bvh/cmu-cgspeed/cmu_12_01_walk.bvh"

LEG = (("UpLeg", 1), ("Leg", 2), ("Foot", 3), ("ToeBase", 5))

# CMU joint: CesiumMan bone. World heads (Z up, metres, facing -Y, its left at +X): hips at 0.68 m;
# spine 0.82 and 1.07 (where arms and neck meet); neck 1.14; head 1.19, the highest joint; shoulders
# at +-0.09 m, elbows +-0.31, wrists +-0.45 (the arms hang some 30 degrees); hip joints 0.61, knees
# 0.35, ankles 0.09, balls of the feet 0.02 m high and 3 cm ahead of the ankles.
EXPECTED = {
    "Hips": "Skeleton_torso_joint_1",
    "LowerBack": "Skeleton_torso_joint_2",  # the spine's bottom
    "Spine1": "torso_joint_3",  # the spine's top
    "Neck1": "Skeleton_neck_joint_1",
    "Head": "Skeleton_neck_joint_2",
    "LeftArm": "Skeleton_arm_joint_L__4_",  # the left arm is numbered from 4 down...
    "LeftForeArm": "Skeleton_arm_joint_L__3_",
    "LeftHand": "Skeleton_arm_joint_L__2_",
    "RightArm": "Skeleton_arm_joint_R",  # ...the right one up from an unnumbered shoulder
    "RightForeArm": "Skeleton_arm_joint_R__2_",
    "RightHand": "Skeleton_arm_joint_R__3_",
    **{f"{side}{cmu}": f"leg_joint_{side[0]}_{n}" for side in ("Left", "Right") for cmu, n in LEG},  # no 4
}


def cesium_man():
    """The CesiumMan armature imported into a fresh scene, and its bones' world heads by name."""
    fresh_scene()
    bpy.ops.import_scene.gltf(filepath=str(CESIUM_MAN))
    (obj,) = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    matrix = np.array(obj.matrix_world)
    heads = {b.name: matrix[:3, :3] @ np.array(b.head_local) + matrix[:3, 3] for b in obj.data.bones}
    return obj, heads


def test_the_cmu_walk_maps_onto_cesium_man():
    obj, _ = cesium_man()
    found = core.auto_map(core.read(WALK).skeleton, armature_skeleton(obj, np.eye(3), 1.0))
    assert {s: found.get(s) for s in EXPECTED} == EXPECTED
    assert "LeftShoulder" not in found and "RightShoulder" not in found  # CesiumMan has no clavicles
    assert len(set(found.values())) == len(found) == len(EXPECTED)


def test_the_expected_bones_are_where_those_body_parts_are():
    _, heads = cesium_man()
    at = {cmu: heads[bone] for cmu, bone in EXPECTED.items()}
    height = {cmu: at[cmu][2] for cmu in at}
    assert max(heads, key=lambda b: heads[b][2]) == EXPECTED["Head"]  # the highest joint
    assert height["Hips"] < height["LowerBack"] < height["Spine1"] < height["Neck1"] < height["Head"]
    for side, sign in (("Left", 1), ("Right", -1)):
        for limb in ("Arm", "ForeArm", "Hand", "UpLeg", "Leg", "Foot", "ToeBase"):
            assert sign * at[f"{side}{limb}"][0] > 0.05, (side, limb)  # left at +X
        assert sign * at[f"{side}Arm"][0] < sign * at[f"{side}ForeArm"][0] < sign * at[f"{side}Hand"][0]
        assert height[f"{side}Arm"] > height[f"{side}ForeArm"] > height[f"{side}Hand"]
        assert abs(height[f"{side}Arm"] - height["Spine1"]) < 0.01  # the arms start at the spine's top
        assert height["Hips"] > height[f"{side}UpLeg"] > height[f"{side}Leg"] > height[f"{side}Foot"]
        assert height[f"{side}Foot"] > height[f"{side}ToeBase"] and at[f"{side}ToeBase"][1] < at[f"{side}Foot"][1]
        upper = np.linalg.norm(at[f"{side}ForeArm"] - at[f"{side}Arm"])
        lower = np.linalg.norm(at[f"{side}Hand"] - at[f"{side}ForeArm"])
        assert upper > lower > 0.15  # an upper arm and a forearm, no clavicle
