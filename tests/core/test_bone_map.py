"""core.auto_map on the corpus skeletons and on Mixamo-, Rigify- and Unreal-like rigs; from
structure where names say nothing; presets as JSON."""

import json
import re

import numpy as np
import pytest

import rig_samples
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.core import bone_map
from sample_motion import cmu_like_motion

CMU = cmu_like_motion(core, 1).skeleton
MIXAMO = rig_samples.build(rig_samples.MIXAMO)
# hips, left thigh, shin, foot, upper arm, forearm, hand, head, right thigh, right upper arm
PARTS = ["Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftArm", "LeftForeArm", "LeftHand", "Head"]
PARTS += ["RightUpLeg", "RightArm"]
CMU_NAMES = PARTS
XSENS_NAMES = ["Hips", "LeftHip", "LeftKnee", "LeftAnkle", "LeftShoulder", "LeftElbow", "LeftWrist", "Head"]
XSENS_NAMES += ["RightHip", "RightShoulder"]
CORPUS_PARTS = {
    "bvh/cmu-cgspeed/cmu_12_01_walk.bvh": CMU_NAMES,
    "bvh/anim_utils/mh_cmu_skeleton_pose.bvh": CMU_NAMES,
    "bvh/pybvh/bvh_test1.bvh": CMU_NAMES,
    "bvh/pybvh/bvh_test3.bvh": CMU_NAMES,
    "bvh/pybvh/standard_skeleton.bvh": CMU_NAMES,
    "bvh/motionbuilder-cmu/16_15.bvh": [
        *("root", "lfemur", "ltibia", "lfoot", "lhumerus", "lradius", "lwrist", "head", "rfemur", "rhumerus"),
    ],
    "bvh/bandai-namco/dataset-1_dash_normal_001.bvh": [
        *("Hips", "UpperLeg_L", "LowerLeg_L", "Foot_L", "UpperArm_L", "LowerArm_L", "Hand_L", "Head"),
        *("UpperLeg_R", "UpperArm_R"),
    ],
    "bvh/mocapbank/test_mocapbank.bvh": XSENS_NAMES,
    "bvh/assimp-boxing/Boxing_Toes.bvh": XSENS_NAMES,
    "bvh/xsens-mvn-pybvh/bvh_test2.bvh": XSENS_NAMES,
    "bvh/anim_utils/custom_skeleton_walk_example.bvh": [
        *("FK_back1_jnt", "L_upLeg_jnt", "L_lowLeg_jnt", "L_foot_jnt", "L_upArm_jnt", "L_lowArm_jnt", "L_hand_jnt"),
        *("head_jnt", "R_upLeg_jnt", "R_upArm_jnt"),
    ],
}


@needs_corpus
@pytest.mark.filterwarnings("ignore:.*frames were declared")  # Boxing_Toes.bvh has one frame more
@pytest.mark.parametrize("name", sorted(CORPUS_PARTS))
def test_corpus_skeletons_map_onto_a_mixamo_rig(name):
    source = core.read(CORPUS / name, strict=False).skeleton
    found = core.auto_map(source, MIXAMO)
    expected = {s: f"mixamorig:{t}" for s, t in zip(CORPUS_PARTS[name], PARTS)}
    assert {s: found.get(s) for s in expected} == expected
    assert len(set(found.values())) == len(found) >= 18


@needs_corpus
def test_the_corpus_is_covered():
    assert all((CORPUS / name).is_file() for name in CORPUS_PARTS)


