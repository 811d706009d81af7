"""Motion Analysis HTR (Hierarchical Translation-Rotation) and GTR (its global variant): reader,
writer, and the conversions from and to BVH's identity rest pose. See docs/htr.md.

A file: `[Header]` (keyword value lines), `[SegmentNames&Hierarchy]` (child parent, GLOBAL for a
root; GTR has none: every segment is global), `[BasePosition]` (name Tx Ty Tz Rx Ry Rz BoneLength),
one `[segment]` block per segment of NumFrames rows `Frame# Tx Ty Tz Rx Ry Rz SF`, `[EndOfFile]`.
Section names and keywords in any case, `#` comments anywhere, tabs or spaces, CRLF.

In the Motion: offsets = base translations, rest_rotations = base rotations R0, translations =
base + frame translations, euler = frame rotations, scales = SF, so the local transform is
``T @ R0 @ R @ S``. SF sizes the segment itself (its bone, End Site), not its children: a child's
translation already holds the segment length SF describes (docs/htr.md has the evidence).
Lengths stay in file units; CalibrationUnits and the header ScaleFactor are in `motion.record`.
"""

import re
import warnings

import numpy as np

from .. import rebase, rotations
from ..atomic import atomic_write
from ..errors import (
    FileWarning,
    ParseError,
    beyond,
    check_bound,
    check_rate,
    first_beyond,
    require_bounded,
    require_rate,
)
from ..frame_rate import snap_rate, stands_for
from ..inputs import read_input, without_bom
from ..motion import Motion
from ..numtext import (
    decode_text,
    format_blocks,
    format_table,
    line_of_row,
    normalize_newlines,
    parse_number,
    parse_table,
    shortest,
)
from ..skeleton import POSITION_CHANNELS, CyclicHierarchy, Skeleton, parents_first, renumbered

READINGS = ("product", "applied")  # how EulerRotationOrder "ZYX" reads: Rz @ Ry @ Rx, or Rx @ Ry @ Rz
HEADER_KEYS = (  # the order every producer writes and some readers (by position) expect
    "FileType",
    "DataType",
    "FileVersion",
    "NumSegments",
    "NumFrames",
    "DataFrameRate",
    "EulerRotationOrder",
    "CalibrationUnits",
    "RotationUnits",
    "GlobalAxisofGravity",
    "BoneLengthAxis",
    "ScaleFactor",
)
METRES_PER_UNIT = {
    **dict.fromkeys(("mm", "millimeter", "millimeters", "millimetre", "millimetres"), 0.001),
    **dict.fromkeys(("cm", "centimeter", "centimeters", "centimetre", "centimetres"), 0.01),
    **dict.fromkeys(("dm", "decimeter", "decimeters", "decimetre", "decimetres"), 0.1),
    **dict.fromkeys(("m", "meter", "meters", "metre", "metres"), 1.0),
    **dict.fromkeys(("in", "inch", "inches"), 0.0254),
    **dict.fromkeys(("ft", "foot", "feet"), 0.3048),
}
_DEFAULTS = {"FileType": "htr", "DataType": "HTRS", "FileVersion": "1", "CalibrationUnits": "mm"}
_DEFAULTS |= {"RotationUnits": "Degrees", "GlobalAxisofGravity": "Y", "BoneLengthAxis": "Y", "ScaleFactor": "1.000000"}
_FRAME_COLUMNS = 8  # Frame# Tx Ty Tz Rx Ry Rz SF


