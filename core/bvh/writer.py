"""BVH writer: the hierarchy as text, the motion block through the vectorised number formatter."""

import numpy as np

from .. import rotations
from ..atomic import atomic_write
from ..numtext import format_table
from ..skeleton import POSITION_CHANNELS, ROTATION_CHANNELS


def write_bvh(motion, path, *, precision=6, rotation_order=None, position_joints=None,
              positions="replace"):
    """Write `motion` to a BVH file; the file appears only once it is complete.

    precision        decimals of every number (default 6)
    rotation_order   None keeps each joint's Euler order as read; e.g. "ZXY" writes every joint
                     in that order (angles converted, unwrapped over time)
    position_joints  None keeps the channel layout as read; "root", "all", or joint names
    positions        "replace" (channel = local translation) or "add" (channel = translation -
                     OFFSET): use the convention the file will be read with
    A joint whose layout has no channel for data the motion holds (a moving translation, a turn
    about an axis without a channel) gets the channels it needs, so nothing is lost.
    """
    if positions not in ("replace", "add"):
        raise ValueError(f"positions must be 'replace' or 'add', not {positions!r}")
    skeleton = motion.skeleton
    order = _depth_first(skeleton.parents)
    columns, layout = [], []
    for j in order:
        channels, values = _joint_channels(motion, j, rotation_order, _wants_positions(skeleton, j, position_joints),
                                           positions, 0.5 * 10.0 ** -precision)
        layout.append(channels)
        columns.extend(values)
    table = np.stack(columns, axis=1) if columns else np.zeros((motion.frame_count, 0))
    header = _hierarchy(skeleton, order, dict(zip(order, layout)), precision)
    header += f"MOTION\nFrames: {motion.frame_count}\nFrame Time: {_frame_time(motion.fps)}\n"
    body = format_table(table, precision) if table.shape[1] else b"\n" * motion.frame_count
    with atomic_write(path) as f:
        f.write(header.encode("utf-8"))
        f.write(body)


def _depth_first(parents):
    """Joint indices in depth-first order, children in index order (the order BVH nests them)."""
    children = {}
    for j, p in enumerate(parents):
        children.setdefault(int(p), []).append(j)
    order, stack = [], list(reversed(children.get(-1, [])))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(children.get(j, [])))
    return order


def _wants_positions(skeleton, joint, position_joints):
    if position_joints is None:
        return skeleton.has_positions(joint) or (not any(skeleton.channels) and skeleton.parents[joint] < 0)
    if position_joints == "root":
        return skeleton.parents[joint] < 0
    if position_joints == "all":
        return True
    return skeleton.names[joint] in set(position_joints)


def _joint_channels(motion, j, rotation_order, with_positions, positions, resolution):
    """Channel names and (F,) value columns of joint j; data below the printed `resolution` (half
    the last decimal) does not call for an extra channel."""
    skeleton = motion.skeleton
    as_read = skeleton.channels[j]
    angles, order = motion.euler[:, j], motion.euler_orders[j]
    if rotation_order is not None and rotation_order.upper() != order:
        matrices = rotations.euler_to_matrix(angles, order)
        order = rotation_order.upper()
        angles = rotations.unwrap_euler(rotations.matrix_to_euler(matrices, order))
    rotation_axes = [c[0] for c in as_read if c in ROTATION_CHANNELS] if rotation_order is None else []
    if np.any(np.abs(np.degrees(angles[:, len(rotation_axes):])) > resolution):
        rotation_axes = list(order)
    moving = np.any(np.abs(motion.translations[:, j] - skeleton.offsets[j]) > resolution)
    position_axes = [c[0] for c in as_read if c in POSITION_CHANNELS] if with_positions or moving else []
    if (with_positions or moving) and len(position_axes) < 3:
        position_axes = ["X", "Y", "Z"]
    translation = motion.translations[:, j]
    if positions == "add":
        translation = translation - skeleton.offsets[j]
    rotation = [(a + "rotation", np.degrees(angles[:, order.index(a)])) for a in rotation_axes]
    position = [(a + "position", translation[:, "XYZ".index(a)]) for a in position_axes]
    rotation_first = bool(as_read) and as_read[0] in ROTATION_CHANNELS
    channels = rotation + position if rotation_first else position + rotation
    return [name for name, _ in channels], [values for _, values in channels]


def _hierarchy(skeleton, order, layout, precision):
    number = f"{{:.{precision}f}}"
    ends = {}
    for parent, offset in zip(skeleton.end_site_parents, skeleton.end_site_offsets):
        ends.setdefault(int(parent), []).append(offset)
    lines = ["HIERARCHY"]
    open_joints = []  # (joint, depth) whose closing brace is pending
    for j in order:
        depth = 0 if skeleton.parents[j] < 0 else next(d for k, d in reversed(open_joints) if k == skeleton.parents[j]) + 1
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
        for offset in ends.get(j, []):
            lines += [f"{tab}\tEnd Site", f"{tab}\t{{",
                      f"{tab}\t\tOFFSET " + " ".join(number.format(v) for v in offset), f"{tab}\t}}"]
        lines.append(f"{tab}}}")


def _frame_time(fps):
    """The shortest decimal for 1 / fps that reads back as exactly the same rate (when one exists)."""
    seconds = 1.0 / fps
    for digits in range(6, 18):
        text = f"{seconds:.{digits}g}"
        if 1.0 / float(text) == fps:
            return text
    return repr(seconds)
