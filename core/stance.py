"""Where a retargeted body stands (retarget.py): its hips placed from the hip sockets so that a
standing source gives a standing target on its own floor, and its feet planted while the source's
stand, with legs bent to reach them (feet.py holds the numeric steps)."""

import dataclasses

import numpy as np

from . import feet, rotations
from .body import Body
from .skeleton import child_lists, descendants

HOLD = np.radians(4.5)  # at most this turn keeps a flat foot's ankle and ball both in place
SOFT = 0.02  # leg lengths short of full reach where a knee straightening towards a goal starts to slow
MOST_TURN = np.radians(0.75)  # per frame: what easing or steadying a correction may add to a leg's turn


@dataclasses.dataclass
class Take:
    """A source take being retargeted: Bodies of both skeletons, the pairs {target joint: source
    joint}, the source's world rotations (F, J, 3, 3) and positions (F, J, 3), the take's unit up
    direction and frame rate."""

    source: Body
    target: Body
    pairs: dict
    world: np.ndarray
    position: np.ndarray
    up: np.ndarray
    fps: float

    def lows(self, side=None):
        """(F,) height of the source's lowest foot point of one side (all feet: None) each frame."""
        return (self.source.points(self.world, self.position, side) @ self.up).min(axis=1)


@dataclasses.dataclass
class Floors:
    """floor: the source's floor in its take (the 2nd percentile of each frame's lowest foot
    point: a take's ground is rarely its rest pose's); ground: the target's floor (its rest pose's
    lowest foot point where that stands on the ground, within 0.05 leg lengths of height 0 as a
    Blender rig does; else the source's floor times the root scale: a rest pose that floats, as a
    BVH's with its root at the origin does); scale: source heights to target heights (the legs'
    lengths from socket to floor); stride: source steps to target steps (the legs' bones)."""

    floor: float
    ground: float
    scale: float
    stride: float


def floors(take, root_scale):
    """The Floors of `take` with root motion scaled by `root_scale` ("legs" or a number)."""
    floor = float(np.percentile(take.lows(), 2.0))
    target = take.target
    if root_scale == "legs":
        scale, stride = target.legs / take.source.legs, target.bones / take.source.bones
    else:
        scale = stride = float(root_scale)
    ground = target.floor if abs(target.floor) <= 0.05 * target.legs else scale * floor
    return Floors(floor, ground, scale, stride)


def place_roots(take, movers, world, root_scale, levels):
    """{target joint: (F, 3) world positions} of the topmost mapped target joints (`movers`), the
    target's world rotations being `world` (one (F, 3, 3) array per joint).

    root_scale "legs": the hips are placed by their hip sockets. On the floor plane the sockets'
    midpoint moves as the source's does times the ratio of the legs' bones (thigh + shin, target
    over source: a rig with longer legs takes longer steps, and a planted foot stays planted
    however high the rigs' ankles sit); its height above the target's floor is the source's above
    its floor times the ratio of leg lengths from socket to floor, then corrected so that the target's lower foot
    (the one whose source foot is lower, blended smoothly between the feet) is as high above the
    target's floor as the source's is above the source's, times the ratio (the correction smoothed
    over 0.2 s, so that the hips never jump where the lower foot changes): a standing source gives
    a standing target with its soles on its floor, whatever the legs' proportions. Other movers,
    and rigs without hip sockets, move as their source joints do times the leg ratio (about the
    origin). A number: every mover moves as its source joint does times that number."""
    placed = {k: levels.scale * take.position[:, take.pairs[k]] for k in movers}
    source, target, up = take.source, take.target, take.up
    hips = target.roles.get("hips")
    if root_scale != "legs" or source.sockets is None or target.sockets is None or hips not in movers:
        return placed
    sockets = take.position[:, list(source.sockets)].mean(axis=1)
    height = levels.ground + levels.scale * (sockets @ up - levels.floor)
    goal = levels.stride * feet.across(sockets, up) + height[:, None] * up
    placed[hips] = goal - np.mean([below(target.skeleton, world, hips, k) for k in target.sockets], axis=0)
    if set(source.feet) == set(target.feet) == {"L", "R"}:
        linear = np.stack(world, axis=1)
        at = np.stack(world_positions(target.skeleton, world, placed), axis=1)
        lows = {side: take.lows(side) for side in "LR"}
        excess = {
            side: (target.points(linear, at, side) @ up).min(axis=1)
            - levels.ground
            - levels.scale * (lows[side] - levels.floor)
            for side in "LR"
        }
        left = 1.0 / (1.0 + np.exp(np.clip((lows["L"] - lows["R"]) / (0.02 * source.legs), -50.0, 50.0)))
        correction = feet.smooth(left * excess["L"] + (1.0 - left) * excess["R"], int(round(0.1 * take.fps)))
        placed[hips] = placed[hips] - correction[:, None] * up
    return placed


