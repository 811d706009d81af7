"""Feet on the ground: contacts found from height and speed, pinned goals, and a two-bone IK that
bends a leg so that its foot reaches a goal. Vectorised over frames."""

import numpy as np

from . import rotations
from .markers import column_runs


def contacts(
    positions, up, fps, leg_length, *, pace=None, height=0.05, speed=0.25, release=1.6, shortest=0.05, drift=0.03
):
    """(F,) bool: frames where a foot point at `positions` (F, 3) stands on the ground.

    A contact starts where the point lies within `height` leg lengths above its ground level (the
    2nd percentile of its height along `up` over the take) and moves slower than `speed` times the
    body's pace (`pace` (F,): the hips' speed on the floor plane, but at least one leg length per
    second; the slower of the steps to and from the frame), and lasts until the point rises above `release` times that
    height or moves faster than `release` times that speed, so that values near a threshold do not
    flicker. Gaps between contacts shorter than `shortest` seconds are closed; each contact loses
    the frames at its ends where the point lies farther than `drift` leg lengths from its median
    place on the floor plane (a foot still landing, or pushing off); contacts shorter than
    `shortest` are dropped. Scaled by the pace, the speed threshold holds for walks and for runs,
    whose planted feet move more between frames at 30 fps."""
    positions = np.asarray(positions, dtype=float)
    if len(positions) < 2:
        return np.zeros(len(positions), dtype=bool)
    level = positions @ (np.asarray(up, dtype=float) / np.linalg.norm(up))
    level = (level - np.percentile(level, 2.0)) / leg_length
    steps = np.linalg.norm(np.diff(positions, axis=0), axis=1) * fps
    velocity = np.minimum(np.r_[steps[0], steps], np.r_[steps, steps[-1]])  # a foot landing at f is still from f
    velocity /= leg_length if pace is None else np.maximum(pace, leg_length)
    enter = (level < height) & (velocity < speed)
    leave = (level > release * height) | (velocity > release * speed)
    last = np.maximum.accumulate(np.where(enter | leave, np.arange(len(level)), -1))
    contact = np.where(last >= 0, enter[np.maximum(last, 0)], False)
    frames = shortest * fps
    contact = _flip_short_runs(contact, False, frames)
    flat = across(positions, up / np.linalg.norm(up))
    for start, stop in runs(contact):
        away = np.linalg.norm(flat[start:stop] - np.median(flat[start:stop], axis=0), axis=1) > drift * leg_length
        near = np.flatnonzero(~away)
        contact[start:stop] = False
        if len(near):
            contact[start + near[0] : start + near[-1] + 1] = True
    return _flip_short_runs(contact, True, frames)


def smooth(values, width):
    """values (F, ...) averaged twice over windows of 2 `width` + 1 frames (a triangle filter; ends
    held)."""
    for _ in range(2 * (width > 0)):
        padded = np.pad(values, [(width, width)] + [(0, 0)] * (np.ndim(values) - 1), mode="edge")
        values = np.lib.stride_tricks.sliding_window_view(padded, 2 * width + 1, axis=0).mean(axis=-1)
    return values


def _flip_short_runs(flags, value, length):
    """`flags` with every run of `value` shorter than `length` flipped (runs of False only between
    two runs of True)."""
    starts = np.flatnonzero(np.concatenate([[True], flags[1:] != flags[:-1]]))
    sizes = np.diff(np.append(starts, len(flags)))
    flip = (flags[starts] == value) & (sizes < length)
    if not value:
        flip[[0, -1]] = False
    return flags ^ np.repeat(flip, sizes)


def runs(flags):
    """[(start, stop), ...] of the runs of True in `flags` (F,)."""
    _, start, stop = column_runs(np.asarray(flags)[:, None])
    return list(zip(start, stop))


HEEL, TOE, FLAT = 1, 2, 3  # the phases of a contact (0: none): FLAT is HEEL + TOE


