"""Retargeting a Motion onto another Skeleton through world-space rotations (design.md): each mapped
target joint turns in the world as its source joint turns from its rest, after the target's rest
pose has been aligned with the source's, so different rest poses (T or A pose, bone rolls, axes)
leave no twist. Positions follow from the target's own offsets; root motion is scaled."""

import numpy as np

from . import feet, rotations
from .bone_map import auto_map, find_roles, up_from_roles
from .motion import Motion
from .skeleton import ROTATION_CHANNELS, child_lists, descendants


def retarget(
    motion,
    target,
    bone_map=None,
    *,
    root_scale="legs",
    fix_feet=False,
    contact_height=0.1,
    contact_speed=0.2,
    blend=0.1,
    up=None,
    euler_orders=None,
):
    """A Motion of `target` (a Skeleton with its own offsets and rest_rotations) moving like `motion`.

    bone_map        {source joint: target joint} (default: auto_map(motion.skeleton, target)); an
                    unmapped target joint keeps its rest pose relative to its parent, so it follows
                    its nearest mapped ancestor
    root_scale      "legs" (default): the topmost mapped joints (the hips) move through the world
                    like their source joints scaled by the ratio of the legs' lengths, target over
                    source (a taller rig takes longer steps; cm to m converts); or a number
    fix_feet        keep feet still while the source's feet stand on the ground: contacts are
                    frames where a source foot lies within `contact_height` leg lengths of its
                    lowest point and moves slower than `contact_speed` leg lengths per second; the
                    target's leg bends (two-bone IK) to hold the foot at its mean position of each
                    contact, easing in and out over `blend` seconds; where a foot cannot reach, the
                    whole body first moves down as far as needed
    up              the up direction for contacts (default: the source's rest pose, hips to head,
                    snapped to an axis)
    euler_orders    one Euler order for every joint, or one per joint (default: the order of each
                    joint's rotation channels in the target's layout, else "ZXY")

    Source and target share world axes and the ground: convert one of them first if their up
    axes differ.
    """
    source = motion.skeleton
    pairs = _pairs(source, target, auto_map(source, target) if bone_map is None else bone_map)
    world, position = motion.world_transforms(scaled=False)
    roles_source, roles_target = find_roles(source), find_roles(target)
    if root_scale == "legs":
        root_scale = _leg_length(target, roles_target) / _leg_length(source, roles_source)
    world_target = _target_world(source, target, pairs, world)
    movers = {k: j for k, j in pairs.items() if _top(target.parents, pairs, k)}
    placed = {k: float(root_scale) * position[:, j] for k, j in movers.items()}
    position_target = _positions(target, world_target, placed)
    if fix_feet:
        if up is None:  # the rest pose's, else +Y
            up = up_from_roles(roles_source, source.rest_world()[1][None])
        up = np.array([0.0, 1.0, 0.0]) if up is None else np.asarray(up, dtype=float) / np.linalg.norm(up)
        leg = _leg_length(source, roles_source)
        legs = {}
        for side in "LR":
            chain = tuple(roles_target.get(f"{role}.{side}") for role in ("thigh", "shin", "foot"))
            if None not in chain and chain[2] in pairs:
                foot = position[:, pairs[chain[2]]]
                contact = feet.contacts(foot, up, motion.fps, leg, height=contact_height, speed=contact_speed)
                legs[chain] = feet.pins(position_target[chain[2]], contact, blend * motion.fps)
        _pin_legs(target, world_target, position_target, legs, up, blend * motion.fps)
    orders = _orders(target, euler_orders)
    euler = np.empty((motion.frame_count, target.joint_count, 3))
    translations = np.repeat(target.offsets[None], motion.frame_count, axis=0)
    for k, p in enumerate(target.parents):
        to_parent = np.eye(3) if p < 0 else np.swapaxes(world_target[p], 1, 2)  # world to the parent's frame
        local = to_parent @ world_target[k]
        if target.rest_rotations is not None:
            local = rotations.sandwich(target.rest_rotations[k].T, local, np.eye(3))
        euler[:, k] = rotations.matrix_to_euler(local, orders[k])
        if k in movers:
            offset = position_target[k] - (position_target[p] if p >= 0 else 0.0)
            translations[:, k] = (to_parent @ offset[..., None])[..., 0]
    euler = rotations.euler_continuity(euler)
    return Motion(target, motion.fps, euler, orders, translations, frame_time_text=motion.frame_time_text)