EXPECTED = {
    "mixamo": {
        "Hips": "mixamorig:Hips",
        "LowerBack": "mixamorig:Spine",
        "Spine": "mixamorig:Spine1",
        "Spine1": "mixamorig:Spine2",
        "Neck1": "mixamorig:Neck",  # one neck joint: the top of the source's two
        "Head": "mixamorig:Head",
        "LeftShoulder": "mixamorig:LeftShoulder",
        "LeftArm": "mixamorig:LeftArm",
        "RightForeArm": "mixamorig:RightForeArm",
        "RightHand": "mixamorig:RightHand",
        "LThumb": "mixamorig:LeftHandThumb1",
        "LeftHandIndex1": "mixamorig:LeftHandIndex1",
        "LeftUpLeg": "mixamorig:LeftUpLeg",
        "RightLeg": "mixamorig:RightLeg",
        "RightToeBase": "mixamorig:RightToeBase",
    },
    "rigify": {
        "Hips": "DEF-spine",  # "spine" is the hips in Rigify: found where the thighs meet
        "LowerBack": "DEF-spine.001",
        "Spine1": "DEF-spine.003",
        "Neck": "DEF-spine.004",
        "Head": "DEF-spine.006",
        "LeftShoulder": "DEF-shoulder.L",
        "LeftArm": "DEF-upper_arm.L",
        "LeftForeArm": "DEF-forearm.L",  # not the upper arm's second segment DEF-upper_arm.L.001
        "RightHand": "DEF-hand.R",
        "LeftHandIndex1": "DEF-f_index.01.L",
        "RThumb": "DEF-thumb.01.R",
        "RightUpLeg": "DEF-thigh.R",
        "RightLeg": "DEF-shin.R",
        "LeftFoot": "DEF-foot.L",
        "LeftToeBase": "DEF-toe.L",
    },
    "unreal": {
        "Hips": "pelvis",  # not "root", the ground joint
        "LowerBack": "spine_01",
        "Spine": "spine_03",
        "Spine1": "spine_05",  # five spine joints onto three: ends paired, the middle spread
        "Neck": "neck_01",
        "Neck1": "neck_02",
        "Head": "head",
        "RightShoulder": "clavicle_r",
        "RightArm": "upperarm_r",
        "LeftForeArm": "lowerarm_l",
        "LeftHand": "hand_l",
        "LeftHandIndex1": "index_01_l",
        "LeftUpLeg": "thigh_l",
        "LeftLeg": "calf_l",
        "RightToeBase": "ball_r",
    },
}
NEVER = re.compile(r"twist|ik_|^root$|_End|pelvis\.|breast|palm|metacarpal|\.[LR]\.\d")  # .L.001: a 2nd segment


@pytest.mark.parametrize(
    ("rig", "rows", "up", "scale"),
    [
        ("mixamo", rig_samples.MIXAMO, "Y", 1.0),
        ("rigify", rig_samples.RIGIFY, "Z", 0.01),
        ("unreal", rig_samples.UNREAL, "Z", 1.0),
    ],
)
def test_rigs_map_by_name(rig, rows, up, scale):
    target = rig_samples.build(rows, up=up, scale=scale)
    found = core.auto_map(CMU, target)
    assert {s: found.get(s) for s in EXPECTED[rig]} == EXPECTED[rig]
    assert not [t for t in found.values() if NEVER.search(t)]
    assert len(found) >= 26 and len(set(found.values())) == len(found)
    assert core.auto_map(target, CMU) == {t: s for s, t in found.items()}  # both ways alike


@pytest.mark.parametrize(
    ("rows", "up"),
    [(None, "Y"), (rig_samples.UNREAL, "Z"), (rig_samples.MIXAMO, "Y"), (rig_samples.CESIUM_MAN, "Z")],
    ids=["cmu", "unreal", "mixamo", "cesium_man"],
)
def test_structure_finds_the_body_where_names_fail(rows, up):
    """Joints named j0, j1, ...: legs, arms, sides (from where the toes point), spine and neck
    are found from the hierarchy and the rest pose alone (CesiumMan: arms smaller than the legs)."""
    named = CMU if rows is None else rig_samples.build(rows, up=up)
    anonymous = core.Skeleton([f"j{i}" for i in range(named.joint_count)], named.parents, named.offsets)
    found = core.auto_map(named, anonymous)
    expected = {n: f"j{named.index(n)}" for n in body_joints(named)}
    assert len(expected) >= 17 and {s: found.get(s) for s in expected} == expected