def phases(ankle_contact, ball_contact):
    """(F,) the phase of each frame: HEEL where only the ankle stands, TOE where only the ball does,
    FLAT where both do (a flat foot is held, up to a turn: see `plant`), 0 where neither does."""
    return np.where(ankle_contact, HEEL, 0) + np.where(ball_contact, TOE, 0)


def plant(ankle, offsets, ball, phase, roll, lift, up, floor, depths, settle, hold_limit):
    """Where a planted foot goes: (ankle goals (F, 3), foot turns (F, 3, 3), planted (F,) bool).

    ankle (F, 3): the foot joint's free world position; offsets (F, N, 3): the foot's points (its
    joints and their tips) from the ankle in the world, offsets[:, ball] the ball's; phase (F,): see
    `phases`; roll (F,) in [0, 1]: how much a flat foot turns about the ball rather than the ankle
    (the source's); lift (F,): the source's ball's height along up, scaled to the target; up: unit
    up; floor: the floor's height along up; depths (N,): how far below each foot point its sole
    lies (a rest pose standing on flat feet: each point's rest height above the floor, the ankle's
    the most; else 0: the points themselves touch the floor).

    Each run of planted frames (a contact) holds its pivot's place on the floor plane: the ankle's
    while the heel stands, the ball's while the toe does; the first phase its mean place, each later
    one where the previous left it, so heel strike, flat foot and toe roll follow one another without
    a jump. A flat foot holds both: a turn of the foot (given back, to be applied to the foot with
    its toes, about the ankle) of at most `hold_limit` radians keeps the ball where it was. A foot
    rolls on through its flat phase (a jog's by 8 to 10 degrees, a walk's by up to 14): so the
    contact starts turned halfway towards where that roll goes, at most `hold_limit` (the phases
    before the flat one keep that turn), and the hold covers twice as much roll. Beyond it the foot
    turns as the source's does, about what stands next (the ball before a toe phase, the ankle
    before a heel phase), else as `roll` says; the turn eases away over `settle` frames of the next
    phase. Heights: the foot as high as puts its sole on the floor, the sole being each point
    lowered by its depth (the ankle as high as a flat foot's, the ball or a toe bent down no lower
    than it lies at rest: Rigify's toe joint sits 1.7 cm above the floor, in the toes' flesh),
    smoothed over an eighth of `settle` frames either side (a capture's jitter at 120 fps; at 30
    fps a frame is a real step, and smoothing would sink a short contact's last frames into the
    floor). In a toe phase the foot rises as the source's ball rises from where it stood at the
    phase's start: a foot pushing off leaves the floor as the source's does (held down, the leg
    would straighten faster than the source's)."""
    frames = len(ankle)
    goal, turns = np.array(ankle, dtype=float), np.broadcast_to(np.eye(3), (frames, 3, 3)).copy()
    planted = phase > 0
    for start, stop in runs(planted):
        cuts = np.r_[0, np.flatnonzero(phase[start + 1 : stop] != phase[start : stop - 1]) + 1, stop - start] + start
        flat = next((k for k in range(len(cuts) - 1) if phase[cuts[k]] == FLAT), len(cuts))
        lead = np.eye(3) if flat == len(cuts) else _lead(offsets[cuts[flat] : cuts[flat + 1], ball], hold_limit)
        for k, (first, last) in enumerate(zip(cuts[:-1], cuts[1:])):
            kind, span = phase[first], slice(first, last)
            held = turns[first - 1] if first > start else lead
            if kind == FLAT:
                hold = (
                    rotations.rotation_between(offsets[span, ball] @ held.T, (held @ offsets[first, ball])[None]) @ held
                )
                turns[span] = _at_most(hold, hold_limit)
            elif k < flat:
                turns[span] = lead
            else:
                turns[span] = _ease_turn(held, last - first, settle)
            to_ball = np.einsum("fij,fj->fi", turns[span], offsets[span, ball])
            pivot = to_ball if kind == TOE else np.zeros_like(to_ball)
            if first == start:  # the pivot's mean place
                place = np.mean(across(ankle[span] + pivot, up), axis=0)
            else:  # where the previous phase left it
                here = goal[first - 1] + (turns[first - 1] @ offsets[first - 1, ball] if kind == TOE else 0.0)
                place = across(here, up)
            goal[span] = place - pivot
            if kind == FLAT:  # the hold's excess turns the foot about what stands next, else as `roll` says
                following = phase[last] if last < stop else 0
                weight = 1.0 if following == TOE else 0.0 if following == HEEL else roll[span, None]
                goal[span] = (1.0 - weight) * place + weight * (place + to_ball[0] - to_ball)
        moved = np.einsum("fij,fnj->fni", turns[start:stop], offsets[start:stop])
        height = floor + smooth((depths - moved @ up).max(axis=1), int(settle / 8))
        for first, last in runs(phase[start:stop] == TOE):
            height[first:last] += np.maximum(lift[start + first : start + last] - lift[start + first], 0.0)
        goal[start:stop] = across(goal[start:stop], up) + height[:, None] * up
    return goal, turns, planted


