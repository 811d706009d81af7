"""core.retarget: rest-pose differences (bone rolls, A pose, axes) leave world positions exact; root
motion scales with the legs; unmapped joints keep their rest; feet stay put during contacts."""

import numpy as np
import pytest

import rig_samples
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.core import body, feet
from motion_checks import assert_same_world
from retarget_quality import measure, read_take
from sample_motion import cmu_like_motion, restyled_skeleton

MOTION = cmu_like_motion(core, 600)
MIXAMO_NAMES = {
    "LeftUpLeg": "mixamorig:LeftUpLeg",
    "LeftLeg": "mixamorig:LeftLeg",
    "LeftFoot": "mixamorig:LeftFoot",
    "LeftArm": "mixamorig:LeftArm",
    "LeftForeArm": "mixamorig:LeftForeArm",
    "LeftHand": "mixamorig:LeftHand",
    "Hips": "mixamorig:Hips",
    "Head": "mixamorig:Head",
}


@pytest.mark.parametrize(
    "options",
    [
        {"seed": 1},
        {"seed": 2, "a_pose": 45.0},
        {"seed": 3, "a_pose": 30.0, "names": MIXAMO_NAMES},
        {"a_pose": 40.0, "up": "Z"},  # the target's rest lies in other axes: it is turned into the source's
    ],
)
def test_other_rolls_and_an_a_pose_reproduce_world_positions(options):
    target = restyled_skeleton(core, MOTION.skeleton, **options)
    out = core.retarget(MOTION, target)
    assert out.skeleton is target and out.fps == MOTION.fps and out.frame_count == MOTION.frame_count
    assert out.euler_orders == ["ZXY"] * 31  # the target's channel layout
    assert_same_world(out, MOTION)
    # continuous curves: small steps (the source's are), but for the first and last angle near
    # gimbal lock, where only their sum or difference is defined; the middle angle passes +-90 degrees
    step = np.abs(np.diff(out.euler, axis=0))
    locked = np.abs(np.cos(out.euler[:, :, 1])) < 0.25  # within 15 degrees of the lock
    assert step[..., 1].max() < 0.2 and step[~(locked[1:] | locked[:-1])].max() < 0.2
    assert locked.any() == (options.get("up") == "Z")  # the Z up rig's hips turn 90 degrees about X


def test_a_round_trip_through_another_rig_gives_the_source_back():
    target = restyled_skeleton(core, MOTION.skeleton, seed=4, a_pose=45.0)
    back = core.retarget(core.retarget(MOTION, target), MOTION.skeleton)
    assert_same_world(back, MOTION)
    np.testing.assert_allclose(back.euler, MOTION.euler, atol=1e-9)


def test_a_scaled_skeleton_scales_root_motion():
    target = restyled_skeleton(core, MOTION.skeleton, seed=5, scale=2.5)
    assert_same_world(core.retarget(MOTION, target), MOTION, scale=2.5)
    fixed = core.retarget(MOTION, target, root_scale=1.0)  # steps as long as the source's
    hips = MOTION.world_positions()[:, 0]
    np.testing.assert_allclose(fixed.world_positions()[:, 0], hips, atol=1e-9)
    expected = hips[:, None] + 2.5 * (MOTION.world_positions() - hips[:, None])
    np.testing.assert_allclose(fixed.world_positions(), expected, atol=1e-9)


def bone_directions(motion, pairs):
    """Unit world directions (F, n, 3) from each joint to its child, for (joint, child) name pairs."""
    names = motion.skeleton.names
    p = motion.world_positions()
    vectors = np.stack([p[:, names.index(c)] - p[:, names.index(j)] for j, c in pairs], axis=1)
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def trunk(motion, names):
    """(rest (3,), per frame (F, 3)): from the midpoint of the first two joints `names` (hip
    sockets) to that of the last two (upper arms)."""
    index = [motion.skeleton.index(n) for n in names]
    return tuple(
        p[..., index[2:], :].mean(-2) - p[..., index[:2], :].mean(-2)
        for p in (motion.skeleton.rest_world()[1], motion.world_positions())
    )