def read_htr(path, *, euler_reading="product", strict=True):
    """Read an HTR or GTR file into a Motion (angles in radians, lengths in file units).

    euler_reading  "product" (default): EulerRotationOrder "ZYX" means R = Rz @ Ry @ Rx, letters
                   left to right as the matrix product (the seed's notation, as BVH channels);
                   "applied": the letters name the rotations in the order they apply to a vector
                   (R = Rx @ Ry @ Rz). docs/htr.md has the evidence for the default.
    strict         if False, segment blocks with fewer or more rows than NumFrames are read with a
                   warning (all cut to the shortest) instead of raising ParseError
    """
    if euler_reading not in READINGS:
        raise ValueError(f"euler_reading must be one of {READINGS}, not {euler_reading!r}")
    data = without_bom(normalize_newlines(read_input(path)))
    head = _Head(path)
    head.parse(data)
    settings = _Settings(head.header, lambda what, line: ParseError(path, what, line=line), head.header_lines())
    check_rate(path, settings.fps, "DataFrameRate", line=head.header["dataframerate"][2])
    if "scalefactor" in head.header:
        check_bound(path, settings.scale_factor, "ScaleFactor", line=head.header["scalefactor"][2])
    names, parents = head.skeleton_order(settings.gtr)
    if len(names) != settings.segments:
        where = head.header["numsegments"][2]
        raise ParseError(
            path, f"NumSegments is {settings.segments}, but the file lists {len(names)} segments", line=where
        )
    base = head.base_positions(names)
    tables, first_frame = _frames(path, data, head, names, settings.frames, strict)
    del data
    order, by_axis = settings.order(euler_reading)
    frames = len(tables[0]) if tables else settings.frames
    euler, translations = np.empty((frames, len(names), 3)), np.empty((frames, len(names), 3))
    scales = np.empty((frames, len(names)))
    for j, table in enumerate(tables):  # into the Motion's arrays, a block at a time
        euler[:, j] = settings.radians(table[:, 4:7])[:, by_axis]
        np.add(table[:, 1:4], base[j, :3], out=translations[:, j])
        scales[:, j] = table[:, 7]
        tables[j] = None
    rest = rotations.euler_to_matrix(settings.radians(base[:, 3:6])[:, by_axis], order)
    lengths = base[:, 6]
    if frames:  # SF sizes the segment: SF x BoneLength must stay bounded too
        bad = first_beyond(np.abs(scales).max(axis=0) * np.abs(lengths))
        if bad is not None:
            j = bad[0]
            what = f"segment {names[j]!r}: SF (up to {np.abs(scales[:, j]).max():g}) x BoneLength {lengths[j]:g}"
            raise ParseError(path, beyond(what, np.abs(scales[:, j]).max() * lengths[j]), line=head.base[names[j]][1])
    inner = set(parents)
    leaves = [j for j in range(len(names)) if j not in inner and lengths[j]]
    skeleton = Skeleton(
        names,
        parents,
        base[:, :3],
        channels=[_channels(order, p < 0) for p in parents],
        end_site_parents=leaves,
        end_site_offsets=np.outer(lengths[leaves], np.eye(3)[settings.bone_axis]),
        rest_rotations=rest,
    )
    record = {
        "format": "gtr" if settings.gtr else "htr",
        "header": [[key, value] for key, value, _ in head.header.values()],
        "euler_reading": euler_reading,
        "calibration_units": settings.units,
        "scale_factor": settings.scale_factor,
        "up_axis": settings.up_axis,
        "bone_length_axis": "XYZ"[settings.bone_axis],
        "bone_lengths": dict(zip(names, lengths.tolist())),
        "base_euler": dict(zip(names, settings.radians(base[:, 3:6]).tolist())),
        "segment_order": head.names_as_written(settings.gtr),
        "first_frame": first_frame,
    }
    return Motion(skeleton, settings.fps, euler, [order] * len(names), translations, scales, record=record)


def metres_per_unit(calibration_units):
    """Metres per length unit of a CalibrationUnits value (`record["calibration_units"]`): mm, cm,
    dm, m, in, ft and their long names; None if unknown or missing."""
    return METRES_PER_UNIT.get((calibration_units or "").lower())


def _channels(order, root):
    return (POSITION_CHANNELS if root else ()) + tuple(a + "rotation" for a in order)


