"""AMC reader: the motion file of an ASF skeleton, vectorised over the whole file.

An AMC is a frame number alone on its line, then one line per bone: its name and its dof values.
The lines are found, classified (frame number or bone) and checked with array operations over all
of them at once; the numbers are parsed in one pass (numtext.decimal_values). Lines in the same
order in every frame (what producers write) are recognised by one comparison with the first frame;
any other order goes through a sort of the names.
"""

import os
import re
import warnings

import numpy as np

from ...errors import BYTES_PER_JOINT_FRAME, FileWarning, ParseError, beyond, check_memory, check_rate, first_beyond
from ...inputs import read_input, without_bom
from ...motion import Motion
from ...numtext import decimal_values, normalize_newlines, parse_number, parse_numbers, ranges
from ...skeleton import Skeleton
from .reader_asf import AsfRecord

DEFAULT_FPS = 120.0  # AMC files store no rate; CMU and HDM05 takes are 120 Hz
_FRAME = re.compile(rb"^[ \t]*[0-9]+[ \t]*\r?$", re.MULTILINE)
_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\r\n\x0b\x0c")] = True
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[list(b"0123456789")] = True
_PAD = 17  # spaces after the text, so that 8-byte words can be read at any token
_KEY_COST = 11  # bytes each byte of a row's key takes while keys are cut out: its index, itself, two masks
_KNOWN = (":FULLY-SPECIFIED", ":FRAME-RANGE", ":ASF-FILE", ":ASF-PATH")


def read_amc(
    path: str | os.PathLike, skeleton: Skeleton, *, fps: float | None = None, fill_missing: bool = False
) -> Motion:
    """Read an AMC file of `skeleton` (from read_asf) into a Motion sharing that Skeleton.

    fps           the frame rate; None: the file's :SAMPLES-PER-SECOND, else 120 (AMC files of CMU and
                  HDM05 store none)
    fill_missing  a bone missing from a frame takes its values from the previous frame (instead of
                  a ParseError naming the frame's line)
    Angles: :DEGREES / :RADIANS of the AMC, else the ASF's :units. Frame numbers may start anywhere
    but must count up by one.
    """
    record = skeleton.record
    if not isinstance(record, AsfRecord):
        raise ValueError("read_amc needs the Skeleton of an ASF (read_asf), which knows the bones' axes and dofs")
    data = normalize_newlines(read_input(path))
    size = len(data)
    data = without_bom(data, keep_offsets=True)  # same offsets, same lines
    found = _FRAME.search(data)
    start = found.start() if found else len(data)
    degrees, rate = _header(path, data[:start], record.degrees)
    first_line = data.count(b"\n", 0, start) + 1
    body = data[start:]
    del data
    layout = _Lines(path, body, first_line, skeleton)
    frames = layout.frame_count
    need = frames * skeleton.joint_count * BYTES_PER_JOINT_FRAME  # a frame of dof-less bones takes a few bytes
    check_memory(path, need, size, f"{frames} frames x {skeleton.joint_count} bones", line=first_line)
    values = layout.values(fill_missing)
    fps = rate if fps is None else fps
    with np.errstate(over="ignore", invalid="ignore"):  # refused below
        motion = _motion(skeleton, DEFAULT_FPS if fps is None else fps, values, frames, degrees)
    bad = first_beyond(motion.translations)
    if bad is not None:  # tx ty tz and l x direction, in the units of the skeleton (metres)
        frame, joint, axis = bad
        what = f"bone {skeleton.names[joint][:80]!r}: its translation {'xyz'[axis]} in this frame"
        raise layout.error(beyond(what, motion.translations[bad]), layout.markers[frame])
    return motion


def _header(path, header, degrees):
    """Angle unit (True for degrees) and rate (or None) from the lines before the first frame."""
    rate = None
    for number, line in enumerate(header.split(b"\n"), 1):
        tokens = line.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        keyword = tokens[0].decode("latin-1").upper()
        if keyword == ":DEGREES":
            degrees = True
        elif keyword == ":RADIANS":
            degrees = False
        elif keyword == ":SAMPLES-PER-SECOND":
            rate = parse_number(tokens[1]) if len(tokens) == 2 else None
            if rate is None or rate <= 0:
                raise ParseError(path, "expected a positive number after :SAMPLES-PER-SECOND", line=number)
            check_rate(path, rate, ":SAMPLES-PER-SECOND", line=number)
        elif keyword.startswith(":"):
            if keyword not in _KNOWN:
                what = f"unknown AMC keyword {keyword[:40]!r} ignored"
                warnings.warn(f"{path}, line {number}: {what}", FileWarning, stacklevel=3)
        else:
            shown = line.strip().decode("latin-1")[:60]
            raise ParseError(path, f"expected a frame number (alone on its line), found {shown!r}", line=number)
    return degrees, rate


