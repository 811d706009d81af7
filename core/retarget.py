"""Retargeting a Motion onto another Skeleton through world-space rotations (docs/retarget.md): each mapped
target joint turns in the world as its source joint turns from its rest, after the target's rest
pose has been aligned with the source's, so different rest poses (T or A pose, bone rolls, axes)
leave no twist. Positions follow from the target's own offsets; root motion is scaled."""

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import rotations, stance
from .body import Body, take_up, upright_turn
from .bone_map import auto_map
from .motion import Motion
from .skeleton import Skeleton, child_lists, descendants, topmost


def retarget(
    motion: Motion,
    target: Skeleton,
    bone_map: Mapping[str, str] | None = None,
    *,
    root_scale: str | float = "legs",
    fix_feet: bool = True,
    contact_height: float = 0.05,
    contact_speed: float = 0.15,
    blend: float = 0.2,
    up: ArrayLike | None = None,
    euler_orders: str | Sequence[str] | None = None,
) -> Motion:
    """A Motion of `target` moving like `motion` (docs/retarget.md).

    The target's rest pose is aligned with the source's by body part, its trunk turns as the
    source's does, its hips are placed by its hip sockets and its feet planted on its floor.
    Source and target share world axes and the ground; a target whose rest pose stands on another
    axis is stood on the source's.

    Parameters
    ----------
    motion : Motion
        The source take.
    target : Skeleton
        The rig to drive, with its own offsets and rest_rotations (any rest pose, any bone axes).
    bone_map : mapping of str to str, optional
        {source joint: target joint} (default: ``auto_map(motion.skeleton, target)``). An unmapped
        target joint keeps its rest pose relative to its parent, so it follows its nearest mapped
        ancestor.
    root_scale : "legs" or float, optional
        "legs" (default): steps scale with the legs' bones, heights above the floor with the legs'
        socket-to-floor lengths, target over source (`stance.place_roots`); or a number for both.
    fix_feet : bool, optional
        Hold the feet on the target's floor while the source's stand (default): heel, flat and toe
        phases, the legs bent by two-bone IK eased in and out in rotation space
        (`stance.plant_feet`). False copies the source's feet as they move.
    contact_height, contact_speed : float, optional
        A source foot stands while its ankle or ball lies within `contact_height` leg lengths of
        its ground level (default 0.05) and moves slower than `contact_speed` times the body's
        pace (default 0.15).
    blend : float, optional
        Seconds (at least) over which a planted foot eases in and out (default 0.2).
    up : array_like, shape (3,), optional
        The take's up direction (default `body.take_up`: the file's up axis where it names one,
        else hips to head over the take, snapped to an axis; else the source's rest pose's).
    euler_orders : str or sequence of str, optional
        One Euler order for every joint, or one per joint (default: the order each joint's
        channels in the target's layout give, `skeleton.euler_order`, else "ZXY").

    Returns
    -------
    Motion
        Of `target`, at the source's frame rate.

    Raises
    ------
    ValueError
        If the bone map names joints the skeletons lack or drives a target joint twice, or
        `euler_orders` does not fit the target.

    Examples
    --------
    A spine bending forward, on a rig with other names and proportions:

    >>> import numpy as np
    >>> from mocap_io.core import Motion, Skeleton, retarget
    >>> source = Skeleton(["Hips", "Spine", "Head"], [-1, 0, 1], [[0, 90, 0], [0, 10, 0], [0, 40, 0]])
    >>> target = Skeleton(["pelvis", "spine", "head"], [-1, 0, 1], [[0, 1.0, 0], [0, 0.2, 0], [0, 0.5, 0]])
    >>> euler = np.zeros((3, 3, 3))
    >>> euler[:, 1, 1] = [0.0, 0.3, 0.6]  # the spine's X angle (the 2nd of "ZXY")
    >>> motion = Motion(source, 30, euler, ["ZXY"] * 3, np.broadcast_to(source.offsets, (3, 3, 3)))
    >>> moved = retarget(motion, target)
    >>> moved
    <Motion 3 joints x 3 frames at 30 fps>
    >>> moved.euler[:, 1, 1].round(6)
    array([0. , 0.3, 0.6])
    """
    source = motion.skeleton
    pairs = _pairs(source, target, auto_map(source, target) if bone_map is None else bone_map)
    world, position = motion.world_transforms(scaled=False)
    body_source, body_target = Body(source), Body(target)
    if up is None:  # the take's: a rest pose need not stand (Bandai Namco's lies along its joints' axes)
        up = take_up(motion, body_source.roles, position)
    up = body_source.up if up is None else np.asarray(up, dtype=float) / np.linalg.norm(up)
    take = stance.Take(body_source, body_target, pairs, world, position, up, motion.fps)
    upright = upright_turn(body_source, body_target)
    world_target = _target_world(source, target, pairs, world, _alignments(body_source, body_target, pairs, upright))
    _steer_trunk(take, world_target, upright)
    levels = stance.floors(take, root_scale)
    movers = topmost(target.parents, pairs.keys())
    placed = stance.place_roots(take, movers, world_target, root_scale, levels)
    position_target = stance.world_positions(target, world_target, placed)
    if fix_feet:
        contact = {"height": contact_height, "speed": contact_speed, "blend": blend}
        stance.plant_feet(take, movers, world_target, position_target, levels, **contact)
    orders = _orders(target, euler_orders)
    euler = np.empty((motion.frame_count, target.joint_count, 3))
    translations = np.repeat(target.offsets[None], motion.frame_count, axis=0)
    for k, p in enumerate(target.parents):
        to_parent = np.eye(3) if p < 0 else np.swapaxes(world_target[p], 1, 2)  # world to the parent's frame
        local = to_parent @ world_target[k]
        if target.rest_rotations is not None:
            local = rotations.multiply_each(target.rest_rotations[k].T, local, np.eye(3))
        euler[:, k] = rotations.matrix_to_euler(local, orders[k])
        if k in placed:
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