def across(points, up):
    """points (..., 3) without their part along unit `up` (3,) or (..., 3)."""
    return points - np.sum(points * up, axis=-1, keepdims=True) * up


def _lead(directions, limit):
    """(3, 3) the turn a contact's foot starts with: from the first of `directions` (n, 3), the
    ball from the ankle over its first flat phase, halfway towards the last, at most `limit`
    radians (a hold of `limit` then covers the roll from `limit` before the start's to `limit`
    past it)."""
    turn = rotations.rotation_between(directions[0], directions[-1])
    angle = np.linalg.norm(rotations.matrix_to_rotvec(turn))
    return rotations.scale_rotation(turn, min(0.5, limit / max(angle, 1e-300)))


def _at_most(turns, limit):
    """Rotations (n, 3, 3) `turns` cut back about their own axes to at most `limit` radians."""
    angles = np.linalg.norm(rotations.matrix_to_rotvec(turns), axis=1)
    return rotations.scale_rotation(turns, np.minimum(1.0, limit / np.maximum(angles, 1e-300)))


def _ease_turn(turn, frames, settle):
    """(frames, 3, 3): `turn` easing to no turn over `settle` frames (smoothstep), then none."""
    x = np.clip(1.0 - (np.arange(frames) + 1.0) / (settle + 1.0), 0.0, 1.0)
    return rotations.scale_rotation(np.broadcast_to(turn, (frames, 3, 3)), x * x * (3.0 - 2.0 * x))


def ramps(vectors, planted, widths):
    """Rotation vectors (F, ..., 3) eased in and out of a foot's contacts, and the weights (F,):
    as they are, weight 1, on planted frames; within widths[e] frames of a contact's first or last
    frame e, those at e turned by a smoothstep weight falling to 0. Between two contacts closer
    than their widths, the vectors of both edges mix by their weights, so nothing jumps."""
    frames = len(planted)
    index = np.arange(frames)
    if not np.any(planted):
        return np.zeros_like(vectors), np.zeros(frames)
    before = np.maximum.accumulate(np.where(planted, index, -1))
    after = np.minimum.accumulate(np.where(planted, index, frames)[::-1])[::-1]
    weights, edges = [], []
    for edge, gap in ((before, index - before), (after, after - index)):
        e = np.clip(edge, 0, frames - 1)
        x = np.where((edge >= 0) & (edge < frames), np.clip(1.0 - gap / (widths[e] + 1.0), 0.0, 1.0), 0.0)
        weights.append(x * x * (3.0 - 2.0 * x))
        edges.append(vectors[e])
    shape = (frames,) + (1,) * (vectors.ndim - 1)
    total = np.maximum(weights[0] + weights[1], 1e-300).reshape(shape)
    weight = np.where(planted, 1.0, np.maximum(*weights))
    mixed = (weights[0].reshape(shape) * edges[0] + weights[1].reshape(shape) * edges[1]) / total
    return np.where(planted.reshape(shape), vectors, mixed * weight.reshape(shape)), weight


