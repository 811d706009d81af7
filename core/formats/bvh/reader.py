"""BVH reader: a small hand-written parser for the HIERARCHY, one C-level parse of the MOTION block.

Position channels: by default a joint's position channels REPLACE its OFFSET (positions="replace"),
as Blender's importer reads them and as 6-channel producers write them: Bandai Namco's per-joint
position channels repeat each joint's OFFSET, and MotionBuilder's root channels repeat the root's
non-zero OFFSET (adding would double them). positions="add" follows "Motion Data" (BVH,
"Interpreting The Data") and Meredith and Maddock ("Motion Capture File Formats Explained", 3.1):
translation = OFFSET + channels, for files written that way.
"""

import math
import re

import numpy as np

from ...errors import BYTES_PER_JOINT_FRAME, LARGEST, ParseError, beyond, check_memory, check_rate
from ...inputs import open_input, without_bom
from ...motion import Motion
from ...numtext import decode_text, normalize_newlines, parse_number, parse_table
from ...skeleton import POSITION_CHANNELS, ROTATION_CHANNELS, Skeleton

_CHANNELS = {c.lower(): c for c in POSITION_CHANNELS + ROTATION_CHANNELS}
_MOTION = re.compile(rb"^[ \t]*MOTION[ \t]*\r?$", re.MULTILINE | re.IGNORECASE)
_FRAMES = re.compile(r"^\s*frames\s*:\s*(\S*)\s*$", re.IGNORECASE)
_FRAME_TIME = re.compile(r"^\s*frame\s+time\s*:\s*(\S*)\s*$", re.IGNORECASE)


def read_bvh(path, *, positions="replace", strict=True):
    """Read a BVH file into a Motion (angles in radians, lengths in file units).

    positions  "replace" (default) or "add": how position channels combine with the OFFSET
    strict     if False, a motion section with fewer or more rows than `Frames:` declares, or an
               incomplete last row, is read with a warning instead of raising ParseError
    """
    if positions not in ("replace", "add"):
        raise ValueError(f"positions must be 'replace' or 'add', not {positions!r}")
    with open_input(path) as f:
        data = f.read(_HEAD)
        whole = len(data) == f.size
        try:  # the header from the file's start; the table then read by the parsing threads
            header = _header(path, data, whole=whole)
        except _Incomplete:  # a header longer than _HEAD, or old Mac line ends: the whole file
            data += f.read()
            whole = True
            header = _header(path, data, whole=True)
        data, skeleton, frames, frame_time, frame_time_text, block_start, first_line = header
        scale = _radians(skeleton)
        table = parse_table(
            data if whole else f,
            len(scale),
            frames,
            path=path,
            first_line=first_line,
            start=block_start,
            strict=strict,
            scale=scale,
        )
        size = f.size
    del data
    check_memory(
        path,
        len(table) * skeleton.joint_count * BYTES_PER_JOINT_FRAME,
        size,
        f"{len(table)} frames x {skeleton.joint_count} joints",
        line=first_line,
        why=": too many frames for joints without channels",
    )
    return _motion(skeleton, 1.0 / frame_time, frame_time_text, table, positions)


_HEAD = 1 << 20  # bytes read first: the whole of most files' headers


class _Incomplete(Exception):
    """The file's start does not hold the whole header (or its line ends change offsets)."""


def _header(path, data, *, whole):
    """(data with LF or CRLF line ends, skeleton, frames, frame time, its text, the table's byte
    offset, its line number) from `data`, the file's first bytes (all of them if `whole`);
    _Incomplete when they may not hold the header, or hold old Mac line ends (normalized, they
    would no longer be the file's offsets)."""
    normalized = normalize_newlines(data)
    if not whole and normalized is not data:
        raise _Incomplete
    data = without_bom(normalized, keep_offsets=True)
    if not data or data.isspace():
        if whole:
            raise ParseError(path, "empty file, expected HIERARCHY", line=1)
        raise _Incomplete
    try:
        found = _MOTION.search(data)
        header_end = found.start() if found else len(data)
        parser = _Hierarchy(path, decode_text(data[:header_end]), "before MOTION" if found else "file ends")
        parser.parse()
        if not found:
            raise ParseError(path, "expected MOTION after the hierarchy", line=parser.last_line + 1)
        frames, frame_time, frame_time_text, block_start, first_line = _motion_header(path, data, found)
    except ParseError:
        if whole:
            raise
        raise _Incomplete from None
    if not whole and block_start >= len(data):  # (the Frame Time line may go on)
        raise _Incomplete
    return data, parser.skeleton(), frames, frame_time, frame_time_text, block_start, first_line


def _radians(skeleton):
    """Per channel column, what turns it into the Motion's units: pi / 180 for a rotation (as
    np.radians multiplies), 1 for a position."""
    return np.array([np.pi / 180 if name in ROTATION_CHANNELS else 1.0 for c in skeleton.channels for name in c])