def plant_feet(take, movers, world, position, levels, *, height, speed, blend):
    """Hold the target's feet on its floor while the source's stand, bending its legs: `world` and
    `position` (the target's world rotations and positions, one array per joint) are changed in
    place; a pelvis lowered to reach moves the `movers` (the joints whose positions are placed) and
    what hangs from them. Contacts: see feet.contacts (`height`, `speed`); `blend`: seconds over
    which a planted foot eases in and out, at least."""
    goals = _foot_goals(take, world, position, levels, {"height": height, "speed": speed}, blend * take.fps)
    children = child_lists(take.target.skeleton.parents)
    moving = sorted({k for m in movers for k in descendants(children, m)})
    _bend_legs(take.target, world, position, goals, moving, take.up, blend * take.fps)


def world_positions(skeleton, world, fixed):
    """World positions, one (F, 3) array per joint, from world rotations (one (F, 3, 3) array per
    joint) and offsets; joints in `fixed` {k: (F, 3)} are placed there."""
    out = []
    for k, p in enumerate(skeleton.parents):
        if k in fixed:
            out.append(fixed[k])
        elif p < 0:
            out.append(np.repeat(skeleton.offsets[k][None], len(world[k]), axis=0))
        else:
            out.append(out[p] + world[p] @ skeleton.offsets[k])
    return out


def below(skeleton, world, top, joint):
    """(F, 3) world vector from joint `top` to its descendant `joint`, from world rotations."""
    out = 0.0
    while joint != top:
        parent = skeleton.parents[joint]
        out = out + world[parent] @ skeleton.offsets[joint]
        joint = parent
    return out


def _foot_goals(take, world, position, levels, contact, settle):
    """{(thigh, shin, foot): (ankle goals (F, 3), foot turns (F, 3, 3), planted (F,) bool)} of the
    target's legs whose foot is mapped (feet.plant): the source's ankle (its foot joint) and ball
    (its toe joint) stand on the ground separately (feet.contacts with `contact`'s height and
    speed); where both do, the foot is flat (feet.phases), turning past what feet.plant holds about
    the slower of the two (`roll`: the ankle's share of their speeds)."""
    source, target, up, fps = take.source, take.target, take.up, take.fps
    stance = source.sockets is not None and target.sockets is not None
    goals = {}
    linear, at = np.stack(world, axis=1), np.stack(position, axis=1)
    hips = take.position[:, source.roles["hips"]] if "hips" in source.roles else take.position.mean(axis=1)
    pace = np.linalg.norm(feet.across(np.gradient(hips, axis=0), up), axis=1) * fps
    for side in "LR":
        chain = tuple(target.roles.get(f"{role}.{side}") for role in ("thigh", "shin", "foot"))
        if None in chain or chain[2] not in take.pairs:
            continue
        foot, toe = chain[2], source.roles.get(f"toe.{side}")
        ankle = take.position[:, take.pairs[foot]]
        ball = ankle if toe is None else take.position[:, toe]
        on_ankle = feet.contacts(ankle, up, fps, source.legs, pace=pace, **contact)
        on_ball = on_ankle if toe is None else feet.contacts(ball, up, fps, source.legs, pace=pace, **contact)
        phase = feet.phases(on_ankle, on_ball)
        speeds = [np.linalg.norm(np.gradient(p, axis=0), axis=1) for p in (ankle, ball)]
        roll = feet.smooth(speeds[0] / np.maximum(speeds[0] + speeds[1], 1e-12 * source.legs), int(round(0.05 * fps)))
        offsets = target.points(linear, at, side) - position[foot][:, None]
        joints = list(target.feet[side][0])
        tip = joints.index(target.roles[f"toe.{side}"]) if f"toe.{side}" in target.roles else offsets.shape[1] - 1
        rest = target.points(target.rest_rotations[None], target.rest[None], side)[0]
        depths = target.height(rest) if target.flat_feet else np.zeros(len(rest))  # no flat pose
        free = position[foot] + (_stance_width(take, position, side, ankle) if stance else 0.0)
        lift = levels.scale * (ball @ up)
        goals[chain] = feet.plant(free, offsets, tip, phase, roll, lift, up, levels.ground, depths, settle, HOLD)
    return goals