class _Head:
    """The sections before the first segment block: header, hierarchy and base positions, with
    the line of everything (for messages)."""

    def __init__(self, path):
        self.path = path
        self.header = {}  # lower-case keyword -> (keyword, value, line)
        self.hierarchy = []  # (child, parent, line)
        self.base = {}  # name -> (7 numbers, line)
        self.sections = {}  # lower-case section name -> line
        self.data_start = self.data_line = None  # byte offset and line of the first segment block

    def error(self, what, line):
        return ParseError(self.path, what, line=line)

    def parse(self, data):
        section, position, number = None, 0, 0
        while position < len(data):
            end = data.find(b"\n", position)
            end = len(data) if end < 0 else end
            number += 1
            text = decode_text(data[position:end]).split("#", 1)[0].strip()
            line_start, position = position, end + 1
            if not text:
                continue
            if text.startswith("["):
                name = text[1:].rsplit("]", 1)[0].strip() if text.endswith("]") else None
                key = (name or "").lower()
                if key in ("header", "segmentnames&hierarchy", "baseposition", "endoffile"):
                    self._enter(key, number)
                    section = key
                    if key == "endoffile":
                        self.data_start, self.data_line = len(data), number
                        break
                    continue
                if "baseposition" in self.sections:
                    self.data_start, self.data_line = line_start, number
                    break
                raise self.error(
                    f"expected [Header], [SegmentNames&Hierarchy] or [BasePosition], found {text[:60]!r}", number
                )
            if section is None:
                raise self.error(f"expected [Header], found {text[:60]!r}", number)
            getattr(self, "_" + section.replace("&", "_"))(text, number)
        if "baseposition" not in self.sections:
            raise self.error("file ends, expected [BasePosition]", number + 1)
        if self.data_start is None:
            self.data_start, self.data_line = len(data), number + 1

    def _enter(self, key, line):
        if key in self.sections:
            raise self.error(f"second [{key}] section (first on line {self.sections[key]})", line)
        if key != "header" and "header" not in self.sections:
            raise self.error(f"expected [Header] before [{key}]", line)
        self.sections[key] = line

    def _header(self, text, line):
        words = text.split(None, 1)
        if len(words) < 2:
            raise self.error(f"expected a value after {words[0][:40]!r}", line)
        key = words[0].lower()
        if key in self.header:
            raise self.error(f"second {words[0]} (first on line {self.header[key][2]})", line)
        self.header[key] = (words[0], words[1], line)

    def _segmentnames_hierarchy(self, text, line):
        fields = [f.strip() for f in text.split("\t") if f.strip()] if "\t" in text else text.split()
        if len(fields) != 2:
            raise self.error(f"expected a segment name and its parent's (or GLOBAL), found {len(fields)} fields", line)
        self.hierarchy.append((fields[0], fields[1], line))

    def _baseposition(self, text, line):
        fields = text.rsplit(None, 7)
        values = [parse_number(v) for v in fields[1:]]
        if len(fields) < 8 or None in values:
            raise self.error(
                f"expected a segment name and 7 numbers (Tx Ty Tz Rx Ry Rz BoneLength), found {text[:60]!r}", line
            )
        check_bound(self.path, values, lambda i: ("Tx", "Ty", "Tz", "Rx", "Ry", "Rz", "BoneLength")[i], line=line)
        name = fields[0]
        if name in self.base:
            raise self.error(f"second base position for segment {name!r} (first on line {self.base[name][1]})", line)
        self.base[name] = (values, line)

    def header_lines(self):
        """(first, last) line of the [Header] section: its name, its last keyword."""
        first = self.sections["header"]
        return first, max((line for _, _, line in self.header.values()), default=first)

    def names_as_written(self, gtr):
        return (
            list(self.base)
            if gtr and "segmentnames&hierarchy" not in self.sections
            else [c for c, _, _ in self.hierarchy]
        )

    def skeleton_order(self, gtr):
        """(names, parents) with every parent before its children, in file order where it allows."""
        if "segmentnames&hierarchy" not in self.sections:
            if not gtr:
                raise self.error(
                    "expected [SegmentNames&Hierarchy] before [BasePosition]", self.sections["baseposition"]
                )
            return list(self.base), [-1] * len(self.base)
        index = {}
        for child, _, line in self.hierarchy:
            if child in index:
                raise self.error(f"segment {child!r} listed twice", line)
            index[child] = len(index)
        parent = []
        for child, name, line in self.hierarchy:
            if name.upper() != "GLOBAL" and name not in index:
                raise self.error(f"undefined parent {name!r} of segment {child!r}", line)
            parent.append(-1 if name.upper() == "GLOBAL" else index[name])
        try:
            order = parents_first(parent, [child for child, _, _ in self.hierarchy])
        except CyclicHierarchy as cycle:
            raise self.error(str(cycle), self.hierarchy[cycle.loop[0]][2]) from None
        return [self.hierarchy[j][0] for j in order], renumbered(parent, order)

    def base_positions(self, names):
        """(J, 7) base position of every segment, in the order of `names`."""
        known = set(names)
        for name, (_, line) in self.base.items():
            if name not in known:
                raise self.error(f"base position of unknown segment {name!r}", line)
        missing = [n for n in names if n not in self.base]
        if missing:
            raise self.error(f"no base position for segment {missing[0]!r}", self.sections["baseposition"])
        return np.array([self.base[n][0] for n in names], dtype=float).reshape(-1, 7)


