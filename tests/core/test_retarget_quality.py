"""Retargeting an animator accepts (issue 27), in the core: the corpus takes onto a Mixamo-style rig
in an A pose with shorter legs, other rolls and proportions, plain and with fix_feet, judged by
tests/retarget_quality.py; and that harness itself on synthetic takes whose numbers are known."""

import math

import numpy as np
import pytest

import rig_samples
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.core import rotations
from mocap_io.core.bone_map import find_roles
from retarget_quality import HEADER, OPEN, TAKES, UP, checks, failures, measure, read_take, row
from rig_samples import point

# ---- the acceptance points ----------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("fix_feet", [False, True], ids=["plain", "fix_feet"])
@pytest.mark.parametrize("take", list(TAKES))
def test_takes_onto_a_mixamo_style_a_pose_rig_pass_the_animator_checks(take, fix_feet):
    source = read_take(CORPUS, take)
    target = rig_samples.mixamo_a_pose()
    moved = core.retarget(source, target, fix_feet=fix_feet)
    quality = measure(source, moved, core.auto_map(source.skeleton, target), UP, unit=0.01)
    assert quality.stance_frames and quality.contact_frames, "the harness found no stance in the source"
    assert not quality.map_errors
    failed = failures(quality, fix_feet)
    expected = OPEN.get((take, "mixamo-a"), set()) if fix_feet else set()
    assert set(failed) == expected, (
        f"\n{HEADER}\n{row(take, 'mixamo-a', fix_feet, quality)}\nworst at frames {quality.frames}"
    )


# ---- the harness on synthetic takes -------------------------------------------------------------

SKELETON = rig_samples.build(rig_samples.MIXAMO)  # T pose, identity rest rotations, cm, feet flat at y 1
FPS = 30.0