def _target_world(source, target, pairs, world, align):
    """World rotations of the target, one (F, 3, 3) array per joint: G_t = G_s R_s^T A R_t for a
    mapped joint (the source's turn from its rest R_s applied to the target's rest R_t aligned by
    A), rest relative to the parent for the others."""
    rest_source, _ = source.rest_world()
    rest_target, _ = target.rest_world()
    local_rest = np.broadcast_to(np.eye(3), (target.joint_count, 3, 3))
    if target.rest_rotations is not None:
        local_rest = target.rest_rotations
    out = []
    for k, p in enumerate(target.parents):
        if k in pairs:
            j = pairs[k]
            out.append(rotations.multiply_each(np.eye(3), world[:, j], rest_source[j].T @ align[k] @ rest_target[k]))
        elif p >= 0:
            out.append(rotations.multiply_each(np.eye(3), out[p], local_rest[k]))
        else:
            out.append(np.repeat(local_rest[k][None], len(world), axis=0))
    return out


_LIKE_PARENT = {"ground", "spine", "neck", "head", "hand", "palm", "toe"}  # see _alignments


def _alignments(source, target, pairs, upright):
    """(K, 3, 3) world rotations A that turn each mapped target joint's rest pose onto its source's
    (Bodies `source` and `target`), by what the body part means:
    - the hips: the upright turn (body.upright_turn: up onto up, hip sockets onto hip sockets), so
      that both rigs stand upright and face forward however their hips joints sit;
    - spine, neck, head, hands, palms, toes and ground joints: their parent's alignment, so that they
      turn from their rest exactly as the source's do (both rigs stand upright and look forward at
      rest; a hand straight with its forearm stays so, whatever finger roots the rigs have);
    - feet: where both rest poses stand on them (Body.flat_feet), the upright turn, so that a sole
      flat on the source's floor is flat on the target's: the foot keeps its pitch to the floor
      and turns as the source's does (else by direction, as limbs);
    - limbs and every other joint: the directions to its nearest mapped descendants (skipping ones
      at the same place) onto those of the source joints they map from, after the parent's
      alignment (a smallest turn for one direction, the best fit for several): what removes A
      versus T poses.
    Unmapped joints take their parent's alignment (roots the upright turn)."""
    rest_source, rest_target = source.rest, target.rest
    tiny = 1e-9 * max(source.legs, target.legs)
    parts = {int(j): role for role, joints in target.roles.items() for j in np.ravel(joints)}
    children = child_lists(target.skeleton.parents)
    align = np.empty((target.skeleton.joint_count, 3, 3))
    for k, p in enumerate(target.skeleton.parents):
        align[k] = align[p] if p >= 0 else upright
        part = parts.get(k, "").split(".")
        if k not in pairs or part[0] in _LIKE_PARENT:
            continue
        if part[0] == "hips" or (part[0] == "foot" and source.flat_feet and target.flat_feet):
            align[k] = upright
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


