"""What an animator checks on a retargeted take (issue 27), measured from world positions and world
rotations alone: numpy only, nothing of core.retarget or core.feet (whose output this measures).

`measure(source, target, bone_map, up)` compares a source Motion with its retargeted Motion (same
frames, shared world axes and ground) and returns a `Quality`; `checks` judges it against the
acceptance points, `row` prints it as one line under `HEADER`.

Body parts come from `core.bone_map.find_roles` on each skeleton (or roles given by hand, for rigs
whose names it misreads): the target's parts are found on the target, not through the bone map, so
a wrong map shows as wrong motion. Definitions (L: a rig's leg length; "horizontal": across `up`):

floor         a rig's rest pose lowest foot point along `up`; foot points are the foot (ankle)
              joint, every joint below it (toes, heel, tips) and their End Sites. Skeletons read
              from BVH or ASF hang their rest pose from a root at the origin: their ground is
              that of their takes, given as `target_floor` (0 for the corpus files).
leg length    L = |hip socket (thigh joint) - ankle (foot joint)| + ankle height above the floor,
              at rest, the mean of both sides (a rest pose that is not standing has no ankle
              height: the distance alone).
stance        per source foot, frames where the foot's lowest point lies within 0.03 L of its
              lowest height over the take and that point moves slower than 0.15 L/s (in 3D: a
              point still coming down has not landed), or 0.15 times the hips' horizontal speed
              where that is more (a sprint's planted
              toes roll at 0.3-0.5 L/s), in runs of at least 3 frames; a point's speed at a frame
              is the slower of its steps from the frame before and to the frame after (a foot that
              lands at f is still from f on). Ankle contacts and ball contacts are found the same
              way from the foot joint alone and from the toe joint alone.
sole          the target foot's sole above the target floor during the source foot's stance,
              metres: min and max over both feet (accept -0.01 <= min, max <= +0.02). The sole is
              the lowest, over the foot points, of each point's height less its depth: its rest
              height above the floor where that floor is the rest pose's (a rig standing on its
              feet: Rigify's toe joint sits 1.7 cm above its floor, in the toes' flesh, and a
              toe lying flat at push-off stands on the floor), else 0.
              For comparison, source_sole: the most the source's own stance soles lie above its
              lowest foot point over the take, scaled by L_target / L_source (what copying the
              source's heights would give).
slide         horizontal speed of the target ankle during the source's ankle contacts and of the
              target toe joint during its ball contacts (each step between two frames of a
              contact), target L per second: mean and max of all those steps (accept with
              fix_feet: mean <= 0.01, max <= 0.05). For comparison, source_slide: the max of the
              source's own, in source L per second.
turn          per frame and for each thigh (thigh -> knee) and shin (knee -> ankle), the angle its
              world direction turns since the previous frame, target a vs source b: the worst
              a - (1.5 b + 1 deg), degrees (accept <= 0).
knee          per frame the distance each knee (shin joint) moves since the previous frame,
              target a vs source b scaled by L_target / L_source: the worst a - (1.5 b + 1 cm), cm
              (accept <= 0).
trunk         d = direction from the mid-thighs (mean of the thigh joints) to the mid-upper-arms;
              the angle between the target's d_t(f) and S(f) d_t(rest), S(f) the smallest rotation
              taking the source's d_s(rest) to d_s(f): max and mean, degrees (accept max <= 5).
head          the angle of (G_t(f) R_t^T)(G_s(f) R_s^T)^T, G the head's world rotation, R its rest
              world rotation (rest_world): both rigs' turns from rest compared (accept max <= 5).
hands         the angle of each hand's turn from rest relative to its forearm, (F^T H)(F_r^T H_r)^T,
              target against source: max and mean of the difference of the two angles (accept
              max <= 5).
feet          as head, for each foot during the source foot's stance (accept max <= 5).
limbs         the angle between the target's and the source's world direction of each upper arm
              (-> forearm joint), forearm (-> hand), thigh (-> shin) and shin (-> foot): the worst
              (accept <= 2 deg, judged for the plain retarget: foot fixing bends legs on purpose).

Rest-relative numbers (trunk, head, feet) assume both rest poses stand upright in the shared axes,
as T or A poses do; where a rig's rest pose is no standing pose (hips to head more than 30 degrees
off `up`: Bandai Namco's skeleton keeps every bone along X) they are NaN and shown n/a, and so is
the sole of such a target without a given floor. Quality.frames holds the frame of each worst
value. The corpus takes (TAKES) start after the cgspeed walk's T pose frame.
"""

