"""Skeletons named and built the way common rigs are (Mixamo, Rigify, Unreal's mannequin), standing
in a T pose: joints placed at points of one body, so that only names and hierarchy differ."""

import numpy as np

from mocap_io import core

# points of a 1.8 m body in cm, Y up, facing +Z, left at +X (the right side mirrors x)
BODY = {
    "ground": (0, 0, 0),
    "hips": (0, 95, 0),
    "spine": (0, 105, -1),
    "chest": (0, 130, 0),
    "neck": (0, 148, 0),
    "head": (0, 160, 2),
    "head_top": (0, 178, 2),
    "clavicle": (3, 145, 0),
    "shoulder": (17, 146, -2),
    "elbow": (45, 146, -2),
    "wrist": (71, 146, -2),
    "knuckles": (80, 146, -2),
    "thumb": (74, 145, 3),
    "hip": (9, 90, 0),
    "knee": (9, 50, 1),
    "ankle": (9, 9, -2),
    "ball": (9, 1, 11),
    "toe_tip": (9, 1, 18),
}


def point(name):
    """A body point, "a+b*0.5" style mixes allowed: "shoulder*0.5+elbow*0.5"; ".R" mirrors."""
    mirror = name.endswith(".R")
    total = np.zeros(3)
    for term in name.removesuffix(".R").split("+"):
        key, _, weight = term.partition("*")
        total += np.array(BODY[key], float) * float(weight or 1)
    return total * ([-1, 1, 1] if mirror else 1)


def build(rows, up="Y", scale=1.0):
    """A Skeleton from rows (name, parent name or None, body point); Z up turns it into Blender's
    axes (Y up becomes Z up, facing -Y)."""
    names = [r[0] for r in rows]
    parents = [-1 if r[1] is None else names.index(r[1]) for r in rows]
    world = np.array([point(r[2]) for r in rows]) * scale
    if up == "Z":
        world = world @ core.rotations.axis_rotation("X", np.pi / 2).T
    offsets = world - np.where(np.array(parents)[:, None] >= 0, world[parents], 0.0)
    return core.Skeleton(names, parents, offsets)


def _sides(rows):
    """Rows for both sides from rows written for the left, `{s}`/`{S}`/`{side}` in names."""
    out = []
    for side, s, big, mirror in (("Left", "l", "L", ""), ("Right", "r", "R", ".R")):
        for name, parent, where in rows:
            fill = {"side": side, "s": s, "S": big}
            out.append((name.format(**fill), parent and parent.format(**fill), where + mirror))
    return out


_MIXAMO_ARM = [
    ("mixamorig:{side}Shoulder", "mixamorig:Spine2", "clavicle"),
    ("mixamorig:{side}Arm", "mixamorig:{side}Shoulder", "shoulder"),
    ("mixamorig:{side}ForeArm", "mixamorig:{side}Arm", "elbow"),
    ("mixamorig:{side}Hand", "mixamorig:{side}ForeArm", "wrist"),
    ("mixamorig:{side}HandThumb1", "mixamorig:{side}Hand", "thumb"),
    ("mixamorig:{side}HandThumb2", "mixamorig:{side}HandThumb1", "thumb*0.7+wrist*0.3"),
    ("mixamorig:{side}HandIndex1", "mixamorig:{side}Hand", "knuckles"),
    ("mixamorig:{side}HandIndex2", "mixamorig:{side}HandIndex1", "knuckles*1.05"),
    ("mixamorig:{side}HandIndex3", "mixamorig:{side}HandIndex2", "knuckles*1.08"),
    ("mixamorig:{side}HandIndex4", "mixamorig:{side}HandIndex3", "knuckles*1.1"),
]
_MIXAMO_LEG = [
    ("mixamorig:{side}UpLeg", "mixamorig:Hips", "hip"),
    ("mixamorig:{side}Leg", "mixamorig:{side}UpLeg", "knee"),
    ("mixamorig:{side}Foot", "mixamorig:{side}Leg", "ankle"),
    ("mixamorig:{side}ToeBase", "mixamorig:{side}Foot", "ball"),
    ("mixamorig:{side}Toe_End", "mixamorig:{side}ToeBase", "toe_tip"),
]
MIXAMO = [
    ("mixamorig:Hips", None, "hips"),
    *_sides(_MIXAMO_LEG),
    ("mixamorig:Spine", "mixamorig:Hips", "spine"),
    ("mixamorig:Spine1", "mixamorig:Spine", "spine*0.5+chest*0.5"),
    ("mixamorig:Spine2", "mixamorig:Spine1", "chest"),
    ("mixamorig:Neck", "mixamorig:Spine2", "neck"),
    ("mixamorig:Head", "mixamorig:Neck", "head"),
    ("mixamorig:HeadTop_End", "mixamorig:Head", "head_top"),
    *_sides(_MIXAMO_ARM),
]