def _frames(path, data, head, names, frames, strict):
    """The (NumFrames, 8) table of every segment (in the order of `names`) and the first frame number."""
    blocks, end_line = _blocks(path, data, head)
    known, folded = set(names), _case_folded(names)
    found = {}
    for k, (name, line, *_) in enumerate(blocks):
        segment = name if name in known else folded.get(name.lower())
        if segment is None:
            raise ParseError(path, f"block [{name[:80]}] is not a segment of the hierarchy", line=line)
        if segment in found:
            first = blocks[found[segment]][1]
            raise ParseError(path, f"second block for segment {segment!r} (first on line {first})", line=line)
        found[segment] = k
    for name in names:
        if name not in found:
            raise ParseError(path, f"no [{name}] block: expected one per segment", line=end_line)
    tables = _at_once(path, data, blocks, frames) or _one_by_one(path, data, blocks, frames, strict)
    first_frame = int(tables[0][0, 0]) if len(tables) and len(tables[0]) else 1
    return [tables[found[name]] for name in names], first_frame


def _at_once(path, data, blocks, frames):
    """The tables of all blocks (in file order) from one parse of the data, the headers and comments
    blanked (the lines stay); None unless every block has NumFrames rows numbered alike from a whole
    number (then _one_by_one finds what is wrong, or reads leniently)."""
    if not blocks:
        return []
    start, stop = blocks[0][2], blocks[-1][4]
    text = bytearray(memoryview(data)[start:stop])  # one copy, blanked in place
    chars = np.frombuffer(text, dtype=np.uint8)
    for _, _, header, body, _, _ in blocks:
        head = chars[header - start : body - start]
        head[head != 10] = 32
    try:
        table = parse_table(
            _uncommented(text), _FRAME_COLUMNS, len(blocks) * frames, path=path, first_line=blocks[0][1]
        )
    except ParseError:
        return None
    tables = table.reshape(len(blocks), frames, _FRAME_COLUMNS)
    first = tables[0, 0, 0] if frames else 1
    if first != int(first) or not np.array_equal(
        tables[:, :, 0], np.broadcast_to(first + np.arange(frames), (len(blocks), frames))
    ):
        return None
    return list(tables)


def _one_by_one(path, data, blocks, frames, strict):
    """The tables of all blocks (in file order), each parsed alone: the error names its block."""
    tables, first_frame = [], None
    for name, _, _, start, stop, first_line in blocks:
        block = _uncommented(data[start:stop])
        table = parse_table(
            block, _FRAME_COLUMNS, frames, path=path, first_line=first_line, strict=strict, end=f"block [{name}]"
        )
        numbers = table[:, 0]
        first = first_frame if first_frame is not None else (numbers[0] if len(numbers) else 1)
        if first != int(first):
            where = first_line + line_of_row(block, 0)
            raise ParseError(path, f"frame number {first:g} in block [{name}]: expected a whole number", line=where)
        wrong = np.flatnonzero(numbers != first + np.arange(len(numbers)))
        if len(wrong):
            rule = "consecutively" if first_frame is None else f"from {first:g}, as in the first block"
            raise ParseError(
                path,
                f"frame number {numbers[wrong[0]]:g} in block [{name}], expected {first + wrong[0]:g} "
                f"(frames are numbered {rule})",
                line=first_line + line_of_row(block, wrong[0]),
            )
        first_frame = first
        tables.append(table)
    count = min((len(t) for t in tables), default=frames)
    if any(len(t) != count for t in tables):
        what = f"segment blocks of different lengths, all cut to {count} frames"
        warnings.warn(f"{path}: {what}", FileWarning, stacklevel=4)
    return [t[:count] for t in tables]