def _motion_header(path, data, found):
    """Frame count, frame time (and its text), byte offset of the first data row and its line number."""
    line = data.count(b"\n", 0, found.start()) + 1
    position = data.find(b"\n", found.end())
    values = []
    for pattern, name in ((_FRAMES, "Frames: <count>"), (_FRAME_TIME, "Frame Time: <seconds>")):
        while True:  # skip blank lines
            line += 1
            if position < 0:
                raise ParseError(path, f"file ends, expected '{name}'", line=line)
            end = data.find(b"\n", position + 1)
            text = data[position + 1 : end if end >= 0 else len(data)].decode("latin-1")
            position = end
            if text.strip():
                break
        match = pattern.match(text)
        value = parse_number(match.group(1)) if match else None
        found = f"expected '{name}', found {text.strip()[:60]!r}"
        frame_count = name.startswith("Frames")
        if value is None or not (value >= 0 and value == int(value) if frame_count else value > 0):
            raise ParseError(path, found, line=line)
        if not frame_count:
            if not math.isfinite(1.0 / value):
                raise ParseError(
                    path, f"Frame Time {value:g} is too small: the frame rate 1 / Frame Time is infinite", line=line
                )
            check_rate(path, 1.0 / value, f"Frame Time {value:g}", line=line)
        values.append(value)
    start = len(data) if position < 0 else position + 1
    return int(values[0]), values[1], match.group(1), start, line + 1


class _Hierarchy:
    """Parser of the HIERARCHY section: tokens with their line numbers, nesting kept on a stack."""

    def __init__(self, path, text, end):
        self.path = path
        self.end = end  # how the section ends, for messages
        self.tokens = []  # (token, line number)
        self.lines = text.split("\n")
        for number, line in enumerate(self.lines, 1):
            self.tokens.extend((t, number) for t in line.split())
        self.last_line = len(self.lines)
        self.position = 0
        self.names, self.parents, self.offsets, self.channels = [], [], [], []
        self.name_lines = {}
        self.end_parents, self.end_offsets = [], []

    def error(self, what, line=None):
        if line is None:
            line = self.tokens[self.position][1] if self.position < len(self.tokens) else self.last_line
        return ParseError(self.path, what, line=line)

    def next(self, expected):
        if self.position >= len(self.tokens):
            raise self.error(
                f"expected {expected} {self.end}"
                if self.end.startswith("before")
                else f"{self.end}, expected {expected}"
            )
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expect(self, keyword):
        token, line = self.next(f"'{keyword}'")
        if token.lower() != keyword.lower():
            raise self.error(f"expected '{keyword}', found {token[:40]!r}", line)
        return line

    def parse(self):
        self.expect("HIERARCHY")
        while self.position < len(self.tokens):
            token, line = self.next("ROOT")
            if token.lower() != "root":
                raise self.error(f"expected ROOT or MOTION, found {token[:40]!r}", line)
            self.joints(line)
        if not self.names:
            raise self.error("expected ROOT: the hierarchy has no joints")

    def joints(self, line):
        """Parse a ROOT and every joint nested in it (a loop over a stack of open joints: any depth)."""
        stack = [self.open_joint(-1, line)]  # (joint index, line of its keyword)
        while stack:
            index, opened = stack[-1]
            name = self.names[index][:80]  # for messages
            token, at = self.next(f"'}}' closing joint {name!r} (opened on line {opened})")
            keyword = token.lower()
            if keyword == "}":
                self.close_joint(index, opened)
                stack.pop()
            elif keyword == "offset":
                if self.offsets[index] is not None:
                    raise self.error(f"second OFFSET for joint {name!r}", at)
                self.offsets[index] = self.numbers(3, "OFFSET")
            elif keyword == "channels":
                if self.channels[index] is not None:
                    raise self.error(f"second CHANNELS for joint {name!r}", at)
                self.channels[index] = self.channel_list()
            elif keyword == "joint":
                stack.append(self.open_joint(index, at))
            elif keyword in ("end", "endsite"):
                if keyword == "end":
                    self.expect("Site")
                self.expect("{")
                self.expect("OFFSET")
                self.end_parents.append(index)
                self.end_offsets.append(self.numbers(3, "End Site OFFSET"))
                self.expect("}")
            elif keyword == "motion":
                raise self.error(f"expected '}}' closing joint {name!r} (opened on line {opened}) before MOTION", at)
            else:
                raise self.error(f"expected OFFSET, CHANNELS, JOINT, End Site or '}}', found {token[:40]!r}", at)

    def open_joint(self, parent, line):
        """Read a ROOT/JOINT header (the name is the rest of the line) and its '{'."""
        words = self.lines[line - 1].split(None, 1)
        name = words[1].strip() if len(words) > 1 else ""
        if name.endswith("{"):
            name = name[:-1].rstrip()
        if not name:
            raise self.error("expected a joint name after ROOT/JOINT", line)
        if name in self.name_lines:
            raise self.error(
                f"duplicate joint name {name[:80]!r} (first defined on line {self.name_lines[name]})", line
            )
        while (
            self.position < len(self.tokens)
            and self.tokens[self.position][1] == line
            and self.tokens[self.position][0] != "{"
        ):
            self.position += 1  # the words of the name
        index = len(self.names)
        self.name_lines[name] = line
        self.names.append(name)
        self.parents.append(parent)
        self.offsets.append(None)
        self.channels.append(None)
        self.expect("{")
        return index, line

    def close_joint(self, index, line):
        if self.offsets[index] is None:
            raise self.error(f"joint {self.names[index][:80]!r} has no OFFSET", line)
        if self.channels[index] is None:
            self.channels[index] = ()

    def numbers(self, count, what):
        values = []
        for _ in range(count):
            token, line = self.next(f"a number in {what}")
            value = parse_number(token)
            if value is None:
                raise self.error(f"expected {count} numbers after {what}, found {token[:40]!r}", line)
            if not abs(value) <= LARGEST:  # (a Python comparison: numpy's per number is slower than the parse)
                raise self.error(beyond(f"a number of {what}", value), line)
            values.append(value)
        return values

    def channel_list(self):
        token, line = self.next("the channel count")
        if not token.isdigit():
            raise self.error(f"expected the channel count after CHANNELS, found {token[:40]!r}", line)
        count = int(token)
        if count > 6:
            raise self.error(f"CHANNELS {count}: a joint has at most 6 channels", line)
        names = []
        for _ in range(count):
            token, at = self.next("a channel name")
            name = _CHANNELS.get(token.lower())
            if name is None:
                raise self.error(f"expected a channel name (Xposition ... Zrotation), found {token[:40]!r}", at)
            if name in names:
                raise self.error(f"channel {name} listed twice", at)
            names.append(name)
        return tuple(names)

    def skeleton(self):
        return Skeleton(
            self.names,
            self.parents,
            self.offsets,
            channels=self.channels,
            end_site_parents=self.end_parents,
            end_site_offsets=self.end_offsets,
        )