RIGIFY = [  # a generated rig's deform bones (Blender: Z up, metres)
    ("DEF-spine", None, "hips"),
    ("DEF-spine.001", "DEF-spine", "spine"),
    ("DEF-spine.002", "DEF-spine.001", "spine*0.5+chest*0.5"),
    ("DEF-spine.003", "DEF-spine.002", "chest"),
    ("DEF-spine.004", "DEF-spine.003", "neck"),
    ("DEF-spine.005", "DEF-spine.004", "neck*0.5+head*0.5"),
    ("DEF-spine.006", "DEF-spine.005", "head"),
    *_sides(
        [
            ("DEF-pelvis.{S}", "DEF-spine", "hips*0.5+hip*0.5"),
            ("DEF-thigh.{S}", "DEF-spine", "hip"),
            ("DEF-thigh.{S}.001", "DEF-thigh.{S}", "hip*0.5+knee*0.5"),
            ("DEF-shin.{S}", "DEF-thigh.{S}.001", "knee"),
            ("DEF-shin.{S}.001", "DEF-shin.{S}", "knee*0.5+ankle*0.5"),
            ("DEF-foot.{S}", "DEF-shin.{S}.001", "ankle"),
            ("DEF-toe.{S}", "DEF-foot.{S}", "ball"),
            ("DEF-breast.{S}", "DEF-spine.003", "chest*0.8+shoulder*0.2"),
            ("DEF-shoulder.{S}", "DEF-spine.003", "clavicle"),
            ("DEF-upper_arm.{S}", "DEF-shoulder.{S}", "shoulder"),
            ("DEF-upper_arm.{S}.001", "DEF-upper_arm.{S}", "shoulder*0.5+elbow*0.5"),
            ("DEF-forearm.{S}", "DEF-upper_arm.{S}.001", "elbow"),
            ("DEF-forearm.{S}.001", "DEF-forearm.{S}", "elbow*0.5+wrist*0.5"),
            ("DEF-hand.{S}", "DEF-forearm.{S}.001", "wrist"),
            ("DEF-palm.01.{S}", "DEF-hand.{S}", "wrist*0.9+knuckles*0.1"),
            ("DEF-f_index.01.{S}", "DEF-palm.01.{S}", "knuckles"),
            ("DEF-f_index.02.{S}", "DEF-f_index.01.{S}", "knuckles*1.05"),
            ("DEF-thumb.01.{S}", "DEF-hand.{S}", "thumb"),
        ]
    ),
]