def body_joints(skeleton):
    """The hips, spine and limb joints of a skeleton (from its names)."""
    roles = bone_map.find_roles(skeleton)
    keep = [j for role, j in roles.items() if role.split(".")[0] in bone_map.ARM[:4] + bone_map.LEG[1:] + ("hips",)]
    keep += roles["spine"]
    return [skeleton.names[j] for j in keep]


def test_name_spellings():
    cases = {
        "mixamorig:LeftForeArm": ("L", "arm", ("forearm",)),
        "mixamorig1:RightUpLeg": ("R", "leg", ("thigh",)),
        "Bip01 L UpperArm": ("L", "arm", ("upper_arm",)),
        "CC_Base_R_Thigh": ("R", "leg", ("thigh",)),
        "upperarm_l": ("L", "arm", ("upper_arm",)),
        "DEF-forearm.R": ("R", "arm", ("forearm",)),
        "Shoulder_L": ("L", "arm", ("clavicle", "upper_arm")),
        "lhumerus": ("L", "arm", ("upper_arm",)),
        "rtibia": ("R", "leg", ("shin",)),
        "LHipJoint": ("L", "leg", ("hip",)),
        "R_Ankle": ("R", "leg", ("foot",)),
        "L_Foot": ("L", "leg", ("foot", "toe")),  # SMPL's foot is the toe: the chain decides
        "RightInHandIndex": ("R", "index", (0,)),
        "LeftHandPinky3": ("L", "pinky", (3,)),
        "DEF-f_middle.02.L": ("L", "middle", (2,)),
        "lowerback": (None, "torso", ("spine",)),
        "L5": (None, "torso", ("spine",)),
        "joint_Root": (None, "torso", ("hips", "ground")),
        "LeftThigh": ("L", "leg", ("thigh",)),  # Rokoko
        "LeftShin": ("L", "leg", ("shin",)),
        "Skeleton_torso_joint_2": (None, "torso", ("spine",)),  # glTF: the armature's name, then "joint"
        "Skeleton_neck_joint_1": (None, "torso", ("neck",)),
        "Skeleton_arm_joint_L__4_": ("L", "arm", ()),  # somewhere along the left arm: its shape decides
        "Skeleton_arm_joint_R": ("R", "arm", ()),
        "leg_joint_R_5": ("R", "leg", ()),
        "arm.L.002": ("L", "arm", ()),
    }
    for name, parsed in cases.items():
        assert bone_map._parse(name) == parsed, name
    for name in ("upperarm_twist_01_l", "ik_foot_l", "HeadTop_End", "DEF-upper_arm.L.001", "R_shoulderEnd_jnt"):
        assert bone_map._parse(name) is None, name


CMU_LIMBS = {"Arm": "upper_arm", "ForeArm": "forearm", "Hand": "hand", "UpLeg": "thigh", "Leg": "shin"}
CMU_LIMBS |= {"Foot": "foot", "ToeBase": "toe"}


def role_names(skeleton):
    """find_roles with joint names for indices."""
    roles = bone_map.find_roles(skeleton)
    return {role: skeleton.names[j] if np.ndim(j) == 0 else [skeleton.names[i] for i in j] for role, j in roles.items()}


def test_limbs_named_by_limb_side_and_number_take_roles_from_their_shape():
    """CesiumMan (glTF): "arm_joint_L__4_" to "arm_joint_L__2_" down the left arm, "arm_joint_R",
    "arm_joint_R__2_", "arm_joint_R__3_" down the right, "leg_joint_L_1" to "leg_joint_L_5" (no 4):
    names give limb and side, numbers no order; the two longest bones in a row are the upper and lower."""
    cesium = rig_samples.build(rig_samples.CESIUM_MAN, up="Z", scale=0.01)
    assert role_names(cesium) == rig_samples.CESIUM_MAN_ROLES  # no clavicle: the arms start at the shoulders
    found = core.auto_map(CMU, cesium)
    expected = {"Hips": "Skeleton_torso_joint_1", "LowerBack": "Skeleton_torso_joint_2", "Spine1": "torso_joint_3"}
    expected |= {"Neck1": "Skeleton_neck_joint_1", "Head": "Skeleton_neck_joint_2"}
    for side in ("Left", "Right"):
        expected |= {
            f"{side}{cmu}": rig_samples.CESIUM_MAN_ROLES[f"{role}.{side[0]}"] for cmu, role in CMU_LIMBS.items()
        }
    assert found == expected  # nothing else: no clavicle, no second neck joint
    assert core.auto_map(cesium, CMU) == {t: s for s, t in found.items()}  # both ways alike