import dataclasses
import math

import numpy as np

from mocap_io import core
from mocap_io.core.bone_map import find_roles

CMU_UNIT = 0.0254 / 0.45  # metres per unit of CMU's ASF (length 0.45: 1/0.45 inch) and of cgspeed's BVH
TAKES = {  # the corpus sources: name: (files under the corpus, metres per unit, first frame)
    "walk": (("bvh/cmu-cgspeed/cmu_12_01_walk.bvh",), CMU_UNIT, 1),  # frame 0 is cgspeed's T pose
    "run": (("bvh/bandai-namco/dataset-1_dash_normal_001.bvh",), 0.01, 0),
    "asf": (("asfamc/cmu/02_03.amc", "asfamc/cmu/02.asf"), CMU_UNIT, 0),
}
UP = (0.0, 1.0, 0.0)  # the takes' up axis, and the rigs' as the harness reads them
# What the default retarget (fix_feet) still fails, (take, rig): acceptance points. A test asserts
# exactly these fail: any other failure, or one of these passing, shows there.
OPEN = {}
STANCE_HEIGHT = 0.03  # leg lengths above the foot's lowest height over the take
STANCE_SPEED = 0.15  # leg lengths per second
SHORTEST_RUN = 3  # frames
SIDES = "LR"
LIMBS = (("upper_arm", "forearm"), ("forearm", "hand"), ("thigh", "shin"), ("shin", "foot"))


@dataclasses.dataclass
class Quality:
    """The numbers of one retargeted take (see the module's docstring); NaN where undefined."""

    sole_min: float  # metres above the target's floor, during source stance
    sole_max: float
    source_sole: float  # the most the source's stance soles lie above its lowest foot point, scaled to the target
    slide_mean: float  # target leg lengths per second, during source contacts
    slide_max: float
    source_slide: float  # the source's own slide (its legs per second), max: what copying it would give
    turn_excess: float  # degrees over 1.5 x the source's turn + 1 degree
    knee_excess: float  # cm over 1.5 x the source's (scaled) step + 1 cm
    trunk_max: float  # degrees
    trunk_mean: float
    head_max: float
    head_mean: float
    hand_max: float
    hand_mean: float
    foot_max: float
    foot_mean: float
    limb_max: float
    worst_limb: str  # e.g. "thigh.L"
    stance_frames: int  # source stance frames, both feet
    contact_frames: int  # source ankle and ball contact frames, both feet
    map_errors: tuple = ()  # "role: source -> mapped (want target)" where the bone map disagrees with the roles
    frames: dict = dataclasses.field(default_factory=dict)  # {field: the frame of its worst value}


@dataclasses.dataclass
class _Rig:
    """What the harness reads of one motion."""

    motion: object
    roles: dict
    rotations: np.ndarray  # (F, J, 3, 3) world rotations
    positions: np.ndarray  # (F, J, 3)
    rest_rotations: np.ndarray  # (J, 3, 3)
    rest_positions: np.ndarray  # (J, 3)
    feet: dict  # side: (F, n, 3) foot points over the take
    rest_feet: dict  # side: (n, 3)
    depths: dict  # side: (n,) how far below each foot point its sole lies (see "sole")
    standing: bool  # the rest pose stands upright along `up`
    floor: float
    leg: float

    def at(self, role):
        return self.positions[:, self.roles[role]]

    def rest_at(self, role):
        return self.rest_positions[self.roles[role]]


def read_take(corpus, name):
    """The Motion of TAKES[name] from the corpus folder `corpus` (a pathlib.Path), from its first frame."""
    names, _, first = TAKES[name]
    files = [corpus / f for f in names]
    motion = core.read(files[0], skeleton=files[1]) if len(files) > 1 else core.read(files[0])
    return motion.take(slice(first, None)) if first else motion