def _steer_trunk(take, world, upright):
    """Turn the target's hips and spine, with what hangs from them unmapped (world rotations, in
    place), so that its trunk, the line from the hip sockets' midpoint to the upper arms', turns
    from its rest as the source's does; legs, arms, neck and head keep their world rotations. Both
    trunks then lean alike however differently the rigs' pelvis and spine joints sit (CMU's hips
    joint lies 9 cm above its sockets, Rigify's below them: the same pelvis tilt swings their
    sockets opposite ways)."""
    source, target = take.source, take.target
    ends_s, ends_t = _trunk_joints(source), _trunk_joints(target)
    if ends_s is None or ends_t is None or "hips" not in target.roles:
        return
    (sockets_s, arms_s), (sockets_t, arms_t) = ends_s, ends_t
    rest = source.rest[arms_s].mean(axis=0) - source.rest[sockets_s].mean(axis=0)
    now = take.position[:, arms_s].mean(axis=1) - take.position[:, sockets_s].mean(axis=1)
    goal = rotations.rotation_between(rest, now) @ (
        upright @ (target.rest[arms_t].mean(axis=0) - target.rest[sockets_t].mean(axis=0))
    )
    skeleton, hips = target.skeleton, target.roles["hips"]
    torso = {hips, *np.ravel(target.roles.get("spine", []))}
    owner = {}
    for k in descendants(child_lists(skeleton.parents), hips):
        owner[k] = k if k in take.pairs or k == hips else owner.get(skeleton.parents[k], k)
    turned = [k for k in owner if owner[k] in torso]
    for _ in range(2):
        trunk = np.mean([stance.below(skeleton, world, hips, k) for k in arms_t], axis=0)
        trunk -= np.mean([stance.below(skeleton, world, hips, k) for k in sockets_t], axis=0)
        turn = rotations.rotation_between(trunk, goal)
        for k in turned:
            world[k] = turn @ world[k]


def _trunk_joints(body):
    """([hip sockets], [upper arms]) joint lists of a Body, or None without both pairs."""
    sockets = [body.roles.get(f"thigh.{side}") for side in "LR"]
    arms = [body.roles.get(f"upper_arm.{side}") for side in "LR"]
    return None if None in sockets + arms else (sockets, arms)


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
    return rotations.rotation_between(a_sum, b_sum)


def _orders(skeleton, euler_orders):
    """Per joint Euler order: given, or the one its channels give (skeleton.euler_order)."""
    if isinstance(euler_orders, str):
        return [euler_orders.upper()] * skeleton.joint_count
    if euler_orders is not None:
        if len(euler_orders) != skeleton.joint_count:
            raise ValueError(f"{len(euler_orders)} Euler orders for {skeleton.joint_count} joints")
        return [o.upper() for o in euler_orders]
    return skeleton.euler_orders(default="ZXY")