def test_a_numbered_arm_with_a_clavicle_and_no_arms_at_all():
    """Four joints down a numbered arm: clavicle, upper arm, forearm, hand, whichever way the numbers
    run (up on the left, down on the right). Without arms the head is still the neck chain's top."""
    rows = [row for row in rig_samples.CESIUM_MAN if "arm" not in row[0]]
    with_clavicles = rows + [
        ("arm_joint_L_1", "torso_joint_3", "clavicle"),
        ("arm_joint_L_2", "arm_joint_L_1", "shoulder"),
        ("arm_joint_L_3", "arm_joint_L_2", "elbow"),
        ("arm_joint_L_4", "arm_joint_L_3", "wrist"),
        ("arm_joint_R_4", "torso_joint_3", "clavicle.R"),
        ("arm_joint_R_3", "arm_joint_R_4", "shoulder.R"),
        ("arm_joint_R_2", "arm_joint_R_3", "elbow.R"),
        ("arm_joint_R_1", "arm_joint_R_2", "wrist.R"),
    ]
    roles = role_names(rig_samples.build(with_clavicles, up="Z", scale=0.01))
    arms = {f"{role}.{side}": roles.get(f"{role}.{side}") for role in bone_map.ARM[:4] for side in "LR"}
    assert arms == {
        **{f"{role}.L": f"arm_joint_L_{n}" for role, n in zip(bone_map.ARM[:4], (1, 2, 3, 4))},
        **{f"{role}.R": f"arm_joint_R_{n}" for role, n in zip(bone_map.ARM[:4], (4, 3, 2, 1))},
    }
    torso = ("hips", "spine", "neck", "head")
    assert {role: roles[role] for role in torso} == {role: rig_samples.CESIUM_MAN_ROLES[role] for role in torso}
    armless = role_names(rig_samples.build(rows, up="Z", scale=0.01))  # no chest: the torso from names
    assert {role: armless.get(role) for role in torso} == {role: rig_samples.CESIUM_MAN_ROLES[role] for role in torso}


def test_limbs_extruded_in_blender_are_numbered_from_the_bare_limb():
    """Blender's names for extruded bones, "leg.L", "leg.L.001", ...: "leg.L" is the thigh here, not
    the shin it is alone (Mixamo's LeftLeg)."""
    rows = [("spine", None, "hips"), ("spine.001", "spine", "chest"), ("neck", "spine.001", "neck")]
    rows += [("head", "neck", "head")]
    rows += rig_samples._sides(
        [
            ("arm.{S}", "spine.001", "shoulder"),
            ("arm.{S}.001", "arm.{S}", "elbow"),
            ("arm.{S}.002", "arm.{S}.001", "wrist"),
            ("leg.{S}", "spine", "hip"),
            ("leg.{S}.001", "leg.{S}", "knee"),
            ("leg.{S}.002", "leg.{S}.001", "ankle"),
            ("leg.{S}.003", "leg.{S}.002", "ball"),
        ]
    )
    roles = role_names(rig_samples.build(rows))
    expected = {"hips": "spine", "spine": ["spine.001"], "neck": ["neck"], "head": "head"}
    for s in "LR":
        expected |= {f"upper_arm.{s}": f"arm.{s}", f"forearm.{s}": f"arm.{s}.001", f"hand.{s}": f"arm.{s}.002"}
        expected |= {f"thigh.{s}": f"leg.{s}", f"shin.{s}": f"leg.{s}.001", f"foot.{s}": f"leg.{s}.002"}
        expected |= {f"toe.{s}": f"leg.{s}.003"}
    assert roles == expected