def _rig(motion, roles, up, floor=None):
    skeleton = motion.skeleton
    roles = find_roles(skeleton) if roles is None else roles
    missing = [
        r for r in ("hips", "head", *(f"{p}.{s}" for p in ("thigh", "shin", "foot") for s in SIDES)) if r not in roles
    ]
    if missing:
        raise ValueError(f"{skeleton!r}: no {', '.join(missing)} found; give its roles")
    rotations, positions = motion.world_transforms(scaled=False)
    ends = motion.end_site_positions()
    rest_rotations, rest_positions = skeleton.rest_world()
    rest_ends = np.einsum("eij,ej->ei", rest_rotations[skeleton.end_site_parents], skeleton.end_site_offsets)
    rest_ends += rest_positions[skeleton.end_site_parents]
    children = [[] for _ in skeleton.parents]
    for j, p in enumerate(skeleton.parents):
        if p >= 0:
            children[p].append(j)
    feet, rest_feet = {}, {}
    for side in SIDES:
        joints, stack = [], [roles[f"foot.{side}"]]
        while stack:
            joints.append(stack.pop())
            stack.extend(children[joints[-1]])
        tips = np.flatnonzero(np.isin(skeleton.end_site_parents, joints))
        feet[side] = np.concatenate([positions[:, joints], ends[:, tips]], axis=1)
        rest_feet[side] = np.concatenate([rest_positions[joints], rest_ends[tips]])
    trunk = rest_positions[roles["head"]] - rest_positions[roles["hips"]]
    standing = bool(trunk @ up > math.cos(math.radians(30)) * np.linalg.norm(trunk))
    rest_floor = min(float((rest_feet[s] @ up).min()) for s in SIDES)
    depths = {side: np.zeros(len(rest_feet[side])) for side in SIDES}
    if floor is None:
        floor = rest_floor if standing else math.nan
        depths = {side: rest_feet[side] @ up - rest_floor for side in SIDES}
    legs = []
    for side in SIDES:
        socket, ankle = rest_positions[roles[f"thigh.{side}"]], rest_positions[roles[f"foot.{side}"]]
        legs.append(np.linalg.norm(ankle - socket) + (max(ankle @ up - rest_floor, 0.0) if standing else 0.0))
    return _Rig(
        motion=motion,
        roles=roles,
        rotations=rotations,
        positions=positions,
        rest_rotations=rest_rotations,
        rest_positions=rest_positions,
        feet=feet,
        rest_feet=rest_feet,
        depths=depths,
        standing=standing,
        floor=floor,
        leg=float(np.mean(legs)),
    )