def _stance_width(take, position, side, ankle):
    """(F, 3) the shift across the target's body that puts its ankle as far from the midline
    between its hip sockets, in hip widths, as the source's `ankle` (F, 3) is from the source's:
    a planted foot keeps the source's stance width, whatever the rigs' hips and legs (a rig with
    narrower hips for its legs would otherwise walk with its feet in one line)."""
    up = take.up
    offset = []
    for body, at in ((take.source, take.position), (take.target, np.stack(position, axis=1))):
        left, right = (at[:, k] for k in body.sockets)
        across = feet.across(left - right, up)
        width = np.linalg.norm(across, axis=1, keepdims=True)
        lateral = across / width
        point = ankle if body is take.source else at[:, body.roles[f"foot.{side}"]]
        offset.append((np.sum((point - (left + right) / 2) * lateral, axis=1, keepdims=True) / width, lateral, width))
    (source_share, _, _), (target_share, lateral, width) = offset
    return (source_share - target_share) * width * lateral


def _bend_legs(target, world, position, goals, moving, up, blend):
    """Bend the legs {(thigh, shin, foot): (goals, turns, planted)} of Body `target` in `world` so
    that planted feet reach their goals (in place, updating `world` and `position`).

    The `moving` joints first move down along `up` as far as a planted goal needs to lie no farther from
    the hip than the free leg's ankle does (a planted leg never straighter than the source's: near
    full reach a small move of the goal turns the knee a lot) nor out of the soft IK's reach (eased
    over `blend` frames). Then, on planted frames, a two-bone IK turns the thigh's subtree about the
    hip and the shin's about the knee, in the plane of the free leg (the source's knee: no inward
    fall; the body's forward swung with the thigh where the leg is straight), and each foot's
    subtree keeps its world rotations, turned by the foot's turn; steps of these turns that would
    turn the leg too fast are spread over their neighbours (_steady). Each contact eases in and out
    in rotation space (feet.ramps): the turns of its first and last frames, applied to the free leg
    and foot by a weight falling to none over `blend` frames or more, as many as keep the added turn
    of the thigh and shin under MOST_TURN a frame (a smoothstep is 1.5 times steeper than a
    straight ramp at its steepest). Nothing is solved for off the contacts: a leg that straightens
    as its foot leaves the ground (a sprint's push-off) turns as the source's does, and a goal
    switching from the pinned foot to the free one cannot jerk it."""
    skeleton, rest = target.skeleton, target.rest
    drop = np.zeros(len(position[0]))
    for (thigh, shin, foot), (goal, _, planted) in goals.items():
        reach = np.linalg.norm(rest[shin] - rest[thigh]) + np.linalg.norm(rest[foot] - rest[shin])
        reach -= 0.75 * SOFT * target.legs  # where the soft IK still reaches its goal within half a millimetre a metre
        reach = np.minimum(reach, np.linalg.norm(position[foot] - position[thigh], axis=1))  # the free leg's
        drop = np.maximum(drop, np.where(planted, feet.drop_to_reach(position[thigh], goal, reach, up), 0.0))
    if np.any(drop > 0):
        drop = feet.ease_up(drop, int(np.ceil(2 * blend)))
        for k in moving:
            position[k] -= drop[:, None] * up
    children = child_lists(skeleton.parents)
    for (thigh, shin, foot), (goal, turns, planted) in goals.items():
        frames = np.flatnonzero(planted)
        hip, knee, ankle = (position[j][frames] for j in (thigh, shin, foot))
        pole = _knee_pole(target, world, position, thigh, shin)[frames]
        bends = (*feet.two_bone_ik(hip, knee, ankle, goal[frames], pole, SOFT * target.legs), turns[frames])
        vectors = np.zeros((len(planted), 3, 3))
        vectors[frames] = np.stack([rotations.matrix_to_rotvec(b) for b in bends], axis=1)
        for _ in range(2):  # the second pass catches what the first undershoots (see _steady)
            _steady(vectors, planted, position[shin] - position[thigh], position[foot] - position[shin])
        padded = np.pad(planted, 1)
        edges = np.flatnonzero(planted & ~(padded[:-2] & padded[2:]))
        widths = np.full(len(planted), float(blend))
        most = np.linalg.norm(vectors[edges, :2], axis=2).max(axis=1)
        widths[edges] = np.maximum(blend, np.ceil(1.5 * most / MOST_TURN))
        vectors, weight = feet.ramps(vectors, planted, widths)
        moving = np.flatnonzero(weight > 0)
        upper, lower, turn = (rotations.rotvec_to_matrix(vectors[moving, i]) for i in range(3))
        kept = set(descendants(children, foot))
        for top, bend in ((thigh, upper), (shin, lower)):
            for k in descendants(children, top):
                if k not in kept:
                    world[k][moving] = bend @ world[k][moving]
        for k in kept:
            world[k][moving] = turn @ world[k][moving]


