"""HTR and GTR reader: a small parser for the sections before the data, one vectorised parse of
all segment blocks (a block is parsed alone only to name an error or to read leniently)."""

import os
import re
import warnings

import numpy as np

from ... import rotations
from ...errors import FileWarning, ParseError, beyond, check_bound, check_rate, first_beyond
from ...inputs import read_input, without_bom
from ...motion import Motion
from ...numtext import decode_text, line_of_row, normalize_newlines, parse_number, parse_table
from ...skeleton import CyclicHierarchy, parents_first, renumbered
from .convert import drawn_lengths, segments
from .header import READINGS, HtrRecord, Settings

_FRAME_COLUMNS = 8  # Frame# Tx Ty Tz Rx Ry Rz SF


def read_htr(path: str | os.PathLike, *, euler_reading: str = "product", strict: bool = True) -> Motion:
    """Read an HTR or GTR file into a Motion (angles in radians, lengths in file units).

    euler_reading  "product" (default): EulerRotationOrder "ZYX" means R = Rz @ Ry @ Rx, letters
                   left to right as the matrix product (Meredith and Maddock's notation, section
                   2.2, as BVH channels); "applied": the letters name the rotations in the order
                   they apply to a vector (R = Rx @ Ry @ Rz). docs/htr.md has the evidence for
                   the default.
    strict         if False, segment blocks with fewer or more rows than NumFrames are read with a
                   warning (all cut to the shortest) instead of raising ParseError
    """
    if euler_reading not in READINGS:
        raise ValueError(f"euler_reading must be one of {READINGS}, not {euler_reading!r}")
    data = without_bom(normalize_newlines(read_input(path)))
    head = _Head(path)
    head.parse(data)
    settings = Settings(head.header, head.error, head.header_lines())
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
    tips = np.outer(lengths[leaves], np.eye(3)[settings.bone_axis])
    skeleton = segments(names, parents, base[:, :3], [order] * len(names), leaves, tips, rest)
    index = {name: j for j, name in enumerate(names)}
    record = HtrRecord(
        header=tuple((key, value) for key, value, _ in head.header.values()),
        euler_reading=euler_reading,
        file_order=tuple(index[n] for n in head.names_as_written(settings.gtr)),
        first_frame=first_frame,
        drawn_lengths=drawn_lengths(skeleton, lengths, "XYZ"[settings.bone_axis]),
    )
    return Motion(skeleton, settings.fps, euler, [order] * len(names), translations, scales, record=record)


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