def measure(
    source,
    target,
    bone_map=None,
    up=(0.0, 1.0, 0.0),
    *,
    unit=1.0,
    target_floor=None,
    source_roles=None,
    target_roles=None,
):
    """The Quality of `target` (a Motion) retargeted from `source` (a Motion): same frame count and
    rate, world axes and ground shared; `up` the shared up direction, `unit` metres per target
    unit. target_floor: the target's ground height along `up` in its units (default: its rest
    pose's lowest foot point). source_roles, target_roles: {role: joint index} to use instead of
    find_roles. bone_map ({source name: target name}, optional) only reports where it disagrees
    with the roles (Quality.map_errors)."""
    if source.frame_count != target.frame_count:
        raise ValueError(f"{source.frame_count} source frames against {target.frame_count} target frames")
    up = np.asarray(up, dtype=float) / np.linalg.norm(up)
    s, t = _rig(source, source_roles, up), _rig(target, target_roles, up, target_floor)
    fps, count, nan = source.fps, source.frame_count, np.full(source.frame_count, math.nan)
    stance = {side: _contacts(s.feet[side], up, fps, s.leg, s.at("hips")) for side in SIDES}
    sole = [
        np.where(stance[side], (t.feet[side] @ up - t.depths[side]).min(axis=1) - t.floor, math.nan) * unit
        for side in SIDES
    ]
    ground = min((s.feet[side] @ up).min() for side in SIDES)
    source_sole = [np.where(stance[side], (s.feet[side] @ up).min(axis=1) - ground, math.nan) for side in SIDES]
    slide, source_slide, contacts = [], [], 0
    for side in SIDES:
        for role in ("foot", "toe"):
            name = f"{role}.{side}"
            if name in s.roles and name in t.roles:
                contact = _contacts(s.at(name)[:, None], up, fps, s.leg, s.at("hips"))
                contacts += int(contact.sum())
                slide.append(_contact_speed(t.at(name), contact, up, fps) / t.leg)
                source_slide.append(_contact_speed(s.at(name), contact, up, fps) / s.leg)
    ratio = t.leg / s.leg
    source_sole = np.array(source_sole) * ratio * unit
    turn, knee = [], []  # at frame f: from f - 1 to f
    for side in SIDES:
        for upper, lower in (("thigh", "shin"), ("shin", "foot")):
            a, b = (_step_angles(r.at(f"{lower}.{side}") - r.at(f"{upper}.{side}")) for r in (t, s))
            turn.append(np.concatenate([[math.nan], a - (1.5 * b + 1.0)]))
        a, b = (np.linalg.norm(np.diff(r.at(f"shin.{side}"), axis=0), axis=1) for r in (t, s))
        knee.append(np.concatenate([[math.nan], (a - (1.5 * ratio * b + 0.01 / unit)) * unit * 100.0]))
    trunk, head, feet = nan, nan, [nan]
    if s.standing and t.standing:
        rest_s, rest_t = _trunk(s, rest=True), _trunk(t, rest=True)
        trunk = _angle_between(_trunk(t), np.einsum("fij,j->fi", _smallest_rotation(rest_s, _trunk(s)), rest_t))
        head = _turn_difference(s, t, "head")
        feet = [np.where(stance[side], _turn_difference(s, t, f"foot.{side}"), math.nan) for side in SIDES]
    hands = [
        np.abs(_hand_turn(t, side) - _hand_turn(s, side))
        for side in SIDES
        if all(f"{r}.{side}" in rig.roles for r in ("forearm", "hand") for rig in (s, t))
    ]
    limbs = {}
    for upper, lower in LIMBS:
        for side in SIDES:
            names = (f"{upper}.{side}", f"{lower}.{side}")
            if all(n in s.roles and n in t.roles for n in names):
                limbs[names[0]] = _angle_between(*(r.at(names[1]) - r.at(names[0]) for r in (t, s)))
    worst = max(limbs, key=lambda name: np.max(limbs[name])) if limbs else ""
    values = {
        "sole_min": (sole, "min"),
        "sole_max": (sole, "max"),
        "source_sole": (source_sole, "max"),
        "slide_mean": (slide, "mean"),
        "slide_max": (slide, "max"),
        "source_slide": (source_slide, "max"),
        "turn_excess": (turn, "max"),
        "knee_excess": (knee, "max"),
        "trunk_max": ([trunk], "max"),
        "trunk_mean": ([trunk], "mean"),
        "head_max": ([head], "max"),
        "head_mean": ([head], "mean"),
        "hand_max": (hands, "max"),
        "hand_mean": (hands, "mean"),
        "foot_max": (feet, "max"),
        "foot_mean": (feet, "mean"),
        "limb_max": (list(limbs.values()), "max"),
    }
    numbers, frames = {}, {}
    for name, (arrays, kind) in values.items():
        table = np.array(arrays).reshape(-1, count) if len(arrays) else nan[None]
        if np.all(np.isnan(table)):
            numbers[name] = math.nan
            continue
        numbers[name] = float(getattr(np, f"nan{kind}")(table))
        if kind != "mean":
            frames[name] = int(np.unravel_index(getattr(np, f"nanarg{kind}")(table), table.shape)[1])
    return Quality(
        **numbers,
        worst_limb=worst,
        stance_frames=int(sum(c.sum() for c in stance.values())),
        contact_frames=contacts,
        map_errors=_map_errors(s, t, bone_map),
        frames=frames,
    )


def _contacts(points, up, fps, leg, hips):
    """(F,) bool: frames where the lowest of `points` (F, n, 3) lies within STANCE_HEIGHT legs of
    its lowest height over the take and moves slower than STANCE_SPEED legs per second (in 3D: a
    point still coming down has not landed) or STANCE_SPEED times the horizontal speed of the
    `hips` (F, 3), whichever is more, in runs of
    SHORTEST_RUN frames or more. A point's speed at a frame is the slower of its steps from the
    frame before and to the frame after (a foot that lands at f is still from f on)."""
    frames = np.arange(len(points))
    heights = points @ up
    lowest = np.argmin(heights, axis=1)
    level = heights[frames, lowest]
    speed = _step_speed(points, fps)[frames, lowest]
    limit = STANCE_SPEED * np.maximum(leg, _horizontal_speed(hips, up, fps))
    flags = (level - level.min() < STANCE_HEIGHT * leg) & (speed < limit)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.astype(int), [0]])))
    for start, end in zip(edges[::2], edges[1::2]):
        if end - start < SHORTEST_RUN:
            flags[start:end] = False
    return flags


def _contact_speed(points, contact, up, fps):
    """(F,) speed across `up` of points (F, 3) per second over each step from frame f - 1 to f
    within a contact (both frames in `contact`), at f; NaN elsewhere."""
    step = np.diff(points, axis=0)
    speed = np.linalg.norm(step - (step @ up)[:, None] * up, axis=1) * fps
    within = contact[1:] & contact[:-1]
    return np.concatenate([[math.nan], np.where(within, speed, math.nan)])