def drop_to_reach(hip, goal, reach, up):
    """(F,) how far the hip (F, 3) must move down along unit `up` to come within `reach` of `goal`
    (F, 3): 0 where it already is, as far as brings it nearest where no drop suffices."""
    apart = hip - goal
    along = apart @ up
    room = along**2 - np.sum(apart * apart, axis=1) + reach**2
    return np.maximum(along - np.sqrt(np.maximum(room, 0.0)), 0.0)


def ease_up(values, width):
    """A smooth curve at or above `values` (F,): the largest value within `width` frames, averaged
    over as many (each window's average includes the maximum it must cover)."""
    if width < 1:
        return values
    padded = np.pad(values, width, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * width + 1)
    highest = np.pad(windows.max(axis=1), width, mode="edge")
    return np.lib.stride_tricks.sliding_window_view(highest, 2 * width + 1).mean(axis=1)


def two_bone_ik(hip, knee, ankle, goal, pole=None, soft=0.0):
    """World rotations (n, 3, 3) that, applied on the left about the hip and then about the moved
    knee, bring the ankle to `goal` (as near as the two bones reach): (upper, lower), with the knee
    bending the way it bends in the free leg: its plane through hip, knee and ankle, turned with the
    hip-to-ankle line onto the hip-to-goal line (a goal moved sideways does not make the knee fall
    in). All arguments (n, 3) world positions;
    `pole` (n, 3), unit directions the knee points to, steadies that plane where the leg is nearly
    straight (the knee less than 12 degrees off the line from the hip to the goal; fading out
    towards there, so a bent knee keeps its own plane). `soft` (a length)
    keeps the knee from snapping straight: a goal farther than the leg's reach less `soft` is
    reached only as far as an exponential approach to the full reach takes it (soft IK)."""
    thigh, shin = np.linalg.norm(knee - hip, axis=1), np.linalg.norm(ankle - knee, axis=1)
    reach = goal - hip
    distance = np.linalg.norm(reach, axis=1)
    direction = reach / np.where(distance > 0, distance, 1.0)[:, None]
    if soft > 0:
        near = thigh + shin - soft
        distance = np.where(distance > near, near + soft * -np.expm1(-(distance - near) / soft), distance)
    distance = np.clip(distance, np.abs(thigh - shin) + 1e-9, thigh + shin - 1e-9)
    bent, line = knee - hip, ankle - hip  # the free leg's own plane, carried to the goal's line
    line /= np.linalg.norm(line, axis=1, keepdims=True)
    if pole is not None:
        near = 0.2 * thigh[:, None]  # the knee 12 degrees off the line
        off = np.linalg.norm(across(bent, line), axis=1)[:, None]
        bent = bent + np.maximum(near - off, 0.0) * pole
    bend = np.einsum("nij,nj->ni", rotations.rotation_between(line, direction), _perpendicular(bent, line))
    along = (thigh**2 - shin**2 + distance**2) / (2.0 * distance)
    height = np.sqrt(np.maximum(thigh**2 - along**2, 0.0))
    new_knee = hip + along[:, None] * direction + height[:, None] * bend
    upper = rotations.rotation_between(knee - hip, new_knee - hip)
    turned_shin = np.einsum("nij,nj->ni", upper, ankle - knee)
    lower = rotations.rotation_between(turned_shin, hip + distance[:, None] * direction - new_knee)
    return upper, lower


def _perpendicular(v, direction):
    """Unit part of v (n, 3) perpendicular to unit `direction`; any perpendicular where v has none."""
    part = across(v, direction)
    norm = np.linalg.norm(part, axis=1, keepdims=True)
    fallback = np.cross(direction, np.eye(3)[np.argmin(np.abs(direction), axis=1)])
    part = np.where(norm > 1e-9 * np.linalg.norm(v, axis=1, keepdims=True), part, fallback)
    return part / np.linalg.norm(part, axis=1, keepdims=True)
