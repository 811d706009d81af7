"""TRC (Motion Analysis track row column): marker positions as text, one row per frame.

Five header lines (file type; header names; header values: DataRate, CameraRate, NumFrames,
NumMarkers, Units, OrigDataRate, OrigDataStartFrame, OrigNumFrames; marker names, each over three
columns; X1 Y1 Z1 ...), then rows of frame number, time and x y z per marker. Fields are separated
by tabs (or, in files without tabs, by spaces); an empty field is a missing coordinate (NaN).
"""

import io
import os
import re
import warnings

import numpy as np

from ..atomic import atomic_write
from ..errors import LARGEST, FileWarning, ParseError, beyond, check_memory, check_rate, memory_allowed
from ..inputs import open_input, without_bom
from ..markers import Markers
from ..numtext import (
    decimal_digits,
    decimal_values,
    decode_text,
    format_decimals,
    line_of_row,
    parse_number,
    parse_numbers,
    positional,
    ranges,
    shortest,
    trim_zeros,
)
from ..parallel import parallel_stream

_BLOCK = 1 << 22  # bytes read at a time
_CHUNK = 1 << 19  # bytes of whole lines parsed per task (numtext's decimal parser takes them in one piece)
_LONE_CR = re.compile(rb"\r(?![\r\n])")
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_NAN = re.compile(rb"[+-]?nan(?:\([0-9a-z_]*\))?", re.IGNORECASE)
_HEADER = (
    "DataRate",
    "CameraRate",
    "NumFrames",
    "NumMarkers",
    "Units",
    "OrigDataRate",
    "OrigDataStartFrame",
    "OrigNumFrames",
)


def read_trc(path):
    """Read a TRC file into Markers (float64 positions in the header's Units, NaN where missing).

    Marker names are kept exactly as written (spaces included). A file whose rows hold more
    coordinates than NumMarkers names gets the extra markers as point<n>, with a warning. The rows
    are read in chunks of lines parsed on parallel threads, straight into the positions array:
    time and memory grow with the file, never with a count it declares.
    """
    with open_input(path) as f:
        size = f.size
        lines, rest, f = _header_lines(path, f)
        text = [decode_text(line) for line in lines]
        fields = _split(text[0])
        if not fields or fields[0].lower() != "pathfiletype":
            raise ParseError(path, f"expected 'PathFileType' on the first line, found {text[0][:60]!r}", line=1)
        names, values = _split(text[1]), _split(text[2])
        if not values:
            raise ParseError(
                path, "expected the header values (DataRate, NumFrames, ...) on line 3, found none", line=3
            )
        header = {name: value for name, value in zip(names, values)}
        rate = _header_number(path, header, "DataRate")
        if not 0 < rate < float("inf"):
            raise ParseError(path, f"DataRate {rate}: expected a positive frame rate", line=3)
        check_rate(path, rate, "DataRate", line=3)
        for name in ("CameraRate", "OrigDataRate"):  # kept as text; a number must be a rate too
            other = parse_number(header.get(name, ""))
            if other is not None:
                check_rate(path, other, name, line=3)
        declared = int(_header_number(path, header, "NumMarkers"))
        frames_declared = int(_header_number(path, header, "NumFrames"))
        columns = text[3].split("\t")[2::3] if "\t" in text[3] else text[3].split()[2:]
        if not text[3].strip() or text[3].split()[0].lower() != "frame#":
            raise ParseError(path, f"expected 'Frame#' and the marker names on line 4, found {text[3][:60]!r}", line=4)
        rows = _Rows(path, size, 2 + 3 * max(declared, 0), frames_declared)
        first = rest + f.read(_BLOCK)
        tabs = b"\t" in first or not first.strip()
        chunks = parallel_stream(lambda chunk: _parse(path, chunk, tabs, rows.columns, size), _chunks(f, first))
        for table in _tables(path, chunks):
            rows.add(table)
    positions, first_frame, start_time = rows.result()
    count = positions.shape[1]
    marker_names = (columns + [""] * count)[:count]
    if count > max(declared, 0):
        warnings.warn(
            f"{path}: NumMarkers is {declared}, the rows hold coordinates of {count} markers: the extra ones are "
            f"named point<n>",
            FileWarning,
            stacklevel=2,
        )
    if len(positions) != frames_declared:
        warnings.warn(
            f"{path}: NumFrames is {frames_declared}, the file has {len(positions)} rows: reading them all",
            FileWarning,
            stacklevel=2,
        )
    units = header.get("Units", "").strip()
    return Markers(
        [name if name.strip() else f"point{i + 1}" for i, name in enumerate(marker_names)],
        positions,
        rate,
        units=units,
        first_frame=first_frame,
        metadata={"header": header, "path_file_type": fields[1:], "start_time": start_time},
    )