class _Lines:
    """The non-blank lines of the frames ("rows"): their tokens, frame and bone, checked against
    the skeleton; then the values of every bone in every frame. Token starts are found once; each
    row's first token is read from a few bytes at its start."""

    def __init__(self, path, body, first_line, skeleton):
        self.path, self.first_line, self.skeleton = path, first_line, skeleton
        self.dof_counts = np.array([len(c) for c in skeleton.channels])
        text = np.full(8 + len(body) + _PAD, 32, dtype=np.uint8)  # spaces around: 8-byte words stay inside
        text[8 : 8 + len(body)] = np.frombuffer(body, dtype=np.uint8)
        newlines = np.flatnonzero(text == 10)
        if b"#" in body:  # a comment runs to the end of its line
            hashes = np.flatnonzero(text == 35)
            marks = np.zeros(len(text) + 1, dtype=np.int32)
            np.add.at(marks, hashes, 1)
            np.add.at(marks, np.append(newlines, len(text))[np.searchsorted(newlines, hashes)], -1)
            text[np.cumsum(marks[:-1]) > 0] = 32
        space = text <= 32
        if np.count_nonzero(text < 32) > len(newlines) + body.count(b"\r") + body.count(b"\t"):
            space = _SPACE[text]  # other control characters are part of a (bad) token
        edges = np.flatnonzero(space[1:] != space[:-1]) + 1  # a token's start, its end, the next start...
        self.starts, self.ends = edges[0::2], edges[1::2]  # (the text starts and ends with spaces)
        firsts = np.searchsorted(self.starts, np.concatenate(([0], newlines + 1)))  # each line's first token
        counts = np.diff(firsts, append=len(self.starts))
        rows = np.flatnonzero(counts)
        self.text, self.line, self.heads, self.token_counts = text, rows, firsts[rows], counts[rows]
        self.marker = (self.token_counts == 1) & _DIGIT[text[self.starts[self.heads]]]
        self.markers = np.flatnonzero(self.marker)
        self.frame = np.cumsum(self.marker) - 1  # the body starts with a frame number
        self.frame_count = len(self.markers)
        self.pattern = None  # the bones of every frame, in order, when all frames list the same
        self.bone = self.bones()

    def error(self, what, row):
        """ParseError at row `row`."""
        return ParseError(self.path, what, line=self.first_line + int(self.line[row]))

    def bones(self):
        """Joint index of each row (-1 for frame numbers), from its first token."""
        index = {}
        for j, name in enumerate(self.skeleton.names):  # the AMC's bytes may be either
            index[name.encode("utf-8")] = j
            index.setdefault(name.encode("latin-1", "replace"), j)
        width = max(len(n) for n in index) + 1  # longer tokens cannot match, cut or not
        what = f"matching {len(self.heads)} lines against bone names of {width - 1} bytes"
        check_memory(
            self.path, _KEY_COST * len(self.heads) * width, len(self.text) - 8 - _PAD, what, line=self.first_line
        )
        starts = self.starts[self.heads]
        per_frame = np.diff(np.append(self.markers, len(starts)))
        if len(per_frame) and (per_frame == per_frame[0]).all():  # the usual file: the first frame's lines repeat
            keys, lengths = self.keys(starts[1 : per_frame[0]], width)
            if self.repeats(starts, lengths, per_frame[0]):
                self.pattern = self.lookup(keys, index, np.arange(1, per_frame[0]))
                return np.tile(np.concatenate(([-1], self.pattern)), self.frame_count)
        keys = self.keys(starts, width)[0]
        rows = np.flatnonzero(~self.marker)
        unique, inverse = np.unique(keys[rows], return_inverse=True)
        inverse = inverse.ravel()
        first = np.full(len(unique), len(rows))
        np.minimum.at(first, inverse, np.arange(len(rows)))
        bone = np.full(len(keys), -1)
        bone[rows] = self.lookup(unique, index, rows[first])[inverse]
        return bone

    def keys(self, starts, width):
        """The tokens at `starts` as bytes keys of `width` (longer ones cut), and their lengths."""
        keys = self.text[np.minimum(starts[:, None] + np.arange(width), len(self.text) - 1)]  # the end is a space
        blank = _SPACE[keys]
        lengths = np.where(blank.any(axis=1), blank.argmax(axis=1), width)
        keys[np.arange(width) >= lengths[:, None]] = 0
        return np.ascontiguousarray(keys).view(f"S{width}").ravel(), lengths

    def repeats(self, starts, lengths, period):
        """Whether every frame's rows begin with the first frame's tokens of `lengths` and a space
        or tab after each, compared 8 bytes at a time."""
        if not len(lengths):
            return True
        words = np.ndarray((len(self.text) - 7,), dtype="<u8", buffer=self.text, strides=(1,))  # 8 bytes at each
        columns = np.repeat(np.arange(1, period), (lengths + 8) // 8)  # the words of a row's name and a space
        at = np.concatenate([np.arange(0, n + 1, 8) for n in lengths])
        keep = (np.uint64(1) << (8 * np.minimum(8, lengths[columns - 1] + 1 - at)).astype(np.uint64)) - np.uint64(1)
        keep[lengths[columns - 1] + 1 - at >= 8] = np.uint64(2**64 - 1)
        grid = words[np.ascontiguousarray(starts.reshape(self.frame_count, period)[:, columns] + at)] & keep
        return (grid == grid[0]).all() and _SPACE[self.text[starts[1:period] + lengths]].all()

    def lookup(self, keys, index, rows):
        """Joint indices of name keys; ParseError at the row of an unknown name."""
        found = np.empty(len(keys), dtype=np.intp)
        for k, key in enumerate(keys):
            j = index.get(bytes(key))
            if j is None:
                shown = bytes(key).decode("latin-1")
                what = "the frame number alone on its line" if shown.isdigit() else f"a bone name, found {shown[:40]!r}"
                raise self.error(f"expected {what}", rows[k])
            found[k] = j
        return found

    def values(self, fill_missing):
        """(frames, dofs) table of every joint's dof values, in the skeleton's dof order."""
        names, counts = self.skeleton.names, self.dof_counts
        rows = np.flatnonzero(~self.marker)
        wrong = rows[self.token_counts[rows] != 1 + counts[self.bone[rows]]]
        if len(wrong):
            j = self.bone[wrong[0]]
            dofs = " ".join(self.skeleton.channels[j]) or "none"
            raise self.error(
                f"bone {names[j][:80]!r} has {counts[j]} dofs ({dofs}): expected {counts[j]} values, "
                f"found {self.token_counts[wrong[0]] - 1}",
                wrong[0],
            )
        return self.irregular(rows, fill_missing) if self.pattern is None else self.regular(self.pattern)

    def regular(self, pattern):
        """The values when every frame lists the first frame's bones (`pattern`, their joints in
        order): each frame a row of numbers."""
        names, counts = self.skeleton.names, self.dof_counts
        first = {}
        for k, j in enumerate(pattern, 1):
            if j in first:
                raise self.error(f"second line for bone {names[j][:80]!r} in this frame", k)
            first[j] = k
        missing = [j for j in np.flatnonzero(counts) if j not in first]
        if missing:
            raise self.error(f"this frame has no line for bone {names[missing[0]][:80]!r}", 0)
        table = self.numbers()[0].reshape(self.frame_count, -1)  # its number, then its bones' values
        self.check_frame_numbers(table[:, 0])
        start = dict(zip(pattern, np.cumsum(np.concatenate(([1], counts[pattern])))))
        gather = [start[j] + np.arange(int(counts[j])) for j in np.flatnonzero(counts)]
        return table[:, np.concatenate(gather).astype(np.intp) if gather else []]

    def irregular(self, rows, fill_missing):
        """The values when frames list bones in other orders or leave some out."""
        names, counts, frames = self.skeleton.names, self.dof_counts, self.frame_count
        code = self.frame[rows] * len(names) + self.bone[rows]
        order = np.argsort(code, kind="stable")
        repeated = rows[order[1:][code[order][1:] == code[order][:-1]]]
        if len(repeated):
            row = repeated.min()
            raise self.error(f"second line for bone {names[self.bone[row]][:80]!r} in this frame", row)
        numbers, first_value = self.numbers()
        self.check_frame_numbers(numbers[first_value[self.markers]])
        table = np.empty((frames, int(counts.sum())))
        column = np.concatenate(([0], np.cumsum(counts)))
        by_bone = rows[np.argsort(self.bone[rows], kind="stable")]  # each bone's rows together: one sort
        bounds = np.searchsorted(self.bone[by_bone], np.arange(len(names) + 1))
        for j in np.flatnonzero(counts):
            mine = np.full(frames, -1)
            present = by_bone[bounds[j] : bounds[j + 1]]
            mine[self.frame[present]] = present
            missing = np.flatnonzero(mine < 0)
            if len(missing):
                if not fill_missing or missing[0] == 0:
                    hint = "" if fill_missing else " (fill_missing=True takes the previous frame's)"
                    raise self.error(
                        f"this frame has no line for bone {names[j][:80]!r}{hint}", self.markers[missing[0]]
                    )
                mine = mine[np.maximum.accumulate(np.where(mine < 0, 0, np.arange(frames)))]
            table[:, column[j] : column[j + 1]] = numbers[first_value[mine][:, None] + np.arange(1, counts[j] + 1)]
        return table

    def check_frame_numbers(self, numbers):
        """ParseError unless the frame numbers count up by one."""
        skips = np.flatnonzero(np.diff(numbers) != 1)
        if len(skips):
            before, after = numbers[skips[0] : skips[0] + 2]
            raise self.error(
                f"expected frame {before + 1:.0f} after frame {before:.0f}, found {after:g}", self.markers[skips[0] + 1]
            )

    def numbers(self):
        """Every number of the rows, flat (the names left out), and the index among them of each
        row's first token (a frame number; for a bone row, one before its first value)."""
        names = self.heads[~self.marker]
        number = np.ones(len(self.starts), dtype=bool)
        number[names] = False
        chosen = np.flatnonzero(number)
        numbers = decimal_values(self.text, self.starts[chosen], self.ends[chosen])
        if numbers is None:  # longer numbers than the fast path reads, or a bad token
            text = self.text.copy()
            text[ranges(self.starts[names], self.ends[names])] = 32
            numbers = parse_numbers(text.tobytes())
            if numbers is None:
                bad = (k for k in chosen if parse_number(bytes(text[self.starts[k] : self.ends[k]])) is None)
                token = next(bad, chosen[0])
                shown = bytes(text[self.starts[token] : self.ends[token]]).decode("latin-1")[:40]
                raise self.error(
                    f"expected a finite number, found {shown!r}", np.searchsorted(self.heads, token, "right") - 1
                )
        bad = first_beyond(numbers)
        if bad is not None:  # a number too large for what it feeds (l x direction, FK sums)
            token = chosen[bad[0]]
            shown = bytes(self.text[self.starts[token] : self.ends[token]]).decode("latin-1")[:40]
            row = np.searchsorted(self.heads, token, "right") - 1
            raise self.error(beyond(f"value {shown!r}", numbers[bad]), row)
        return numbers, self.heads - np.cumsum(~self.marker)


def _motion(skeleton, fps, table, frames, degrees):
    """Scatter the dof columns into Euler angles and translations (the Acclaim FK, see reader_asf)."""
    record, count, parents = skeleton.record, skeleton.joint_count, skeleton.parents
    orders = skeleton.euler_orders()  # the dofs as they apply, so the product in reverse
    sources, targets, moves, stretch = [], [], {}, {}
    column = 0
    for j, dofs in enumerate(skeleton.channels):
        for dof in dofs:
            kind, axis = dof[0].lower(), dof[-1].upper()
            if kind == "r":
                sources.append(column)
                targets.append(3 * j + orders[j].index(axis))
            elif kind == "t":  # along the parent's rest axes (world axes for the root)
                moves.setdefault(j, np.zeros((frames, 3)))[:, "XYZ".index(axis)] = table[:, column]
            else:  # l: the bone's end moves along its direction
                stretch[j] = np.multiply.outer(table[:, column], record.bones[skeleton.names[j]].direction)
            column += 1
    euler = np.zeros((frames, count, 3))
    euler.reshape(frames, 3 * count)[:, targets] = np.radians(table[:, sources]) if degrees else table[:, sources]
    translations = np.empty((frames, count, 3))
    translations[:] = skeleton.offsets
    if moves or stretch:
        frame = skeleton.rest_world()[0]  # C of each joint (its rest world rotation)
        for j in range(count):
            p = parents[j]
            moved = moves.get(j, 0.0) + stretch.get(p, 0.0) if p >= 0 else moves.get(j, 0.0)
            if np.ndim(moved):
                translations[:, j] += record.scale * (moved if p < 0 else moved @ frame[p])
    return Motion(skeleton, fps, euler, orders, translations)