def _step_speed(points, fps):
    """Speed of points (F, ..., 3) per second: at each frame the slower of the steps from the frame
    before and to the frame after."""
    step = np.linalg.norm(np.diff(points, axis=0), axis=-1) * fps
    if not len(step):
        return np.zeros(points.shape[:-1])
    return np.minimum(np.concatenate([step[:1], step]), np.concatenate([step, step[-1:]]))


def _horizontal_speed(points, up, fps):
    """Speed across `up` of points (F, ..., 3), per second (central differences)."""
    velocity = np.gradient(points, axis=0) * fps if len(points) > 1 else np.zeros_like(points)
    velocity = velocity - (velocity @ up)[..., None] * up
    return np.linalg.norm(velocity, axis=-1)


def _angle_between(a, b):
    """Degrees between directions a and b (..., 3), exact at small angles."""
    return np.degrees(np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1)))


def _step_angles(directions):
    """(F - 1,) degrees each direction (F, 3) turns from one frame to the next."""
    return _angle_between(directions[1:], directions[:-1])


def _rotation_angle(matrices):
    """Degrees of rotations (..., 3, 3), exact at small and large angles."""
    m = matrices
    skew = np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]], axis=-1)
    return np.degrees(np.arctan2(np.linalg.norm(skew, axis=-1), np.trace(matrices, axis1=-2, axis2=-1) - 1.0))


def _smallest_rotation(a, b):
    """(F, 3, 3) the smallest rotations taking direction a (3,) onto each of b (F, 3)."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    axis = np.cross(a, b)
    cosine = b @ a
    out = np.empty((len(b), 3, 3))
    for f, (v, c) in enumerate(zip(axis, cosine)):
        if c < -1.0 + 1e-12:  # opposite: half a turn about any perpendicular
            p = np.cross(a, np.eye(3)[np.argmin(np.abs(a))])
            p /= np.linalg.norm(p)
            out[f] = 2.0 * np.outer(p, p) - np.eye(3)
            continue
        k = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
        out[f] = np.eye(3) + k + k @ k / (1.0 + c)
    return out


def _trunk(rig, rest=False):
    """Mid-thighs to mid-upper-arms: (F, 3), or (3,) at rest."""
    at = rig.rest_at if rest else rig.at
    upper = [f"upper_arm.{side}" for side in SIDES if f"upper_arm.{side}" in rig.roles] or ["head"]
    return np.mean([at(r) for r in upper], axis=0) - np.mean([at(f"thigh.{side}") for side in SIDES], axis=0)


def _turn_from_rest(rig, role):
    k = rig.roles[role]
    return rig.rotations[:, k] @ rig.rest_rotations[k].T


def _turn_difference(s, t, role):
    """(F,) degrees between the target's and the source's world turns of `role` from rest."""
    return _rotation_angle(_turn_from_rest(t, role) @ np.swapaxes(_turn_from_rest(s, role), -1, -2))


def _hand_turn(rig, side):
    """(F,) degrees the hand turns from rest relative to its forearm."""
    forearm, hand = rig.roles[f"forearm.{side}"], rig.roles[f"hand.{side}"]
    relative = np.swapaxes(rig.rotations[:, forearm], -1, -2) @ rig.rotations[:, hand]
    rest = rig.rest_rotations[forearm].T @ rig.rest_rotations[hand]
    return _rotation_angle(relative @ rest.T)


def _map_errors(s, t, bone_map):
    """Roles the bone map sends elsewhere than the target's joint of that role."""
    if bone_map is None:
        return ()
    source, target = s.motion.skeleton, t.motion.skeleton
    out = []
    for role, joint in s.roles.items():
        if isinstance(joint, list) or role not in t.roles or role.split(".")[0] not in _CHECKED_ROLES:
            continue
        mapped, wanted = bone_map.get(source.names[joint]), target.names[t.roles[role]]
        if mapped != wanted:
            out.append(f"{role}: {source.names[joint]} -> {mapped} (want {wanted})")
    return tuple(out)


_CHECKED_ROLES = {"hips", "head", "clavicle", "upper_arm", "forearm", "hand", "thigh", "shin", "foot", "toe"}

