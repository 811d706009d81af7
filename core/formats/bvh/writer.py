"""BVH writer: the hierarchy as text, the motion block through the vectorised number formatter."""

import numpy as np

from ... import rebase
from ...atomic import atomic_write
from ...frame_rate import stands_for
from ...numtext import format_blocks
from ...skeleton import POSITION_CHANNELS, ROTATION_CHANNELS, child_lists, descendants


def write_bvh(motion, path, *, precision=6, rotation_order=None, position_joints=None, positions="replace"):
    """Write `motion` to a BVH file; the file appears only once it is complete.

    precision        decimals of every number (default 6)
    rotation_order   None keeps each joint's Euler order as read; e.g. "ZXY" writes every joint
                     in that order (angles converted, unwrapped over time)
    position_joints  None keeps the channel layout as read; "root", "all", or joint names
    positions        "replace" (channel = local translation) or "add" (channel = translation -
                     OFFSET): use the convention the file will be read with
    A joint whose layout has no channel for data the motion holds (a moving translation, a turn
    about an axis without a channel) gets the channels it needs, so nothing is lost. A motion with
    rest rotations (HTR, ASF) is first re-based onto BVH's identity rest (rebase.identity_rest):
    the same world joint positions. Scales (HTR's SF) have no place in BVH and are left out.
    """
    if positions not in ("replace", "add"):
        raise ValueError(f"positions must be 'replace' or 'add', not {positions!r}")
    motion.require_writable()
    if motion.skeleton.rest_rotations is not None:
        motion = rebase.identity_rest(motion)
    skeleton = motion.skeleton
    euler, orders = motion.euler, motion.euler_orders
    if rotation_order is not None:
        orders = [rotation_order.upper()] * skeleton.joint_count
        euler = motion.euler_in(orders[0])
    translations = motion.translations if positions == "replace" else motion.translations - skeleton.offsets
    resolution = 0.5 * 10.0**-precision  # data below it cannot be written anyway
    order = _depth_first(skeleton.parents)
    frames = motion.frame_count
    moving = _spread(motion.translations, skeleton.offsets).max(axis=1) > resolution
    turning = _spread(euler, 0.0) > np.radians(resolution)
    layout, sources = {}, []  # sources: (is rotation, joint, slot) of every column
    for j in order:
        layout[j] = _channels(
            skeleton,
            j,
            orders[j],
            rotation_order is None,
            turning[j],
            _wants_positions(skeleton, j, position_joints) or moving[j],
        )
        sources += [
            (True, j, orders[j].index(c[0])) if c in ROTATION_CHANNELS else (False, j, "XYZ".index(c[0]))
            for c in layout[j]
        ]
    table = np.empty((frames, len(sources)))
    for rotation, data in ((True, euler), (False, translations)):
        columns = [i for i, source in enumerate(sources) if source[0] == rotation]
        taken = np.take(
            data.reshape(frames, 3 * skeleton.joint_count), [3 * sources[i][1] + sources[i][2] for i in columns], axis=1
        )
        table[:, columns] = np.degrees(taken, out=taken) if rotation else taken
    header = _hierarchy(skeleton, order, layout, precision)
    header += f"MOTION\nFrames: {motion.frame_count}\nFrame Time: {_frame_time(motion.fps, motion.frame_time_text)}\n"
    blocks = format_blocks(table, precision) if sources else [b"\n" * motion.frame_count]
    with atomic_write(path) as f:
        f.write(header.encode("utf-8"))
        for block in blocks:
            f.write(block)


def _spread(values, reference):
    """(J, 3) largest distance of (F, J, 3) values from `reference` over all frames (0 if none)."""
    if not len(values):
        return np.zeros(values.shape[1:])
    return np.maximum(np.abs(values.max(axis=0) - reference), np.abs(values.min(axis=0) - reference))