def _steady(vectors, planted, thigh, shin):
    """Spread over their neighbours the steps of a leg's correction that turn it too fast, in place:
    vectors (F, 3, 3), the rotation vectors of the thigh's, shin's (and foot's) turns on planted
    frames; thigh, shin (F, 3): the free leg's bones. Where the turned thigh or shin turns more than
    1.5 times the free one + half MOST_TURN from one planted frame to the next (a jump in the
    source's hips while its foot stands still), the correction's step is cut back by that excess,
    and what is cut is spread over the contact by a triangle filter wide enough to add less than
    the other half of MOST_TURN a frame: the foot gives a little there instead of the leg jerking.
    The cut is measured in the correction's own angle, which undershoots where the correction turns
    the bone across its own turn: the caller runs this twice."""
    upper, lower = (rotations.rotvec_to_matrix(vectors[:, i]) for i in range(2))
    free, turned = (thigh, shin), (np.einsum("fij,fj->fi", upper, thigh), np.einsum("fij,fj->fi", lower @ upper, shin))
    excess = np.max([_turns(t) - 1.5 * _turns(f) - MOST_TURN / 2 for f, t in zip(free, turned)], axis=0)
    step = np.diff(vectors[:, :2], axis=0)
    size = np.linalg.norm(step, axis=2).max(axis=1)
    share = np.clip(excess / np.maximum(size, 1e-300), 0.0, 1.0) * (planted[1:] & planted[:-1])
    if not np.any(share > 0):
        return
    jumps = np.concatenate([np.zeros((1, 2, 3)), share[:, None, None] * step])
    for start, stop in feet.runs(planted):
        jump = np.cumsum(jumps[start:stop], axis=0)
        width = int(np.ceil(np.linalg.norm(np.diff(jump, axis=0), axis=2).max(initial=0.0) / MOST_TURN))
        vectors[start:stop, :2] += feet.smooth(jump, width) - jump


def _turns(directions):
    """(F - 1,) angles in radians between directions (F, 3) at consecutive frames."""
    a, b = directions[1:], directions[:-1]
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=1), np.sum(a * b, axis=1))


def _knee_pole(target, world, position, thigh, shin):
    """(F, 3) where a straight leg's knee points (feet.two_bone_ik's `pole`): the body's forward
    carried by the hips (their world rotations: every rig's hips are aligned upright, so this holds
    whatever the rest poses' limbs and rolls), swung as the thigh swings from hanging straight
    down (no twist: a thigh aligned by its direction alone has an arbitrary roll, so a forward
    carried by its own rotation could point backwards; nor the rest pose's thigh, which need not
    hang: Bandai Namco's lies along the spine). Zero without a body frame or hips."""
    frame, hips = target.frame(), target.roles.get("hips")
    if frame is None or hips is None:
        return np.zeros_like(position[thigh])
    carry = world[hips] @ target.rest_rotations[hips].T
    forward, down = carry @ frame[:, 2], carry @ -frame[:, 1]
    return np.einsum("fij,fj->fi", rotations.rotation_between(down, position[shin] - position[thigh]), forward)