UNREAL = [  # the mannequin's skeleton (Z up, cm), twist and IK bones included
    ("root", None, "ground"),
    ("pelvis", "root", "hips"),
    ("spine_01", "pelvis", "spine"),
    ("spine_02", "spine_01", "spine*0.7+chest*0.3"),
    ("spine_03", "spine_02", "spine*0.3+chest*0.7"),
    ("spine_04", "spine_03", "chest*0.9+neck*0.1"),
    ("spine_05", "spine_04", "chest"),
    ("neck_01", "spine_05", "neck"),
    ("neck_02", "neck_01", "neck*0.5+head*0.5"),
    ("head", "neck_02", "head"),
    *_sides(
        [
            ("clavicle_{s}", "spine_05", "clavicle"),
            ("upperarm_{s}", "clavicle_{s}", "shoulder"),
            ("upperarm_twist_01_{s}", "upperarm_{s}", "shoulder*0.6+elbow*0.4"),
            ("lowerarm_{s}", "upperarm_{s}", "elbow"),
            ("lowerarm_twist_01_{s}", "lowerarm_{s}", "elbow*0.4+wrist*0.6"),
            ("hand_{s}", "lowerarm_{s}", "wrist"),
            ("index_metacarpal_{s}", "hand_{s}", "wrist*0.8+knuckles*0.2"),
            ("index_01_{s}", "index_metacarpal_{s}", "knuckles"),
            ("index_02_{s}", "index_01_{s}", "knuckles*1.05"),
            ("thumb_01_{s}", "hand_{s}", "thumb"),
            ("thigh_{s}", "pelvis", "hip"),
            ("thigh_twist_01_{s}", "thigh_{s}", "hip*0.6+knee*0.4"),
            ("calf_{s}", "thigh_{s}", "knee"),
            ("calf_twist_01_{s}", "calf_{s}", "knee*0.5+ankle*0.5"),
            ("foot_{s}", "calf_{s}", "ankle"),
            ("ball_{s}", "foot_{s}", "ball"),
        ]
    ),
    ("ik_foot_root", "root", "ground"),
    ("ik_foot_l", "ik_foot_root", "ankle"),
    ("ik_foot_r", "ik_foot_root", "ankle.R"),
    ("ik_hand_root", "root", "ground"),
    ("ik_hand_gun", "ik_hand_root", "wrist.R"),
    ("ik_hand_l", "ik_hand_gun", "wrist"),
    ("ik_hand_r", "ik_hand_gun", "wrist.R"),
]

SMPL = [  # SMPL's 24 joints in its own order (BVH exports of SMPL bodies)
    ("Pelvis", None, "hips"),
    ("L_Hip", "Pelvis", "hip"),
    ("R_Hip", "Pelvis", "hip.R"),
    ("Spine1", "Pelvis", "spine"),
    ("L_Knee", "L_Hip", "knee"),
    ("R_Knee", "R_Hip", "knee.R"),
    ("Spine2", "Spine1", "spine*0.5+chest*0.5"),
    ("L_Ankle", "L_Knee", "ankle"),
    ("R_Ankle", "R_Knee", "ankle.R"),
    ("Spine3", "Spine2", "chest"),
    ("L_Foot", "L_Ankle", "ball"),
    ("R_Foot", "R_Ankle", "ball.R"),
    ("Neck", "Spine3", "neck"),
    ("L_Collar", "Spine3", "clavicle"),
    ("R_Collar", "Spine3", "clavicle.R"),
    ("Head", "Neck", "head"),
    ("L_Shoulder", "L_Collar", "shoulder"),
    ("R_Shoulder", "R_Collar", "shoulder.R"),
    ("L_Elbow", "L_Shoulder", "elbow"),
    ("R_Elbow", "R_Shoulder", "elbow.R"),
    ("L_Wrist", "L_Elbow", "wrist"),
    ("R_Wrist", "R_Elbow", "wrist.R"),
    ("L_Hand", "L_Wrist", "knuckles"),
    ("R_Hand", "R_Wrist", "knuckles.R"),
]

CESIUM_MAN = [  # Khronos's CesiumMan.glb as Blender's glTF importer names it: limbs named only by limb, side and number
    ("Skeleton_torso_joint_1", None, "hips"),
    ("Skeleton_torso_joint_2", "Skeleton_torso_joint_1", "spine"),
    ("torso_joint_3", "Skeleton_torso_joint_2", "chest"),  # the arms and the neck meet here
    ("Skeleton_neck_joint_1", "torso_joint_3", "neck"),
    ("Skeleton_neck_joint_2", "Skeleton_neck_joint_1", "head"),  # a leaf: the head
    ("Skeleton_arm_joint_L__4_", "torso_joint_3", "shoulder"),  # numbered downwards on the left...
    ("Skeleton_arm_joint_L__3_", "Skeleton_arm_joint_L__4_", "elbow"),
    ("Skeleton_arm_joint_L__2_", "Skeleton_arm_joint_L__3_", "wrist"),
    ("Skeleton_arm_joint_R", "torso_joint_3", "shoulder.R"),  # ...upwards on the right, the first unnumbered
    ("Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R", "elbow.R"),
    ("Skeleton_arm_joint_R__3_", "Skeleton_arm_joint_R__2_", "wrist.R"),
    *_sides(
        [
            ("leg_joint_{S}_1", "Skeleton_torso_joint_1", "hip"),
            ("leg_joint_{S}_2", "leg_joint_{S}_1", "knee"),
            ("leg_joint_{S}_3", "leg_joint_{S}_2", "ankle"),
            ("leg_joint_{S}_5", "leg_joint_{S}_3", "ball"),  # no 4
        ]
    ),
]