def _case_folded(names):
    """{lower-case name: the one segment of that name but for case, or None when several share it}."""
    folded = {}
    for name in names:
        key = name.lower()
        folded[key] = None if key in folded else name
    return folded


def _blocks(path, data, head):
    """[(name, line of its [name], its start, body start, body end, line of the body's first line)]
    of every segment block, and the line where the data ends ([EndOfFile] or the end of the file)."""
    blocks, position, line = [], head.data_start, head.data_line
    while position < len(data):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end
        text = decode_text(data[position:end]).split("#", 1)[0].strip()
        if not text.endswith("]"):
            raise ParseError(path, f"expected ']' closing the segment name, found {text[:60]!r}", line=line)
        name = text[1:-1].strip()
        if name.lower() == "endoffile":
            return blocks, line
        stop = _next_header(data, end)
        body, skipped = end + 1, 1
        while data.startswith(b"#", body) and body < stop:  # the column comment under the name
            body, skipped = data.find(b"\n", body, stop) + 1 or stop, skipped + 1
        blocks.append((name, line, position, body, stop, line + skipped))
        line += data.count(b"\n", position, stop)
        position = stop
    return blocks, line


def _next_header(data, position):
    """Byte offset of the next line that starts (after blanks) with '[', or the end of the data."""
    while True:
        found = data.find(b"[", position)
        if found < 0:
            return len(data)
        start = data.rfind(b"\n", 0, found) + 1
        if not data[start:found].strip():
            return start
        position = data.find(b"\n", found) + 1 or len(data)  # no later '[' on this line starts it


_COMMENT = re.compile(rb"#[^\n]*")


def _uncommented(block):
    """`block` with every comment blanked (lines and line numbers stay)."""
    return _COMMENT.sub(b"", block) if b"#" in block else block


class _Settings:
    """What the header says, parsed: counts, rate, rotation order and units, axes."""

    def __init__(self, header, error, lines=None):
        """`lines`: (first, last) line of the [Header] section, named when a keyword is missing."""
        where = (
            "" if lines is None else f", lines {lines[0]}-{lines[1]}" if lines[1] > lines[0] else f", line {lines[0]}"
        )

        def value(key, default=None):
            found = header.get(key.lower())
            if found is None and default is None:
                raise error(f"missing {key} in [Header]{where}", lines and lines[0])
            return (found[1], found[2]) if found else (default, None)

        def number(key, check, expected, default=None):
            text, line = value(key, default)
            result = parse_number(text)
            if result is None or not check(result):
                raise error(f"{key}: expected {expected}, found {text[:40]!r}", line)
            return result

        text, line = value("FileType", "htr")
        if text.lower() not in ("htr", "gtr"):
            raise error(f"FileType: expected htr or gtr, found {text[:40]!r}", line)
        self.gtr = text.lower() == "gtr"
        self.segments = int(number("NumSegments", _whole, "a whole number"))
        self.frames = int(number("NumFrames", _whole, "a whole number"))
        self.fps = number("DataFrameRate", lambda v: v > 0, "a positive frame rate")
        self.scale_factor = number("ScaleFactor", lambda v: v > 0, "a positive number", "1")
        text, line = value("EulerRotationOrder")
        if sorted(text.upper()) != ["X", "Y", "Z"]:
            raise error(f"EulerRotationOrder: expected a permutation of XYZ, found {text[:40]!r}", line)
        self.euler_order = text.upper()
        text, line = value("RotationUnits", "Degrees")
        if not text.lower().startswith(("deg", "rad")):
            raise error(f"RotationUnits: expected Degrees or Radians, found {text[:40]!r}", line)
        self.degrees = text.lower().startswith("deg")
        text, line = value("BoneLengthAxis", "Y")
        if text.upper() not in ("X", "Y", "Z"):
            raise error(f"BoneLengthAxis: expected X, Y or Z, found {text[:40]!r}", line)
        self.bone_axis = "XYZ".index(text.upper())
        self.up_axis = value("GlobalAxisofGravity", "Y")[0]
        self.units = header.get("calibrationunits", (None, None))[1]

    def order(self, reading):
        """(order of the Motion's Euler angles, indices that take the file's Rx Ry Rz to it)."""
        order = self.euler_order if reading == "product" else self.euler_order[::-1]
        return order, ["XYZ".index(a) for a in order]

    def radians(self, angles):
        return np.radians(angles) if self.degrees else np.asarray(angles, dtype=float)