def _header_lines(path, f):
    """The five header lines (bytes, without line ends), the bytes read past them, and the file
    to read the rest from (an in-memory copy for a file with old Mac CR line ends)."""
    blocks = [f.read(_BLOCK)]
    lines = blocks[0].count(b"\n")
    while blocks[-1] and lines < 5:  # counted block by block, joined once: long header lines take linear time
        blocks.append(f.read(_BLOCK))
        lines += blocks[-1].count(b"\n")
    head = without_bom(b"".join(blocks))
    if not head.strip() and not (head + f.read()).strip():
        raise ParseError(path, "empty file, expected the TRC header (PathFileType ...)", line=1)
    if _LONE_CR.search(head):  # CR line ends: the whole file as LF lines, in memory (such files are small)
        head = (head + f.read()).replace(b"\r\r\n", b"\n").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        f = io.BytesIO()
    lines = head.split(b"\n", 5)
    lines += [b""] * (6 - len(lines))
    return [line.rstrip(b"\r") for line in lines[:5]], lines[5], f


def _chunks(f, block):
    """Pieces of whole lines of the rows, `block` then the rest of `f`: at most _CHUNK bytes each (or
    one longer line), cut at line ends; views of the blocks read (no copy) but where a line runs
    from one block into the next."""
    tail = []  # the start of a line that the previous blocks cut (joined once: a long line takes linear time)
    while True:
        more = f.read(_BLOCK)
        end = block.rfind(b"\n") + 1 if more else len(block)
        if more and not end:  # a line longer than a block
            tail.append(block)
            block = more
            continue
        start = 0
        if tail:
            start = block.find(b"\n", 0, end) + 1 or end
            yield b"".join([*tail, block[:start]])
        view = memoryview(block)
        while start < end:
            stop = block.rfind(b"\n", start, min(start + _CHUNK, end)) + 1 if end - start > _CHUNK else end
            if stop <= start:
                stop = block.find(b"\n", start, end) + 1 or end  # a line longer than a chunk
            yield view[start:stop]
            start = stop
        if not more:
            return
        tail, block = [block[end:]] if end < len(block) else [], more


def _tables(path, results):
    """The (table, bytes) of each chunk, its ParseError (which counts lines from the chunk's first)
    given the file's line number."""
    line = 6  # the first line after the header
    try:
        for table, size, lines in results:
            yield table, size
            line += lines
    except ParseError as error:
        raise ParseError(path, error.what, line=None if error.line is None else line + error.line - 1) from None


