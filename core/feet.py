"""Feet on the ground: contacts found from height and speed, pinned goals, and a two-bone IK that
bends a leg so that its foot reaches a goal. Vectorised over frames."""

import numpy as np

from . import rotations


def contacts(positions, up, fps, leg_length, *, height=0.1, speed=0.2, shortest=0.05):
    """(F,) bool: frames where a foot at `positions` (F, 3) stands on the ground, that is lies
    within `height` leg lengths above its lowest point along `up` and moves slower than `speed`
    leg lengths per second (central differences). Gaps between contacts shorter than `shortest`
    seconds are closed, then contacts shorter than that dropped."""
    positions = np.asarray(positions, dtype=float)
    if len(positions) < 2:
        return np.zeros(len(positions), dtype=bool)
    level = positions @ (np.asarray(up, dtype=float) / np.linalg.norm(up))
    velocity = np.linalg.norm(np.gradient(positions, axis=0), axis=1) * fps
    contact = (level - level.min() < height * leg_length) & (velocity < speed * leg_length)
    frames = shortest * fps
    return _flip_short_runs(_flip_short_runs(contact, False, frames), True, frames)


def _flip_short_runs(flags, value, length):
    """`flags` with every run of `value` shorter than `length` flipped (runs of False only between
    two runs of True)."""
    starts = np.flatnonzero(np.concatenate([[True], flags[1:] != flags[:-1]]))
    sizes = np.diff(np.append(starts, len(flags)))
    flip = (flags[starts] == value) & (sizes < length)
    if not value:
        flip[[0, -1]] = False
    return flags ^ np.repeat(flip, sizes)


def pins(positions, contact, blend):
    """Goals (F, 3) and weights (F,) that keep a foot still while in contact: each run of contact
    frames is pinned to its mean position (weight 1), and the goal eases back to the free position
    `positions` over `blend` frames on either side (smoothstep weights)."""
    positions = np.asarray(positions, dtype=float)
    frames = len(contact)
    if not np.any(contact):
        return positions.copy(), np.zeros(frames)
    index = np.arange(frames)
    starts = contact & ~np.concatenate([[False], contact[:-1]])
    run = np.cumsum(starts) - 1
    counts = np.bincount(run[contact])
    means = np.stack([np.bincount(run[contact], positions[contact, axis]) for axis in range(3)], axis=1)
    means /= counts[:, None]
    before = np.maximum.accumulate(np.where(contact, index, -1))
    after = np.minimum.accumulate(np.where(contact, index, frames)[::-1])[::-1]
    gap_before = np.where(before >= 0, index - before, np.inf)
    gap_after = np.where(after < frames, after - index, np.inf)
    nearest = np.clip(np.where(gap_before <= gap_after, before, after), 0, frames - 1)
    x = np.clip(1.0 - np.minimum(gap_before, gap_after) / (blend + 1.0), 0.0, 1.0)
    weight = x * x * (3.0 - 2.0 * x)
    goal = means[np.clip(run[nearest], 0, len(means) - 1)]
    return positions + weight[:, None] * (goal - positions), weight


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


def two_bone_ik(hip, knee, ankle, goal):
    """World rotations (n, 3, 3) that, applied on the left about the hip and then about the moved
    knee, bring the ankle to `goal` (as near as the two bones reach): (upper, lower), with the knee
    bending in the plane of the hip, the knee and the goal. All arguments (n, 3) world positions."""
    thigh, shin = np.linalg.norm(knee - hip, axis=1), np.linalg.norm(ankle - knee, axis=1)
    reach = goal - hip
    distance = np.linalg.norm(reach, axis=1)
    direction = reach / np.where(distance > 0, distance, 1.0)[:, None]
    distance = np.clip(distance, np.abs(thigh - shin) + 1e-9, thigh + shin - 1e-9)
    bend = _perpendicular(knee - hip, direction)
    along = (thigh**2 - shin**2 + distance**2) / (2.0 * distance)
    height = np.sqrt(np.maximum(thigh**2 - along**2, 0.0))
    new_knee = hip + along[:, None] * direction + height[:, None] * bend
    upper = rotations.swing(knee - hip, new_knee - hip)
    turned_shin = np.einsum("nij,nj->ni", upper, ankle - knee)
    lower = rotations.swing(turned_shin, hip + distance[:, None] * direction - new_knee)
    return upper, lower


def _perpendicular(v, direction):
    """Unit part of v (n, 3) perpendicular to unit `direction`; any perpendicular where v has none."""
    part = v - np.sum(v * direction, axis=1, keepdims=True) * direction
    norm = np.linalg.norm(part, axis=1, keepdims=True)
    fallback = np.cross(direction, np.eye(3)[np.argmin(np.abs(direction), axis=1)])
    part = np.where(norm > 1e-9 * np.linalg.norm(v, axis=1, keepdims=True), part, fallback)
    return part / np.linalg.norm(part, axis=1, keepdims=True)