def _whole(value):
    return value >= 0 and value == int(value)


def bvh_to_htr(motion, *, bone_axis="Y", order=None):
    """The motion with HTR's base pose: every segment's bone (toward its first child with an
    offset, else its End Site) along `bone_axis` of its own frame, base rotations recovered from
    the offsets (seed eqs. 4.1-4.9), frame rotations re-based onto them, all in one Euler `order`
    (default: the first joint's, as the seed does). World joint positions are unchanged. Works on
    any Motion (a BVH, or one with rest rotations of its own, which are folded in first).

    SF of a segment is its bone child's distance over its bone length in each frame (1 when the
    distance does not change): the Motion Analysis convention (docs/htr.md).
    """
    order = (order or motion.euler_orders[0]).upper() if motion.skeleton.joint_count else "ZYX"
    result, lengths = rebase.bone_rest(motion, bone_axis, [order] * motion.skeleton.joint_count)
    _, children = rebase.bone_vectors(motion.skeleton)
    scales = np.ones((motion.frame_count, motion.skeleton.joint_count))
    joints = np.flatnonzero(children >= 0)
    scales[:, joints] = np.linalg.norm(motion.translations[:, children[joints]], axis=-1) / lengths[joints]
    s = result.skeleton
    skeleton = Skeleton(
        s.names,
        s.parents,
        s.offsets,
        channels=[_channels(order, p < 0) for p in s.parents],
        end_site_parents=s.end_site_parents,
        end_site_offsets=s.end_site_offsets,
        rest_rotations=s.rest_rotations,
    )
    header = dict(_DEFAULTS, EulerRotationOrder=order, BoneLengthAxis=bone_axis.upper())
    record = {
        "format": "htr",
        "header": [[key, header[key]] for key in HEADER_KEYS if key in header],
        "euler_reading": "product",
        "bone_length_axis": bone_axis.upper(),
        "bone_lengths": dict(zip(s.names, lengths.tolist())),
    }
    return Motion(
        skeleton,
        motion.fps,
        result.euler,
        result.euler_orders,
        result.translations,
        scales,
        frame_time_text=motion.frame_time_text,
        record=record,
    )


def htr_to_bvh(motion):
    """The motion with identity rest rotations (BVH's rest pose is HTR's base pose), each
    segment's rotations in its Euler order: position and rotation channels on roots, rotation
    channels elsewhere (the BVH writer adds position channels where translations move). World
    joint positions are unchanged; SF stays in `scales`, which BVH cannot hold."""
    result = rebase.identity_rest(motion)
    s = result.skeleton
    skeleton = Skeleton(
        s.names,
        s.parents,
        s.offsets,
        channels=[_channels(o, p < 0) for o, p in zip(result.euler_orders, s.parents)],
        end_site_parents=s.end_site_parents,
        end_site_offsets=s.end_site_offsets,
    )
    return Motion(skeleton, result.fps, result.euler, result.euler_orders, result.translations, result.scales)