@pytest.mark.parametrize(("rows", "up", "scale"), [(rig_samples.UNREAL, "Z", 1.0), (rig_samples.RIGIFY, "Z", 0.01)])
def test_limbs_point_the_source_ways_on_rigs_with_other_proportions(rows, up, scale):
    """Other proportions, extra twist and IK bones, centimetres to metres: every mapped limb bone
    points where the source's does, head and feet turn from their rest as the source's do, the
    trunk (hip sockets to upper arms) turns as the source's does, every unmapped joint keeps its
    rest rotation."""
    source = MOTION
    target = rig_samples.build(rows, up=up, scale=scale)
    bone_map = core.auto_map(source.skeleton, target)
    out = core.retarget(source, target, bone_map, fix_feet=False)
    limbs = [("LeftArm", "LeftForeArm"), ("LeftForeArm", "LeftHand"), ("RightUpLeg", "RightLeg")]
    limbs += [("RightLeg", "RightFoot")]
    mapped = [(bone_map[a], bone_map[b]) for a, b in limbs]
    np.testing.assert_allclose(bone_directions(out, mapped), bone_directions(source, limbs), atol=1e-9)
    upright = body.upright_turn(body.Body(source.skeleton), body.Body(target))
    for joint in ("Head", "LeftFoot"):  # the rig stood as the source stands, then turned as it turns
        k, j = target.index(bone_map[joint]), source.skeleton.index(joint)
        turn = out.world_matrices()[:, k, :3, :3] @ (upright @ target.rest_world()[0][k]).T
        expected = source.world_matrices()[:, j, :3, :3] @ source.skeleton.rest_world()[0][j].T
        np.testing.assert_allclose(turn, expected, atol=1e-9)
    names = ("LeftUpLeg", "RightUpLeg", "LeftArm", "RightArm")
    rest_s, now_s = trunk(source, names)
    rest_t, now_t = trunk(out, [bone_map[n] for n in names])
    expected = core.rotations.rotation_between(rest_s, now_s) @ (upright @ rest_t)
    cosine = np.sum(expected * now_t, axis=1) / np.linalg.norm(expected, axis=1) / np.linalg.norm(now_t, axis=1)
    assert np.degrees(np.arccos(np.clip(cosine, -1, 1))).max() < 0.5
    unmapped = [k for k, n in enumerate(target.names) if n not in bone_map.values()]
    assert len(unmapped) >= 12
    at_rest = [k for k in unmapped if k not in body.Body(target).roles.get("spine", [])]  # the spine is steered
    np.testing.assert_allclose(out.euler[:, at_rest], 0.0, atol=1e-9)
    hips = out.world_positions()[:, target.index(bone_map["Hips"])]  # Z up rigs are turned Y up like the source
    ratio = hips[:, 1].mean() / source.world_positions()[:, 0, 1].mean()
    assert 0.8 * scale < ratio < 1.2 * scale  # the rigs' legs are about as long as the source's


def test_an_edited_map_leaves_joints_at_rest_and_bad_maps_are_refused():
    target = restyled_skeleton(core, MOTION.skeleton, seed=6)
    bone_map = core.auto_map(MOTION.skeleton, target)
    assert bone_map == {n: n for n in MOTION.skeleton.names}
    del bone_map["LeftForeArm"]
    out = core.retarget(MOTION, target, bone_map)
    forearm = target.index("LeftForeArm")
    np.testing.assert_allclose(out.euler[:, forearm], 0.0, atol=1e-9)
    hand = target.index("LeftHand")  # mapped: its world rotation still follows the source's hand
    turn = out.world_matrices()[:, hand, :3, :3] @ target.rest_world()[0][hand].T
    np.testing.assert_allclose(turn, MOTION.world_matrices()[:, hand, :3, :3], atol=1e-9)
    with pytest.raises(ValueError, match="'Nose'"):
        core.retarget(MOTION, target, {"Nose": "Head"})
    with pytest.raises(ValueError, match="more than one"):
        core.retarget(MOTION, target, {"Head": "Head", "Neck": "Head"})
    with pytest.raises(ValueError, match="2 Euler orders"):
        core.retarget(MOTION, target, euler_orders=["XYZ", "ZXY"])