# name, acceptance (None: reported, not judged), with foot fixing only / plain only
ACCEPTANCE = {
    "sole": lambda q: -0.01 <= q.sole_min and q.sole_max <= 0.02,
    "slide": lambda q: q.slide_mean <= 0.01 and q.slide_max <= 0.05,
    "turn": lambda q: q.turn_excess <= 0.0,
    "knee": lambda q: q.knee_excess <= 0.0,
    "trunk": lambda q: q.trunk_max <= 5.0,
    "head": lambda q: q.head_max <= 5.0,
    "hands": lambda q: q.hand_max <= 5.0,
    "feet": lambda q: q.foot_max <= 5.0,
    "limbs": lambda q: q.limb_max <= 2.0,
}
_VALUES = {
    "sole": ("sole_min", "sole_max"),
    "slide": ("slide_mean", "slide_max"),
    "turn": ("turn_excess",),
    "knee": ("knee_excess",),
    "trunk": ("trunk_max", "trunk_mean"),
    "head": ("head_max", "head_mean"),
    "hands": ("hand_max", "hand_mean"),
    "feet": ("foot_max", "foot_mean"),
    "limbs": ("limb_max",),
}


def checks(quality, fix_feet):
    """{acceptance point: True (pass), False (fail) or None (n/a: undefined, or not judged with
    these options: soles and slide without fix_feet, which copies the source's own heights and
    steps, uneven as a capture's floor is; limbs with it, which bends legs on purpose)}."""
    out = {}
    for name, accept in ACCEPTANCE.items():
        values = [getattr(quality, v) for v in _VALUES[name]]
        judged = not ((name in ("slide", "sole") and not fix_feet) or (name == "limbs" and fix_feet))
        out[name] = None if not judged or any(math.isnan(v) for v in values) else bool(accept(quality))
    return out


def failures(quality, fix_feet):
    """The acceptance points `quality` fails, each with its numbers: {name: "numbers"}."""
    return {name: _cell(quality, name) for name, ok in checks(quality, fix_feet).items() if ok is False}


_FORMATS = {
    "sole": "{:+.3f}/{:+.3f}",
    "slide": "{:.3f}/{:.3f}",
    "turn": "{:+.1f}",
    "knee": "{:+.1f}",
    "trunk": "{:.1f}/{:.1f}",
    "head": "{:.1f}/{:.1f}",
    "hands": "{:.1f}/{:.1f}",
    "feet": "{:.1f}/{:.1f}",
    "limbs": "{:.1f}",
}
_UNITS = {
    "sole": "min/max m",
    "slide": "mean/max L/s",
    "turn": "excess deg",
    "knee": "excess cm",
    "trunk": "max/mean deg",
    "head": "max/mean deg",
    "hands": "max/mean deg",
    "feet": "max/mean deg",
    "limbs": "max deg",
}
_WIDTHS = {"sole": 20, "slide": 18, "turn": 12, "knee": 12, "trunk": 14, "head": 14, "hands": 14, "feet": 14}
_WIDTHS["limbs"] = 11
_LABEL = "{:<8} {:<10} {:<5}"
HEADER = "\n".join(
    [
        _LABEL.format("source", "target", "feet")
        + " ".join(f" {name:<{_WIDTHS[name]}}" for name in ACCEPTANCE)
        + "  source        stance/contacts  worst limb   map",
        _LABEL.format("", "", "")
        + " ".join(f" {_UNITS[name]:<{_WIDTHS[name]}}" for name in ACCEPTANCE)
        + "  sole/slide    frames                        errors",
    ]
)


def _cell(quality, name):
    values = [getattr(quality, v) for v in _VALUES[name]]
    return "n/a" if any(math.isnan(v) for v in values) else _FORMATS[name].format(*values)


def row(source_name, target_name, fix_feet, quality):
    """One line of the table under HEADER: each acceptance point's numbers and PASS, FAIL or -."""
    verdicts = checks(quality, fix_feet)
    cells = []
    for name in ACCEPTANCE:
        mark = {True: "PASS", False: "FAIL", None: "-"}[verdicts[name]]
        cells.append(f" {_cell(quality, name) + ' ' + mark:<{_WIDTHS[name]}}")
    stance = f"{quality.stance_frames}/{quality.contact_frames}"
    source = "n/a" if math.isnan(quality.source_sole) else f"{quality.source_sole:+.3f}/{quality.source_slide:.3f}"
    return (
        _LABEL.format(source_name, target_name, "fix" if fix_feet else "plain")
        + " ".join(cells)
        + f"  {source:<12}  {stance:<15}  {quality.worst_limb:<11}  {len(quality.map_errors)}"
    )