def write_htr(motion, path, *, precision=6, header=None, euler_reading=None, file_type="htr"):
    """Write `motion` to an HTR file; the file appears only once it is complete.

    A motion read from HTR is written as it is (its header, segment order, base angles and frame
    numbers as read: a round trip is exact to the printed precision); any other (BVH, ASF) gets
    HTR's base pose first (bvh_to_htr, along the header's BoneLengthAxis).

    precision      decimals of every number (default 6)
    header         {keyword: value text} over the motion's header (or the defaults: mm, Degrees,
                   Y up, bones along Y), e.g. {"CalibrationUnits": "cm"}; EulerRotationOrder and
                   RotationUnits convert the angles
    euler_reading  how EulerRotationOrder is written ("product" or "applied"; default: as read)
    file_type      "htr", or "gtr" to write every segment global (no hierarchy section)
    """
    record, names = motion.record, motion.skeleton.names
    _require_bounded(motion, names)  # as given, before a conversion turns an infinity into NaNs elsewhere
    reading = euler_reading or record.get("euler_reading", "product")
    if reading not in READINGS:
        raise ValueError(f"euler_reading must be one of {READINGS}, not {euler_reading!r}")
    merged = _header(motion, header or {}, reading, file_type)
    settings = _Settings({k: (*v, None) for k, v in merged.items()}, lambda what, line: ValueError(what))
    order, _ = settings.order(reading)
    to_axes = [order.index(a) for a in "XYZ"]  # the file lists Rx Ry Rz
    if not (record.get("format") in ("htr", "gtr") and set(names) <= set(record.get("bone_lengths", ()))):
        motion = bvh_to_htr(motion, bone_axis="XYZ"[settings.bone_axis], order=order)
    if file_type == "gtr" and (motion.skeleton.parents >= 0).any():
        motion = _global(motion)
    record = motion.record
    _require_bounded(motion, names)
    for name in names:
        if not name or name != name.strip() or any(c in name for c in "\t\r\n#[]") or name.upper() == "GLOBAL":
            raise ValueError(f"segment name {name!r} cannot be written to HTR")
    lengths = np.array([record["bone_lengths"][n] for n in names], dtype=float)
    require_bounded(lengths, lambda j: f"bone length of segment {names[j]!r}")
    if motion.scales is not None:  # SF sizes the segment: the reader bounds SF x BoneLength too
        require_bounded(motion.scales * lengths, lambda f, j: f"SF x BoneLength of segment {names[j]!r} at frame {f}")
    base = _base_angles(motion, order, record.get("base_euler", {}))
    index = {n: j for j, n in enumerate(names)}
    file_order = [index[n] for n in record.get("segment_order", ()) if n in index]
    file_order = file_order if sorted(file_order) == list(range(len(names))) else list(range(len(names)))
    unit = np.degrees if settings.degrees else np.asarray
    angles = unit(motion.euler_in(order)[..., to_axes])
    moves = motion.translations - motion.skeleton.offsets
    for table, kind in ((moves, "T"), (angles, "R")):  # a huge finite value can overflow in the conversion
        require_bounded(table, lambda f, j, i: f"{kind}{'xyz'[i]} of segment {names[j]!r} at frame {f} (as written)")  # noqa: B023 - called at once
    first = record.get("first_frame", 1)
    lines = ["# Hierarchical Translation-Rotation file (mocap_io)", "[Header]", "# KeyWord<space>Value"]
    lines += [f"{k} {v}" for k, v in merged.values()]
    if file_type != "gtr":
        lines += ["[SegmentNames&Hierarchy]", "# ObjectName<tab>ParentObjectName"]
        lines += [f"{names[j]}\t{names[p] if (p := motion.skeleton.parents[j]) >= 0 else 'GLOBAL'}" for j in file_order]
    lines += ["[BasePosition]", "#SegmentName\tTx\tTy\tTz\tRx\tRy\tRz\tBoneLength"]
    rows = np.column_stack([motion.skeleton.offsets, unit(base), lengths])[file_order]
    numbers = format_table(rows, precision, separator="\t").decode().splitlines()
    lines += [f"{names[j]}\t{text}" for j, text in zip(file_order, numbers)]
    lines.append("#Beginning of Data.")
    frames = first + np.arange(motion.frame_count, dtype=float)
    scales = np.ones(motion.euler.shape[:2]) if motion.scales is None else motion.scales
    with atomic_write(path) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))
        for j in file_order:
            f.write(f"[{names[j]}]\n#Fr\tTx\tTy\tTz\tRx\tRy\tRz\tSF\n".encode())
            table = np.column_stack(
                [
                    frames,
                    moves[:, j],
                    angles[:, j],
                    scales[:, j],
                ]
            )
            for block in format_blocks(table, precision, separator="\t", whole=1):
                f.write(block)
        f.write(b"[EndOfFile]\n")