def _depth_first(parents):
    """Joint indices in depth-first order, children in index order (the order BVH nests them)."""
    last_first = [c[::-1] for c in child_lists(parents)]  # descendants() takes the last child first
    return [k for root in np.flatnonzero(parents < 0).tolist() for k in descendants(last_first, root)]


def _wants_positions(skeleton, joint, position_joints):
    if position_joints is None:
        return skeleton.has_positions(joint) or (not any(skeleton.channels) and skeleton.parents[joint] < 0)
    if position_joints == "root":
        return skeleton.parents[joint] < 0
    if position_joints == "all":
        return True
    return skeleton.names[joint] in set(position_joints)


def _channels(skeleton, j, order, keep_rotations, turning, with_positions):
    """Channel names of joint j: its layout as read (or the requested one), plus any channel the
    data needs (`turning`: which Euler slots hold non-zero angles)."""
    as_read = skeleton.channels[j]
    rotation_axes = [c[0] for c in as_read if c in ROTATION_CHANNELS] if keep_rotations else []
    if any(turning[order.index(a)] for a in order if a not in rotation_axes):
        rotation_axes = list(order)
    position_axes = []
    if with_positions:
        position_axes = [c[0] for c in as_read if c in POSITION_CHANNELS]
        if len(position_axes) < 3:
            position_axes = ["X", "Y", "Z"]
    rotation = [a + "rotation" for a in rotation_axes]
    position = [a + "position" for a in position_axes]
    rotation_first = bool(as_read) and as_read[0] in ROTATION_CHANNELS
    return rotation + position if rotation_first else position + rotation


def _hierarchy(skeleton, order, layout, precision):
    number = f"{{:.{precision}f}}"
    ends = [skeleton.end_site_offsets[sites] for sites in child_lists(skeleton.end_site_parents, skeleton.joint_count)]
    lines = ["HIERARCHY"]
    open_joints = []  # (joint, depth) whose closing brace is pending
    for j in order:
        depth = (
            0 if skeleton.parents[j] < 0 else next(d for k, d in reversed(open_joints) if k == skeleton.parents[j]) + 1
        )
        _close(lines, open_joints, depth, ends, number)
        name = skeleton.names[j]
        if not name or any(c in name for c in "\r\n{}") or name != name.strip():
            raise ValueError(f"joint name {name!r} cannot be written to BVH")
        tab = "\t" * depth
        lines.append(f"{tab}{'ROOT' if depth == 0 else 'JOINT'} {name}")
        lines.append(f"{tab}{{")
        lines.append(f"{tab}\tOFFSET " + " ".join(number.format(v) for v in skeleton.offsets[j]))
        channels = layout[j]
        lines.append(f"{tab}\tCHANNELS {len(channels)}" + "".join(" " + c for c in channels))
        open_joints.append((j, depth))
    _close(lines, open_joints, 0, ends, number)
    return "\n".join(lines) + "\n"


def _close(lines, open_joints, depth, ends, number):
    """Close the joints at `depth` or deeper, writing their End Sites first."""
    while open_joints and open_joints[-1][1] >= depth:
        j, d = open_joints.pop()
        tab = "\t" * d
        for offset in ends[j]:
            lines += [
                f"{tab}\tEnd Site",
                f"{tab}\t{{",
                f"{tab}\t\tOFFSET " + " ".join(number.format(v) for v in offset),
                f"{tab}\t}}",
            ]
        lines.append(f"{tab}}}")


def _frame_time(fps, text=None):
    """`text` (the Frame Time as read) while it stands for `fps` (exactly, or as the standard rate
    it was rounded from), else the shortest decimal for 1 / fps that reads back as exactly the
    same rate (when one exists)."""
    if stands_for(text, fps):
        return text
    seconds = 1.0 / fps
    for digits in range(6, 18):
        text = f"{seconds:.{digits}g}"
        if 1.0 / float(text) == fps:
            return text
    return repr(seconds)