class _Rows:
    """The positions array, filled chunk by chunk: sized from the first chunk's rows per byte (or
    NumFrames where that agrees), grown by half when short, cut to the rows read at the end."""

    def __init__(self, path, size, columns, declared):
        self.path, self.size, self.columns, self.declared = path, size, columns, declared
        self.table: np.ndarray | None = None
        self.count = 0
        self.first: tuple[int, float] = (1, 0.0)  # the first row's frame number and time (these until a row is read)

    def add(self, chunk):
        table, nbytes = chunk
        rows, width = table.shape
        if not rows:
            return
        if self.table is None:
            self.first = (int(table[0, 0]), float(table[0, 1]))
            guess = int(rows * self.size / max(nbytes, 1) * 1.05) + 16
            capacity = self.declared if rows <= self.declared <= 2 * guess else guess
            allowed = memory_allowed(self.size) // (8 * max(width - 2, 1))
            self.table = np.empty((max(rows, min(capacity, allowed)), width - 2))
        held, have = self.table.shape
        need = self.count + rows
        if need > held or width - 2 > have:
            grown = max(held, need) if need <= held else max(need, held + held // 2)
            self.table = self._grow(self.table, grown, max(have, width - 2), need)
        block = self.table[self.count : need]
        block[:, : width - 2] = table[:, 2:]
        block[:, width - 2 :] = np.nan
        self.count = need

    def _grow(self, old, rows, width, need):
        """A (rows, width) table holding the rows filled so far of `old`, NaN beyond its width."""
        check_memory(self.path, rows * width * 8, self.size, f"{need} rows x {width + 2} columns", line=6)
        table = np.empty((rows, width))
        have = old.shape[1]
        table[: self.count, :have] = old[: self.count]
        table[: self.count, have:] = np.nan
        return table

    def result(self):
        """(positions (frames, markers, 3), first frame number, first time)."""
        if self.table is None:
            return np.zeros((0, (self.columns - 2) // 3, 3)), *self.first
        table = self.table
        if len(table) > self.count:
            table.resize((self.count, table.shape[1]), refcheck=False)  # in place: no copy
        self.table = None
        return table.reshape(self.count, -1, 3), *self.first


def _split(line):
    """Fields of a header line: tab-separated (blank trailing fields dropped), else space-separated."""
    if "\t" not in line:
        return line.split()
    fields = [f.strip() for f in line.split("\t")]
    while fields and not fields[-1]:
        fields.pop()
    return fields


def _header_number(path, header, name):
    if name not in header:
        raise ParseError(path, f"expected {name} among the header names on line 2", line=2)
    value = parse_number(header[name])
    if value is None:
        raise ParseError(path, f"{name} is {header[name][:40]!r}: expected a number", line=3)
    return value


def _parse(path, chunk, tabs, columns, size):
    """(rows, width) float64 table of one chunk of lines (NaN where a field is empty or `nan`), the
    chunk's size in bytes and its line count. Fields are tab-separated (or, `tabs` False,
    space-separated: then every row holds `columns` numbers). A ParseError counts lines from the
    chunk's first (line 1)."""
    rows, width, index, values = _fast(chunk, tabs, columns) or _scan(path, bytes(chunk), tabs, columns)
    with np.errstate(invalid="ignore"):
        over = np.flatnonzero(np.abs(values) > LARGEST)  # (NaN: a missing coordinate)
    if len(over):
        row, column = divmod(int(over[0] if index is None else index[over[0]]), width)
        shown = beyond(f"column {column + 1}", values[over[0]])
        raise ParseError(path, shown, line=1 + line_of_row(bytes(chunk), row))
    check_memory(path, rows * width * 8, size, f"{rows} rows x {width} columns", line=1)
    lines = np.count_nonzero(np.frombuffer(chunk, np.uint8) == 10)
    if index is None:
        return values.reshape(rows, width), len(chunk), lines
    table = np.full((rows, width), np.nan)
    table.reshape(-1)[index] = values
    return table, len(chunk), lines


def _fast(chunk, tabs, columns):
    """(rows, width, flat index or None (every cell, in order), values) of a chunk, found with array
    operations on its bytes; None for anything unusual (then `_scan` reads the chunk or names the
    error): a control character, two numbers in one field, a row without its frame number or time,
    a `nan` in those, a number beyond numtext's fast decimal path that numpy's parser cannot read.

    Tokens are the runs of printable bytes; between two of them, usually a single tab (the next
    column) or spaces, tabs and a line end (a new row, the tabs after the line end counting its
    columns). Only those irregular gaps are looked at byte by byte."""
    text = np.empty(len(chunk) + 25, np.uint8)  # 8 spaces before, 17 after: what the decimal parser reads around
    text[:8] = text[-17:] = 32
    text[8:-17] = np.frombuffer(chunk, np.uint8)
    if np.count_nonzero(text < 32) != sum(np.count_nonzero(text == c) for c in b"\t\n\r"):
        return None  # a control character
    if not np.count_nonzero(text > 32):
        return 0, columns, None, np.zeros(0)
    space = text <= 32
    edges = np.flatnonzero(space[:-1] != space[1:])
    edges += 1
    starts, ends = edges[0::2], edges[1::2]
    gaps = np.empty_like(starts)  # where the whitespace before each token begins
    gaps[0] = 8
    gaps[1:] = ends[:-1]
    if tabs:
        regular = (starts - gaps == 1) & (text[starts - 1] == 9)
    else:
        regular = (starts - gaps == 1) & (text[starts - 1] != 10)
    regular[0] = False  # the chunk starts a line
    odd = np.flatnonzero(~regular)
    lengths = starts[odd] - gaps[odd]
    gap = text[ranges(gaps[odd], starts[odd])]
    owner = np.repeat(np.arange(len(odd)), lengths)
    line_ends = np.concatenate([[0], np.cumsum(gap == 10)])
    first_byte = np.cumsum(lengths) - lengths
    before = line_ends[first_byte]  # line ends before each gap, and in it
    inside = line_ends[first_byte + lengths] - before
    new_row = inside > 0
    new_row[0] = True
    if tabs:  # columns moved: the tabs after the gap's last line end
        after_last = (gap == 9) & (line_ends[1:] == (before + inside)[owner])
        step = np.bincount(owner, weights=after_last, minlength=len(odd)).astype(np.intp)
        if (step[~new_row] == 0).any():
            return None  # two numbers in one field
    else:
        step = (~new_row).astype(np.intp)
    increment = np.ones(len(starts), np.intp)
    increment[odd] = step
    heads = odd[new_row]  # each row's first token
    total = np.cumsum(increment)
    row = np.zeros(len(starts), np.intp)
    row[heads[1:]] = 1
    np.cumsum(row, out=row)
    column = total - (total[heads] - increment[heads])[row]
    tails = np.append(heads[1:], len(starts)) - 1
    if (column[heads] != 0).any() or (tails == heads).any() or (column[heads + 1] != 1).any():
        return None  # a row without its frame number or time
    if not tabs and (tails - heads + 1 != columns).any():
        return None
    rows = len(heads)
    width = max(columns, int(column[tails].max()) + 1)
    width += -(width - 2) % 3
    lead = text[starts]
    maybe = np.flatnonzero(((lead | 32) == 110) | ((lead == 45) | (lead == 43)) & ((text[starts + 1] | 32) == 110))
    if len(maybe):  # `nan` (as OpenSim writes a missing marker): a missing coordinate
        letters = starts[maybe] + (text[starts[maybe]] < 48)  # after a sign
        plain = (ends[maybe] - letters == 3) & ((text[letters + 1] | 32) == 97) & ((text[letters + 2] | 32) == 110)
        other = maybe[~plain]  # nan(ind) and the like, or words: one by one
        if (column[maybe] < 2).any() or not all(_NAN.fullmatch(text[starts[i] : ends[i]].tobytes()) for i in other):
            return None
        keep = np.ones(len(starts), bool)
        keep[maybe] = False
        values = decimal_values(text, starts[keep], ends[keep])
        if values is None:
            text[ranges(starts[maybe], ends[maybe])] = 32
    else:
        keep = None
        values = decimal_values(text, starts, ends)
    if values is None:  # numbers beyond the fast path (more digits, large exponents): numpy's parser
        values = parse_numbers(text.tobytes())
        if values is None or len(values) != (len(starts) if keep is None else np.count_nonzero(keep)):
            return None
    if keep is None and len(starts) == rows * width:
        return rows, width, None, values  # every field filled: the values are the table
    index = row * width + column
    return rows, width, index if keep is None else index[keep], values


def _scan(path, chunk, tabs, columns):
    """`_fast`'s result read line by line, or the ParseError naming the first bad line."""
    bad = _CONTROL.search(chunk)
    if bad:
        raise ParseError(
            path, f"control character {bad.group()!r} in the data", line=1 + chunk.count(b"\n", 0, bad.start())
        )
    table = []
    for number, text in enumerate(chunk.split(b"\n")):
        fields = [field.strip() for field in text.split(b"\t")] if tabs else text.split()
        while fields and not fields[-1]:
            fields.pop()
        if not fields:
            continue
        where = 1 + number
        if not tabs and len(fields) != columns:
            raise ParseError(path, f"expected {columns} values in this frame line, found {len(fields)}", line=where)
        row = []
        for column, field in enumerate(fields):
            value = parse_number(field) if field else None
            if value is None and column < 2:
                what = "the frame number" if column == 0 else "the time"
                found = f"found {field[:40].decode('latin-1')!r}" if field else "found an empty field"
                raise ParseError(path, f"expected {what} in column {column + 1}, {found}", line=where)
            if value is None and field and not _NAN.fullmatch(field):
                found = field[:40].decode("latin-1")
                raise ParseError(path, f"column {column + 1}: expected a number, found {found!r}", line=where)
            row.append(np.nan if value is None else value)
        if len(row) < 2:
            raise ParseError(path, "expected the time in column 2, found an empty field", line=where)
        table.append(row)
    width = max([columns] + [len(row) for row in table])
    width += -(width - 2) % 3
    index = np.concatenate([i * width + np.arange(len(row)) for i, row in enumerate(table)] or [np.zeros(0, int)])
    values = np.array([value for row in table for value in row])
    return len(table), width, index, values


def write_trc(markers, path, *, precision=None):
    """Write `markers` as a tab-separated TRC file, atomically, as OpenSim writes one: every field
    of every row followed by a tab (a missing coordinate an empty field), so that every row holds
    all its fields for readers that count them (OpenSim refuses a row that ends early).

    precision  None: each coordinate as the shortest decimal that reads back as the same number of
               the positions' type (float32 data from a C3D reads back as the same float32);
               n: rounded to n decimals
    Times (the first row's time + i / rate) are written to 9 decimals, trailing zeros dropped.
    Names may hold spaces but not tabs or line breaks. Analog data, residuals and events are not
    part of the format.
    """
    for name in markers.names:
        if any(c in name for c in "\t\r\n"):
            raise ValueError(f"marker name {name!r} cannot be written to TRC (tab or line break)")
    markers.require_writable()
    positions = markers.positions
    frames, count = positions.shape[:2]
    rate = shortest(markers.rate)
    header = markers.metadata.get("header", {}) if markers.metadata.get("header") else {}
    values = [
        rate,
        header.get("CameraRate", rate),
        str(frames),
        str(count),
        markers.units,
        header.get("OrigDataRate", rate),
        str(markers.first_frame),
        str(frames),
    ]
    head = [
        f"PathFileType\t4\t(X/Y/Z)\t{os.path.basename(os.fspath(path))}",
        "\t".join(_HEADER),
        "\t".join(values),
        "Frame#\tTime\t" + "".join(f"{name}\t\t\t" for name in markers.names),
        "\t\t" + "".join(f"X{i}\tY{i}\tZ{i}\t" for i in range(1, count + 1)),
        "",
        "",
    ]
    start_time = markers.metadata.get("start_time", (markers.first_frame - 1) / markers.rate)
    step = max(1, (1 << 16) // (3 * count + 2))
    with atomic_write(path) as f:
        f.write("\n".join(head).encode("utf-8"))
        rows = range(0, frames, step)
        for block in parallel_stream(lambda first: _rows(markers, first, first + step, precision, start_time), rows):
            f.write(block)


def _rows(markers, first, last, precision, start_time):
    """Bytes of rows first..last-1: frame, time and coordinates, each followed by a tab."""
    coordinates = markers.positions[first:last]
    coordinates = coordinates.reshape(len(coordinates), -1)
    if coordinates.dtype not in (np.float32, np.float64):
        coordinates = coordinates.astype(np.float64)
    index = np.arange(first, first + len(coordinates))
    frame = markers.first_frame + index
    time = start_time + index / markers.rate
    time_digits, time_decimals, time_exact = decimal_digits(time, 9)
    time_digits, time_decimals = trim_zeros(time_digits, time_decimals)
    digits, decimals, exact = decimal_digits(coordinates, precision)
    empty = np.isnan(coordinates)
    texts = {(r, 1): positional(time[r], 9) for r in np.flatnonzero(~time_exact).tolist()}
    for r, c in np.argwhere(~exact & ~empty).tolist():
        texts[r, c + 2] = positional(coordinates[r, c], precision)
    none = np.zeros(len(index), bool)
    return format_decimals(
        np.column_stack([np.abs(frame), time_digits, digits]),
        np.column_stack([np.zeros_like(frame), time_decimals, decimals]),
        np.column_stack([frame < 0, time < 0, np.signbit(coordinates)]),
        np.column_stack([none, none, empty]),
        separator="\t",
        trailing=True,
        texts=texts,
    )