def test_euler_orders_option():
    s = MOTION.skeleton
    target = core.Skeleton(
        s.names, s.parents, s.offsets, end_site_parents=s.end_site_parents, end_site_offsets=s.end_site_offsets
    )
    out = core.retarget(MOTION, target, euler_orders="yxz")
    assert out.euler_orders == ["YXZ"] * 31
    assert_same_world(out, MOTION)
    assert core.retarget(MOTION, target).euler_orders == ["ZXY"] * 31  # no channel layout


def test_two_bone_ik_reaches_reachable_goals_keeping_lengths_and_the_free_legs_plane():
    rng = np.random.default_rng(0)
    hip, knee, ankle = rng.normal(size=(3, 200, 3))
    lengths = np.linalg.norm(knee - hip, axis=1), np.linalg.norm(ankle - knee, axis=1)
    direction = rng.normal(size=(200, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    reach = np.abs(lengths[0] - lengths[1]) + rng.uniform(0.05, 0.95, 200) * (2 * np.minimum(*lengths))
    goal = hip + reach[:, None] * direction
    upper, lower = feet.two_bone_ik(hip, knee, ankle, goal)
    new_knee = hip + np.einsum("nij,nj->ni", upper, knee - hip)
    new_ankle = new_knee + np.einsum("nij,nj->ni", lower @ upper, ankle - knee)
    np.testing.assert_allclose(new_ankle, goal, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(new_knee - hip, axis=1), lengths[0], atol=1e-9)
    # the knee bends as in the free leg: its plane (hip, knee, ankle) turned with the hip-ankle line onto the goal's
    turned = np.einsum(
        "nij,nj->ni", core.rotations.rotation_between(ankle - hip, goal - hip), np.cross(knee - hip, ankle - hip)
    )
    np.testing.assert_allclose(np.sum((new_knee - hip) * turned, axis=1), 0.0, atol=1e-9)
    side = np.sum(np.cross(goal - hip, new_knee - hip) * turned, axis=1)
    free_side = -np.sum(np.cross(knee - hip, ankle - hip) ** 2, axis=1)  # the same product for the free leg
    np.testing.assert_array_equal(np.sign(side), np.sign(free_side))  # the knee on the free knee's side
    far = hip + 3 * (lengths[0] + lengths[1])[:, None] * direction  # out of reach: as near as it gets
    upper, lower = feet.two_bone_ik(hip, knee, ankle, far)
    new_ankle = hip + np.einsum("nij,nj->ni", upper, knee - hip) + np.einsum("nij,nj->ni", lower @ upper, ankle - knee)
    np.testing.assert_allclose(new_ankle, hip + (lengths[0] + lengths[1])[:, None] * direction, atol=1e-6)


def test_contacts_phases_plants_and_the_drop_to_reach():
    frames = np.arange(100)
    step = np.clip((frames - 30) / 40, 0, 1)  # still, a 40-frame swing, still again
    foot = np.stack([np.zeros(100), 20 * np.sin(np.pi * step), 50 * step], axis=1)
    contact = feet.contacts(foot, [0, 1, 0], fps=100.0, leg_length=90.0)
    assert contact[:30].all() and contact[71:].all() and not contact[34:67].any()
    # the phases: heel alone, toe alone, both (flat)
    heel, ball = np.array([1, 0, 1, 0], bool), np.array([0, 1, 1, 0], bool)
    assert list(feet.phases(heel, ball)) == [feet.HEEL, feet.TOE, feet.FLAT, 0]
    # a flat foot drifting 0.01 a frame is held at its mean place, the ankle at its flat height
    up, drift = np.array([0.0, 1, 0]), 0.01 * frames[:30, None] * [0, 0, 1]
    ankle = np.array([0.0, 12.0, 0]) + drift
    offsets = np.repeat([[[0.0, 0, 0], [0, -8, 10]]], 30, axis=0)  # ankle, ball
    phase = np.full(30, feet.FLAT)
    still = np.zeros(30)
    goal, turns, planted = feet.plant(ankle, offsets, 1, phase, np.zeros(30), still, up, 0.0, (8.0, 0.0), 3.0, 0.1)
    assert planted.all()
    np.testing.assert_allclose(goal, np.repeat([[0.0, 8.0, 0.145]], 30, axis=0), atol=1e-12)
    np.testing.assert_allclose(turns, np.broadcast_to(np.eye(3), (30, 3, 3)), atol=1e-12)
    # a toe roll: the foot turns about the ball, which stays where it stood, rising as the source's
    roll = core.rotations.axis_rotation("X", np.radians(np.linspace(0, 30, 30)))  # the heel rising
    rolled = np.einsum("fij,fnj->fni", roll, offsets)
    phase = np.full(30, feet.TOE)
    goal, _, _ = feet.plant(ankle, rolled, 1, phase, np.zeros(30), still, up, 0.0, (8.0, 0.0), 3.0, 0.1)
    ball = goal + rolled[:, 1]
    np.testing.assert_allclose(ball[:, [0, 2]], np.repeat(ball[:1, [0, 2]], 30, axis=0), atol=1e-12)
    np.testing.assert_allclose(ball[:, 1], 0.0, atol=1e-12)
    lift = np.clip(frames[:30] - 20, 0, None) * 0.5  # the source's ball leaves the floor over the last frames
    goal, _, _ = feet.plant(ankle, rolled, 1, phase, np.zeros(30), lift, up, 0.0, (8.0, 0.0), 3.0, 0.1)
    np.testing.assert_allclose((goal + rolled[:, 1])[:, 1], lift, atol=1e-12)
    # a flat foot rolling 8 degrees about its ball is held whole, its turn within the hold either way
    roll = core.rotations.axis_rotation("X", np.radians(np.linspace(0, 8, 30)))
    rolled = np.einsum("fij,fnj->fni", roll, offsets)
    phase = np.full(30, feet.FLAT)
    limit = np.radians(4.5)
    goal, turns, _ = feet.plant(ankle, rolled, 1, phase, np.zeros(30), still, up, 0.0, (8.0, 0.0), 3.0, limit)
    ball = goal + np.einsum("fij,fj->fi", turns, rolled[:, 1])
    np.testing.assert_allclose(goal - goal[0], 0.0, atol=1e-9)
    np.testing.assert_allclose(ball - ball[0], 0.0, atol=1e-9)
    angles = np.linalg.norm(core.rotations.quat_to_rotvec(core.rotations.matrix_to_quat(turns)), axis=1)
    assert angles.max() <= limit + 1e-9 and np.degrees(angles[[0, -1]]) == pytest.approx([4.0, 4.0], abs=1e-6)
    # easing out: the turns as they are while planted, those of the last planted frame eased to none
    planted = frames < 50
    vectors = np.zeros((100, 2, 3))
    vectors[:50] = [[0.1, 0.0, 0.0], [0.0, 0.2, 0.0]]
    eased, weight = feet.ramps(vectors, planted, np.full(100, 5.0))
    np.testing.assert_array_equal(weight[:50], 1.0)
    assert 1 > weight[50] > weight[53] > 0 and weight[55] == 0
    np.testing.assert_array_equal(eased[:50], vectors[:50])
    np.testing.assert_allclose(eased[50:], weight[50:, None, None] * vectors[49], atol=1e-15)
    hip = np.array([[0.0, 100, 0], [0, 80, 0]])
    drop = feet.drop_to_reach(hip, np.array([[0.0, 0, 60], [0, 0, 0]]), 90.0, np.array([0.0, 1, 0]))
    np.testing.assert_allclose(drop, [100 - np.sqrt(90**2 - 60**2), 0.0])


@needs_corpus
def test_contact_feet_hold_still_on_a_rig_with_other_leg_proportions():
    """The CMU walk on legs with longer thighs, shorter shins and wider hips: without foot fixing
    its feet slide across the floor while the source's stand; with it (the default) they hold
    (tests/retarget_quality.py's contacts, an independent reading of the take), soles on the floor."""
    walk = core.read(CORPUS / "bvh/cmu-cgspeed/cmu_12_01_walk.bvh")
    s = walk.skeleton
    offsets = s.offsets.copy()
    for side in ("Left", "Right"):
        for joint, factor in ((f"{side}UpLeg", 1.5), (f"{side}Leg", 1.3), (f"{side}Foot", 0.75)):
            offsets[s.index(joint)] *= factor
    target = core.Skeleton(s.names, s.parents, offsets, channels=s.channels)
    plain, fixed = core.retarget(walk, target, fix_feet=False), core.retarget(walk, target)
    bone_map = {n: n for n in s.names}
    loose, held = (
        measure(walk.take(slice(1, None)), m.take(slice(1, None)), bone_map, target_floor=0.0, unit=0.0564)
        for m in (plain, fixed)
    )
    assert loose.slide_max > 0.3 and loose.slide_mean > 0.05
    assert held.slide_max <= 0.05 and held.slide_mean <= 0.01
    assert -0.01 <= held.sole_min and held.sole_max <= 0.02
    # away from the legs nothing changes but the hips' height
    arms = [s.index(n) for n in ("LeftArm", "RightHand", "Head")]
    relative = fixed.world_positions()[:, arms] - fixed.world_positions()[:, :1]
    np.testing.assert_allclose(relative, plain.world_positions()[:, arms] - plain.world_positions()[:, :1], atol=1e-9)


@needs_corpus
def test_knees_bend_forward_when_a_sprinters_straight_leg_is_bent_to_reach_its_foot():
    """The Bandai Namco dash (its rest pose lies along X, so its thighs' rolls tell nothing of the
    body's front) onto the Mixamo-style rig: where the source's push-off leg is straight and a
    planted foot bends it, the knee bends forward, as every knee of the source does (the knee's
    pole is the body's forward swung with the thigh, not a forward carried by the thigh's roll)."""
    source = read_take(CORPUS, "run")
    moved = core.retarget(source, rig_samples.mixamo_a_pose())
    at, s = moved.world_positions(), moved.skeleton
    hips = [s.index(f"mixamorig:{side}UpLeg") for side in ("Left", "Right")]
    forward = np.cross(at[:, hips[0]] - at[:, hips[1]], [0.0, 1.0, 0.0])
    for side in ("Left", "Right"):
        hip, knee, ankle = (at[:, s.index(f"mixamorig:{side}{j}")] for j in ("UpLeg", "Leg", "Foot"))
        line = (ankle - hip) / np.linalg.norm(ankle - hip, axis=1, keepdims=True)
        off = (knee - hip) - np.sum((knee - hip) * line, axis=1, keepdims=True) * line
        behind = -np.sum(off * forward, axis=1) / np.linalg.norm(forward, axis=1) / np.linalg.norm(knee - hip, axis=1)
        assert behind.max() < np.sin(np.radians(1.0)), side


@needs_corpus
def test_a_pelvis_lowered_to_reach_the_feet_moves_hips_that_hang_from_an_unmapped_root():
    """The CMU walk onto the Bandai Namco skeleton, whose hips hang from a root joint no source joint
    maps to: where a planted foot is out of reach the pelvis is lowered, and the written hips carry
    that drop (it was lost, and the soles floated 5 to 8 cm above the ground)."""
    source, bandai = read_take(CORPUS, "walk"), read_take(CORPUS, "run").skeleton
    moved = core.retarget(source, bandai)
    root = bandai.names[0]
    assert root not in core.auto_map(source.skeleton, bandai).values()
    quality = measure(source, moved, None, target_floor=0.0, unit=0.01)
    assert -0.01 <= quality.sole_min and quality.sole_max <= 0.02
    assert quality.slide_max <= 0.05