def _motion(skeleton, fps, frame_time_text, table, positions):
    """Scatter the channel columns (angles in radians) into Euler angles and local translations,
    all frames at once."""
    frames, count = len(table), skeleton.joint_count
    translations = np.empty((frames, count, 3))
    translations[:] = skeleton.offsets
    orders = skeleton.euler_orders()
    rot_joint, rot_slot, rot_col, pos_joint, pos_axis, pos_col = [], [], [], [], [], []
    column = 0
    for j, channels in enumerate(skeleton.channels):
        for name in channels:
            if name in ROTATION_CHANNELS:
                rot_joint.append(j)
                rot_slot.append(orders[j].index(name[0]))
                rot_col.append(column)
            else:
                pos_joint.append(j)
                pos_axis.append("XYZ".index(name[0]))
                pos_col.append(column)
            column += 1
    if len(rot_col) == 3 * count:  # every joint has three rotation channels: a view, or one gather
        slots = np.empty(3 * count, dtype=np.intp)
        slots[np.asarray(rot_joint) * 3 + rot_slot] = rot_col
        euler = _columns_view(table, slots.reshape(count, 3))
        if euler is None:
            euler = np.take(table, slots, axis=1).reshape(frames, count, 3)
    else:
        euler = np.zeros((frames, count, 3))
        euler[:, rot_joint, rot_slot] = table[:, rot_col]
    if pos_col:
        moved = table[:, pos_col]
        if positions == "add":
            moved += skeleton.offsets[pos_joint, pos_axis]
        translations[:, pos_joint, pos_axis] = moved
    return Motion(skeleton, fps, euler, orders, translations, frame_time_text=frame_time_text)


def _columns_view(table, columns):
    """table[:, columns] (F, J, 3) as a view when the columns (J, 3) step evenly without overlap
    (the usual layout: joint after joint, each one's rotation channels in its Euler order), else
    None. A view spares a copy of every angle (and the fresh memory it would touch)."""
    first, axis_step = columns[0, 0], columns[0, 1] - columns[0, 0]
    joint_step = columns[1, 0] - first if len(columns) > 1 else 3 * axis_step
    steps = first + np.add.outer(joint_step * np.arange(len(columns)), axis_step * np.arange(3))
    if axis_step < 1 or joint_step < 3 * axis_step or not np.array_equal(columns, steps):
        return None
    row, item = table.strides
    return np.lib.stride_tricks.as_strided(
        table[:, first:], (len(table), len(columns), 3), (row, joint_step * item, axis_step * item)
    )