def _header(motion, header, reading, file_type):
    """{lower-case keyword: [keyword, value]}: the motion's header (else the defaults) with the
    keywords of `header` over it, counts, rate and rotation order from the motion."""
    merged = {k.lower(): [k, v] for k, v in motion.record.get("header", [])}
    for key in HEADER_KEYS:
        merged.setdefault(key.lower(), [key, _DEFAULTS.get(key, "")])
    for key, value in header.items():
        merged.setdefault(key.lower(), [key, ""])[1] = str(value)
    computed = {"FileType": file_type, "NumSegments": motion.skeleton.joint_count, "NumFrames": motion.frame_count}
    computed["DataFrameRate"] = _rate_text(motion, merged["dataframerate"][1])
    if "eulerrotationorder" not in {key.lower() for key in header}:
        first = motion.euler_orders[0] if motion.skeleton.joint_count else "ZYX"
        computed["EulerRotationOrder"] = first if reading == "product" else first[::-1]
    for key, value in computed.items():
        merged[key.lower()][1] = str(value)
    return merged


def write_gtr(motion, path, **options):
    """Write `motion` to a GTR file: every segment global (see write_htr for the options)."""
    write_htr(motion, path, file_type="gtr", **options)


def _global(motion):
    """The motion with every segment a root: its world rest frame as base, its world motion as frames."""
    s = motion.skeleton
    rest, positions = s.rest_world()
    world, position = motion.world_transforms(scaled=False)
    euler = np.empty_like(motion.euler)
    for j, order in enumerate(motion.euler_orders):
        turned = rotations.sandwich(rest[j].T, world[:, j], np.eye(3))
        euler[:, j] = rotations.unwrap_euler(rotations.matrix_to_euler(turned, order))
    skeleton = Skeleton(
        s.names,
        np.full(s.joint_count, -1),
        positions,
        channels=[_channels(o, True) for o in motion.euler_orders],
        end_site_parents=s.end_site_parents,
        end_site_offsets=s.end_site_offsets,
        rest_rotations=rest,
    )
    record = {**motion.record, "format": "gtr", "base_euler": {}, "segment_order": s.names}
    return Motion(skeleton, motion.fps, euler, motion.euler_orders, position, motion.scales, record=record)


def _base_angles(motion, order, as_read):
    """(J, 3) base rotation angles Rx Ry Rz (radians): as read while they still give the rest
    rotation, else recovered from it."""
    rest = motion.skeleton.rest_rotations
    by_axis = ["XYZ".index(a) for a in order]
    out = np.zeros((motion.skeleton.joint_count, 3))
    for j, name in enumerate(motion.skeleton.names):
        matrix = np.eye(3) if rest is None else rest[j]
        angles = as_read.get(name)
        if angles is not None and np.allclose(
            rotations.euler_to_matrix(np.asarray(angles)[by_axis], order), matrix, atol=1e-12
        ):
            out[j] = angles
        else:
            out[j, by_axis] = rotations.matrix_to_euler(matrix, order)
    return out


def _rate_text(motion, text):
    """DataFrameRate: `text` (as read) while it stands for the rate, else the standard rate a
    BVH Frame Time stands for when whole, else the rate itself (whole rates print as integers:
    readers parse DataFrameRate with atoi)."""
    if parse_number(text) == motion.fps:
        return text
    rate = motion.fps
    if stands_for(motion.frame_time_text, rate):
        rate = float(snap_rate(motion.frame_time_text))
    return shortest(rate)  # whole rates as integers: readers parse DataFrameRate with atoi


def _require_bounded(motion, names):
    """Raise ValueError naming the segment (and frame) of a number that is not finite or beyond
    errors.LARGEST, or a rate outside errors.RATES (what the reader accepts)."""
    s = motion.skeleton
    require_rate(motion.fps, "DataFrameRate")
    require_bounded(s.offsets, lambda j, axis: f"base T{'xyz'[axis]} of segment {names[j]!r}")
    require_bounded(motion.euler, lambda f, j, i: f"rotation {i + 1} of segment {names[j]!r} at frame {f}")
    require_bounded(motion.translations, lambda f, j, axis: f"T{'xyz'[axis]} of segment {names[j]!r} at frame {f}")
    if motion.scales is not None:
        require_bounded(motion.scales, lambda f, j: f"SF of segment {names[j]!r} at frame {f}")
    if s.rest_rotations is not None:
        require_bounded(s.rest_rotations, lambda j, *_: f"base rotation of segment {names[j]!r}")