def test_smpl_names_mean_other_joints():
    """SMPL's "Foot" is the ball of the foot, its "Hand" the knuckles, its "Shoulder" the upper arm."""
    found = core.auto_map(rig_samples.build(rig_samples.SMPL), MIXAMO)
    expected = {"Pelvis": "Hips", "L_Hip": "LeftUpLeg", "L_Ankle": "LeftFoot", "L_Foot": "LeftToeBase"}
    expected |= {"R_Collar": "RightShoulder", "R_Shoulder": "RightArm", "R_Wrist": "RightHand", "Spine3": "Spine2"}
    expected |= {"Spine1": "Spine", "Neck": "Neck", "Head": "Head"}
    assert {s: found.get(s) for s in expected} == {s: f"mixamorig:{t}" for s, t in expected.items()}
    assert "L_Hand" not in found  # Mixamo has no joint at the knuckles


def test_chain_order_decides_what_shoulder_means():
    xsens = core.Skeleton(["Hips", "LeftCollar", "LeftShoulder", "LeftElbow"], [-1, 0, 1, 2], np.eye(4, 3))
    mixamo = core.Skeleton(["Hips", "LeftShoulder", "LeftArm", "LeftForeArm"], [-1, 0, 1, 2], np.eye(4, 3))
    assert core.auto_map(xsens, mixamo) == {
        "Hips": "Hips",
        "LeftCollar": "LeftShoulder",
        "LeftShoulder": "LeftArm",
        "LeftElbow": "LeftForeArm",
    }


def test_presets_round_trip_and_bad_presets_name_the_line(tmp_path):
    found = core.auto_map(CMU, MIXAMO)
    path = tmp_path / "cmu_to_mixamo.json"
    bone_map.save_preset(found, path)
    assert bone_map.load_preset(path) == found
    assert json.loads(path.read_text(encoding="utf-8")) == found
    path.write_text('{\n  "Hips": "mixamorig:Hips",\n  "Head": \n}\n', encoding="utf-8")
    with pytest.raises(core.ParseError) as info:
        bone_map.load_preset(path)
    assert info.value.line == 4 and str(path) in str(info.value)  # where the value should be
    path.write_text('["Hips", "Head"]', encoding="utf-8")
    with pytest.raises(core.ParseError, match="JSON object"):
        bone_map.load_preset(path)
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(core.ParseError, match="nested"):
        bone_map.load_preset(path)
    path.write_bytes(b'{"H\xe9": "x"}')
    with pytest.raises(core.ParseError, match="UTF-8"):
        bone_map.load_preset(path)


def test_a_face_rig_under_the_head_is_not_followed():
    """Rigify's metarig: no joint is named head (spine.006 is) and a face rig of many bones hangs
    from it under one `face` bone; the neck and head are the spine's, not the face's largest branch."""
    face = [("face", "DEF-spine.006", "head")] + [
        (f"{part}.{i}", "face" if i == 0 else f"{part}.{i - 1}", "head")
        for part in ("brow.T.L", "brow.T.R", "jaw", "nose")
        for i in range(4)
    ]
    target = rig_samples.build(rig_samples.RIGIFY + face, up="Z", scale=0.01)
    found = core.auto_map(CMU, target)
    assert (found["Neck"], found["Head"]) == ("DEF-spine.004", "DEF-spine.006")
    assert not [t for t in found.values() if t.startswith(("face", "brow", "jaw", "nose"))]


def test_up_is_the_axis_nearest_hips_to_head_median_over_frames():
    frames = np.zeros((3, 3, 3))
    frames[:, 2] = [[0.1, 0, -1], [0.1, 0, -1], [5.0, 0, 0]]  # one frame lying down: the median stands
    assert bone_map.up_from_roles({"hips": 0, "spine": [1, 2]}, frames).tolist() == [0, 0, -1]
    assert bone_map.up_from_roles({"hips": 0, "head": 1, "spine": [2]}, frames) is None  # head at the hips
    assert bone_map.up_from_roles({"spine": [1, 2]}, frames) is None