def standing(frames=30, steps=False):
    """The rest pose standing on the floor for `frames` frames (hips at their rest height); with
    `steps`, it stands 10 frames, glides 20 cm forward over the next 10, and so on."""
    translations = np.repeat(SKELETON.offsets[None], frames, axis=0)
    if steps:
        phase = np.arange(frames) % 20
        moved = 20.0 * (np.arange(frames) // 20) + np.clip(phase - 9, 0, 10) * 2.0
        translations[:, 0, 2] += moved
    return core.Motion(
        SKELETON, FPS, np.zeros((frames, SKELETON.joint_count, 3)), ["XYZ"] * SKELETON.joint_count, translations
    )


def changed(motion, *, lift=0.0, speed=0.0, turns=None):
    """`motion` with the root `lift` higher and moving `speed` cm/s along +X, and joints turned by
    {joint name: (axis, degrees, frames)} (Euler XYZ, local = world axes at rest)."""
    euler, translations = motion.euler.copy(), motion.translations.copy()
    translations[:, 0, 1] += lift
    translations[:, 0, 0] += speed * np.arange(motion.frame_count) / motion.fps
    for name, (axis, degrees, frames) in (turns or {}).items():
        euler[frames, SKELETON.index(name), "XYZ".index(axis)] += math.radians(degrees)
    return core.Motion(motion.skeleton, motion.fps, euler, motion.euler_orders, translations)


def test_a_take_measured_against_itself_has_no_errors():
    source = standing(60, steps=True)
    quality = measure(source, source, {n: n for n in SKELETON.names}, UP, unit=0.01)
    assert quality.stance_frames > 60 and quality.contact_frames > 120  # both feet, still 11 frames in 20
    assert quality.sole_min == pytest.approx(0.0, abs=1e-12) and quality.sole_max == pytest.approx(0.0, abs=1e-12)
    assert quality.slide_max == pytest.approx(0.0, abs=1e-12)
    assert quality.turn_excess == pytest.approx(-1.0) and quality.knee_excess == pytest.approx(-1.0)
    for name in ("trunk_max", "head_max", "hand_max", "foot_max", "limb_max"):
        assert getattr(quality, name) == pytest.approx(0.0, abs=1e-6), name
    assert not quality.map_errors
    assert set(checks(quality, fix_feet=True).values()) == {True, None}  # limbs: judged without foot fixing
    assert all(checks(quality, fix_feet=False)[name] for name in ("turn", "knee", "trunk", "limbs"))
    assert "FAIL" not in row("self", "self", True, quality)


def test_a_lifted_sliding_target_shows_its_sole_and_slide():
    source = standing()
    quality = measure(source, changed(source, lift=3.0, speed=12.0), None, UP, unit=0.01)
    legs = [np.linalg.norm(point(f"hip{s}") - point(f"ankle{s}")) + 8.0 for s in ("", ".R")]  # ankles 8 above
    assert quality.sole_min == pytest.approx(0.03) and quality.sole_max == pytest.approx(0.03)
    assert quality.slide_mean == pytest.approx(12.0 / np.mean(legs)) == quality.slide_max
    assert quality.trunk_max == pytest.approx(0.0, abs=1e-6) and quality.limb_max == pytest.approx(0.0, abs=1e-6)
    assert failures(quality, fix_feet=True).keys() == {"sole", "slide"}
    assert checks(quality, fix_feet=False)["slide"] is None  # reported, not judged without foot fixing


def test_a_tilted_body_and_a_bent_hand_show_in_trunk_head_feet_limbs_and_hands():
    source = standing()
    target = changed(
        source, turns={"mixamorig:Hips": ("X", 10.0, slice(None)), "mixamorig:LeftHand": ("Z", 30.0, slice(None))}
    )
    quality = measure(source, target, None, UP, unit=0.01)
    for name in ("trunk_max", "trunk_mean", "head_max", "foot_max", "limb_max"):
        assert getattr(quality, name) == pytest.approx(10.0), name
    assert quality.worst_limb in ("thigh.L", "thigh.R", "shin.L", "shin.R")
    assert quality.hand_max == pytest.approx(30.0) and quality.hand_mean == pytest.approx(15.0)  # one hand of two
    assert {"trunk", "head", "feet", "limbs", "hands"} <= failures(quality, fix_feet=False).keys()


def test_a_knee_that_pops_for_one_frame_shows_in_turn_and_knee():
    source = standing()
    target = changed(source, turns={"mixamorig:LeftUpLeg": ("X", 20.0, [12])})
    quality = measure(source, target, None, UP, unit=0.01)
    thigh = np.linalg.norm(point("knee") - point("hip"))
    assert quality.turn_excess == pytest.approx(19.0)  # the source's thigh does not turn
    assert quality.knee_excess == pytest.approx(2 * thigh * math.sin(math.radians(10.0)) - 1.0)
    assert quality.frames["turn_excess"] in (12, 13) and quality.frames["knee_excess"] in (12, 13)
    assert {"turn", "knee"} <= failures(quality, fix_feet=False).keys()


def test_a_sole_lies_below_a_toe_joint_as_far_as_that_joint_stands_above_the_floor_at_rest():
    """Rigify's toe joint sits above its floor at rest (its heel bone lies on it): a heel raised about
    that joint leaves the sole on the floor, and the toe joint put on the floor has sunk the toes."""
    raised = "ball+hips*0.0210526315789"  # 2 cm above the ball (hips: 95 cm up)
    moved = {"ball": raised, "toe_tip": raised + "+ball*-1+toe_tip"}

    def place(where):
        base, mirror = (where[:-2], ".R") if where.endswith(".R") else (where, "")
        return moved.get(base, base) + mirror

    rows = [(name, parent, place(where)) for name, parent, where in rig_samples.MIXAMO]
    heel = "ball*3+toe_tip*-2"  # (9, 1, -3): on the floor, behind the ankle
    rows += [(f"{side}Heel", f"mixamorig:{side}Foot", heel + m) for side, m in (("Left", ""), ("Right", ".R"))]
    rig = rig_samples.build(rows)
    rest = np.repeat(rig.offsets[None], 30, axis=0)
    motion = core.Motion(rig, FPS, np.zeros((30, rig.joint_count, 3)), ["XYZ"] * rig.joint_count, rest)
    source = standing()
    feet, toes = ([rig.index(f"mixamorig:{side}{j}") for side in ("Left", "Right")] for j in ("Foot", "ToeBase"))
    for drop, expected in ((0.0, 0.0), (2.0, -0.02)):  # the ball joint kept at its rest height, then on the floor
        euler, translations = motion.euler.copy(), motion.translations.copy()
        euler[:, feet, 0], euler[:, toes, 0] = math.radians(10.0), -math.radians(10.0)  # heels up, toes flat
        ball = np.array([0.0, -6.0, 13.0])  # ankle to ball
        translations[:, 0, 1] += ball[1] - (rotations.axis_rotation("X", math.radians(10.0)) @ ball)[1] - drop
        heeled = core.Motion(rig, FPS, euler, motion.euler_orders, translations)
        quality = measure(source, heeled, None, UP, unit=0.01)
        assert quality.sole_min == pytest.approx(expected) and quality.sole_max == pytest.approx(expected)


def test_the_bone_map_is_checked_against_the_roles():
    source = standing()
    bone_map = {n: n for n in SKELETON.names} | {"mixamorig:LeftUpLeg": "mixamorig:RightUpLeg"}
    quality = measure(source, source, bone_map, UP)
    assert quality.map_errors == ("thigh.L: mixamorig:LeftUpLeg -> mixamorig:RightUpLeg (want mixamorig:LeftUpLeg)",)


def test_rest_relative_numbers_are_undefined_for_a_rest_pose_lying_down():
    """Bandai Namco's skeleton keeps every bone along X at rest: no floor, no turn from rest."""
    turned = core.Skeleton(
        SKELETON.names, SKELETON.parents, SKELETON.offsets @ rotations.axis_rotation("Z", -np.pi / 2).T
    )
    source = standing()
    lying = core.Motion(turned, FPS, source.euler, source.euler_orders, np.repeat(turned.offsets[None], 30, axis=0))
    quality = measure(source, lying, None, UP)
    assert math.isnan(quality.sole_min) and math.isnan(quality.trunk_max) and math.isnan(quality.head_max)
    assert checks(quality, fix_feet=False)["sole"] is None and "n/a" in row("a", "b", False, quality)
    quality = measure(source, lying, None, UP, target_floor=-100.0)
    assert not math.isnan(quality.sole_min)


def test_the_mixamo_style_rig_has_shorter_legs_an_a_pose_and_its_feet_on_the_floor():
    rig = rig_samples.mixamo_a_pose()
    _, rest = rig.rest_world()
    _, body = rig_samples.build(rig_samples.MIXAMO).rest_world()

    def at(points, name):
        return points[rig.index(f"mixamorig:{name}")]

    for positions in (rest, body):
        assert at(positions, "LeftToeBase")[1] == pytest.approx(1.0) and at(positions, "LeftToe_End")[
            1
        ] == pytest.approx(1.0)
    legs = [np.linalg.norm(at(p, "LeftFoot") - at(p, "LeftUpLeg")) for p in (rest, body)]
    assert legs[0] == pytest.approx(0.85 * legs[1])
    arm = at(rest, "LeftHand") - at(rest, "LeftArm")
    assert math.degrees(math.atan2(-arm[1], arm[0])) == pytest.approx(45.0)
    assert not np.allclose(rig.rest_rotations, np.eye(3))
    assert find_roles(rig) == find_roles(rig_samples.build(rig_samples.MIXAMO))