def _pairs(source, target, bone_map):
    """{target joint: source joint} of a bone map of names, checked."""
    unknown = [n for n in bone_map if n not in source.names] + [n for n in bone_map.values() if n not in target.names]
    if unknown:
        raise ValueError(f"bone map names joints the skeletons do not have: {', '.join(map(repr, unknown))}")
    if len(set(bone_map.values())) != len(bone_map):
        raise ValueError("bone map drives a target joint from more than one source joint")
    return {target.index(t): source.index(s) for s, t in bone_map.items()}


def _target_world(source, target, pairs, world):
    """World rotations of the target, one (F, 3, 3) array per joint: G_t = G_s R_s^T A R_t for a
    mapped joint (the source's turn from its rest R_s applied to the target's rest R_t aligned by
    A), rest relative to the parent for the others."""
    rest_source, _ = source.rest_world()
    rest_target, _ = target.rest_world()
    align = _alignments(source, target, pairs)
    local_rest = np.broadcast_to(np.eye(3), (target.joint_count, 3, 3))
    if target.rest_rotations is not None:
        local_rest = target.rest_rotations
    out = []
    for k, p in enumerate(target.parents):
        if k in pairs:
            j = pairs[k]
            out.append(rotations.sandwich(np.eye(3), world[:, j], rest_source[j].T @ align[k] @ rest_target[k]))
        elif p >= 0:
            out.append(rotations.sandwich(np.eye(3), out[p], local_rest[k]))
        else:
            out.append(np.repeat(local_rest[k][None], len(world), axis=0))
    return out


def _alignments(source, target, pairs):
    """(K, 3, 3) world rotations A that turn each mapped target joint's rest pose onto its source's:
    the directions to its nearest mapped descendants (skipping ones at the same place) onto those of
    the source joints they map from, after the parent's alignment (a smallest turn for one direction,
    the best fit for several). Unmapped joints and joints without directions take the parent's."""
    _, rest_source = source.rest_world()
    _, rest_target = target.rest_world()
    tiny = 1e-9 * max(np.ptp(rest_target, axis=0).max(), np.ptp(rest_source, axis=0).max(), 1e-300)
    children = child_lists(target.parents)
    align = np.empty((target.joint_count, 3, 3))
    for k, p in enumerate(target.parents):
        align[k] = align[p] if p >= 0 else np.eye(3)
        if k not in pairs:
            continue
        mine, theirs, stack = [], [], list(children[k])
        while stack:
            c = stack.pop()
            if c in pairs:
                a, b = rest_target[c] - rest_target[k], rest_source[pairs[c]] - rest_source[pairs[k]]
                if np.linalg.norm(a) > tiny and np.linalg.norm(b) > tiny:
                    mine.append(align[k] @ a / np.linalg.norm(a))
                    theirs.append(b / np.linalg.norm(b))
                    continue
            stack.extend(children[c])
        align[k] = _fit(np.array(mine).reshape(-1, 3), np.array(theirs).reshape(-1, 3)) @ align[k]
    return align


def _fit(a, b):
    """The rotation turning unit directions a (n, 3) onto b (n, 3): the smallest turn for one
    direction (or several in one line), else the least-squares best (Kabsch: the nearest rotation
    to sum b a^T)."""
    if not len(a):
        return np.eye(3)
    cross = b.T @ a
    singular = np.linalg.svd(cross, compute_uv=False)
    if singular[1] > 1e-6 * singular[0]:
        return rotations.nearest_rotation(cross)
    a_sum, b_sum = a.sum(axis=0), b.sum(axis=0)
    if np.linalg.norm(a_sum) < 1e-12 or np.linalg.norm(b_sum) < 1e-12:
        a_sum, b_sum = a[0], b[0]
    return rotations.swing(a_sum, b_sum)