def mixamo_a_pose(seed=27, legs=0.85, spine=0.9, a_pose=45.0, scale=1.0):
    """A Mixamo-style rig (`MIXAMO` names, centimetres times `scale`, Y up, facing +Z) with other
    proportions than BODY's and another rest pose: the legs (hip socket to ankle) `legs` times as
    long and the spine (Spine to Spine2) `spine` times, the body lowered so that the feet stay flat
    on the floor (y 0 is the ground, the balls and toe tips at 1 cm); the arms lowered by `a_pose`
    degrees about the shoulders (about +Z: an A pose); every joint's rest frame turned at random
    (seeded: bone rolls), offsets given in those frames as `rest_rotations` hold them."""
    names = [r[0] for r in MIXAMO]
    parents = np.array([-1 if r[1] is None else names.index(r[1]) for r in MIXAMO])
    world = np.array([point(r[2]) for r in MIXAMO])

    def below(name):  # the joints under `name` (itself excluded)
        out = {names.index(name)}
        for j in range(len(names)):
            if parents[j] in out:
                out.add(j)
        return sorted(out - {names.index(name)})

    for side in ("Left", "Right"):
        hip, knee, ankle = (names.index(f"mixamorig:{side}{n}") for n in ("UpLeg", "Leg", "Foot"))
        world[[ankle, *below(names[ankle])]] += (legs - 1.0) * (world[ankle] - world[hip])  # the foot as it is
        world[knee] += (legs - 1.0) * (world[knee] - world[hip])
    chest, low = names.index("mixamorig:Spine2"), names.index("mixamorig:Spine")
    shift = (spine - 1.0) * (world[chest] - world[low])
    world[names.index("mixamorig:Spine1")] += 0.5 * shift
    world[[chest, *below("mixamorig:Spine2")]] += shift
    feet = [names.index(f"mixamorig:{side}Foot") for side in ("Left", "Right")]
    world[:, 1] -= world[feet, 1].mean() - point("ankle")[1]  # the ankles at BODY's height again
    for side, sign in (("Left", -1.0), ("Right", 1.0)):
        arm = names.index(f"mixamorig:{side}Arm")
        turn = core.rotations.axis_rotation("Z", sign * np.radians(a_pose))
        moved = below(names[arm])
        world[moved] = (world[moved] - world[arm]) @ turn.T + world[arm]
    world *= scale
    frames = core.rotations.quat_to_matrix(
        core.rotations.quat_normalize(np.random.default_rng(seed).normal(size=(len(names), 4)))
    )
    parent_frames = np.where((parents >= 0)[:, None, None], frames[np.maximum(parents, 0)], np.eye(3))
    parent_positions = np.where((parents >= 0)[:, None], world[np.maximum(parents, 0)], 0.0)
    return core.Skeleton(
        names,
        parents,
        np.einsum("kji,kj->ki", parent_frames, world - parent_positions),
        channels=[("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")]
        + [("Zrotation", "Xrotation", "Yrotation")] * (len(names) - 1),
        rest_rotations=np.einsum("kji,kjl->kil", parent_frames, frames),
    )


CESIUM_MAN_ROLES = {  # the roles of CESIUM_MAN's joints (the real file's names): what auto_map must find
    "hips": "Skeleton_torso_joint_1",
    "spine": ["Skeleton_torso_joint_2", "torso_joint_3"],
    "neck": ["Skeleton_neck_joint_1"],
    "head": "Skeleton_neck_joint_2",  # the top of the neck chain, not a torso joint
    "upper_arm.L": "Skeleton_arm_joint_L__4_",
    "forearm.L": "Skeleton_arm_joint_L__3_",
    "hand.L": "Skeleton_arm_joint_L__2_",
    "upper_arm.R": "Skeleton_arm_joint_R",
    "forearm.R": "Skeleton_arm_joint_R__2_",
    "hand.R": "Skeleton_arm_joint_R__3_",
    **{f"{role}.{s}": f"leg_joint_{s}_{n}" for s in "LR" for role, n in zip(core.bone_map.LEG[1:], (1, 2, 3, 5))},
}