def _top(parents, pairs, k):
    """Whether mapped joint k has no mapped ancestor."""
    p = parents[k]
    while p >= 0:
        if p in pairs:
            return False
        p = parents[p]
    return True


def _positions(skeleton, world, fixed):
    """World positions, one (F, 3) array per joint, from world rotations and offsets; joints in
    `fixed` {k: (F, 3)} are placed there."""
    out = []
    for k, p in enumerate(skeleton.parents):
        if k in fixed:
            out.append(fixed[k])
        elif p < 0:
            out.append(np.repeat(skeleton.offsets[k][None], len(world[k]), axis=0))
        else:
            out.append(out[p] + world[p] @ skeleton.offsets[k])
    return out


def _pin_legs(skeleton, world, position, legs, up, blend):
    """Bend the legs {(thigh, shin, foot): (goals, weights)} in `world` so that the feet reach their
    goals: first every joint moves down along `up` as far as a goal out of the leg's reach needs
    (eased over `blend` frames), then the thigh's subtree turns about the hip and the shin's about
    the knee (two-bone IK); each foot's subtree keeps its world rotations."""
    drop = np.zeros(len(position[0]))
    _, rest = skeleton.rest_world()
    for (thigh, shin, foot), (goal, weight) in legs.items():
        reach = (np.linalg.norm(rest[shin] - rest[thigh]) + np.linalg.norm(rest[foot] - rest[shin])) * 0.999
        drop = np.maximum(drop, np.where(weight > 0, feet.drop_to_reach(position[thigh], goal, reach, up), 0.0))
    if np.any(drop > 0):
        drop = feet.ease_up(drop, int(np.ceil(blend)))
        for joint in position:
            joint -= drop[:, None] * up
    children = child_lists(skeleton.parents)
    for (thigh, shin, foot), (goal, weight) in legs.items():
        frames = np.flatnonzero(weight > 0)
        upper, lower = feet.two_bone_ik(*(position[j][frames] for j in (thigh, shin, foot)), goal[frames])
        kept = set(descendants(children, foot))
        for top, turn in ((thigh, upper), (shin, lower)):
            for k in descendants(children, top):
                if k not in kept:
                    world[k][frames] = turn @ world[k][frames]


def _leg_length(skeleton, roles):
    """Mean rest distance from the hips (else the thigh) to each ankle; the rest height without legs."""
    _, rest = skeleton.rest_world()
    legs = [
        np.linalg.norm(rest[roles.get("hips", roles[f"thigh.{side}"])] - rest[roles[f"foot.{side}"]])
        for side in "LR"
        if f"thigh.{side}" in roles and f"foot.{side}" in roles
    ]
    length = np.mean(legs) if legs else np.ptp(rest, axis=0).max()
    if not length > 0:
        raise ValueError(f"{skeleton!r} has no extent: cannot scale root motion by its size")
    return float(length)


def _orders(skeleton, euler_orders):
    """Per joint Euler order: given, or the skeleton's rotation channels (missing axes after them)."""
    if isinstance(euler_orders, str):
        return [euler_orders.upper()] * skeleton.joint_count
    if euler_orders is not None:
        if len(euler_orders) != skeleton.joint_count:
            raise ValueError(f"{len(euler_orders)} Euler orders for {skeleton.joint_count} joints")
        return [o.upper() for o in euler_orders]
    orders = []
    for channels in skeleton.channels:
        axes = "".join(c[0] for c in channels if c in ROTATION_CHANNELS)
        orders.append(axes + "".join(a for a in "XYZ" if a not in axes) if axes else "ZXY")
    return orders
