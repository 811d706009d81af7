"""TRC (Motion Analysis track row column): marker positions as text, one row per frame.

Five header lines (file type; header names; header values: DataRate, CameraRate, NumFrames,
NumMarkers, Units, OrigDataRate, OrigDataStartFrame, OrigNumFrames; marker names, each over three
columns; X1 Y1 Z1 ...), then rows of frame number, time and x y z per marker. Fields are separated
by tabs (or, in files without tabs, by spaces); an empty field is a missing coordinate (NaN).
"""

import os
import warnings

import numpy as np

from ..atomic import atomic_write
from ..errors import ParseError, check_memory
from ..markers import Markers
from ..numtext import decode_text, format_table, parse_number, parse_table, shortest

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
    coordinates than NumMarkers names gets the extra markers as point<n>, with a warning.
    """
    with open(path, "rb") as f:
        data = f.read()
    size = len(data)
    if b"\r" in data:  # CR LF, CR CR LF (seen in real files) and old Mac CR endings
        data = data.replace(b"\r\r\n", b"\n").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise ParseError(path, "empty file, expected the TRC header (PathFileType ...)", line=1)
    lines = data.split(b"\n", 5)
    if len(lines) < 6:
        lines += [b""] * (6 - len(lines))
    text = [decode_text(line) for line in lines[:5]]
    fields = _split(text[0])
    if not fields or fields[0].lower() != "pathfiletype":
        raise ParseError(path, f"expected 'PathFileType' on the first line, found {text[0][:60]!r}", line=1)
    names, values = _split(text[1]), _split(text[2])
    if not values:
        raise ParseError(path, "expected the header values (DataRate, NumFrames, ...) on line 3, found none", line=3)
    header = {name: value for name, value in zip(names, values)}
    rate = _header_number(path, header, "DataRate")
    if not 0 < rate < float("inf"):
        raise ParseError(path, f"DataRate {rate}: expected a positive frame rate", line=3)
    declared = int(_header_number(path, header, "NumMarkers"))
    frames_declared = int(_header_number(path, header, "NumFrames"))
    columns = text[3].split("\t")[2::3] if "\t" in text[3] else text[3].split()[2:]
    if not text[3].strip() or text[3].split()[0].lower() != "frame#":
        raise ParseError(path, f"expected 'Frame#' and the marker names on line 4, found {text[3][:60]!r}", line=4)
    block, first_line = lines[5], 6
    table = _table(path, block, first_line, 2 + 3 * max(declared, 0), size)
    count = (table.shape[1] - 2) // 3
    marker_names = (columns + [""] * count)[:count]
    if count > max(declared, 0):
        warnings.warn(
            f"{path}: NumMarkers is {declared}, the rows hold coordinates of {count} markers: the extra ones are "
            f"named point<n>",
            stacklevel=2,
        )
    if len(table) != frames_declared:
        warnings.warn(
            f"{path}: NumFrames is {frames_declared}, the file has {len(table)} rows: reading them all", stacklevel=2
        )
    first_frame = int(table[0, 0]) if len(table) else 1
    units = header.get("Units", "").strip()
    return Markers(
        [name if name.strip() else f"point{i + 1}" for i, name in enumerate(marker_names)],
        table[:, 2:].reshape(len(table), count, 3),
        rate,
        units=units,
        first_frame=first_frame,
        metadata={
            "header": header,
            "path_file_type": fields[1:],
            "start_time": float(table[0, 1]) if len(table) else 0.0,
        },
    )


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


def _table(path, block, first_line, columns, size):
    """(rows, at least `columns`) float64: every non-blank line of `block`, empty fields NaN."""
    text = np.frombuffer(block, np.uint8)
    control = np.flatnonzero((text < 32) & (text != 9) & (text != 10))
    if len(control):
        raise ParseError(
            path,
            f"control character {bytes(text[control[:1]])!r} in the data",
            line=first_line + block.count(b"\n", 0, int(control[0])),
        )
    if not len(text) or b"\t" not in block:  # space-separated: no empty fields
        rows = sum(1 for line in block.split(b"\n") if line.strip())
        return parse_table(block, columns, rows, path=path, first_line=first_line)
    breaks = np.flatnonzero((text == 9) | (text == 10))
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [len(text)]])
    seen = np.concatenate([[0], np.cumsum(text > 32)])
    filled = seen[ends] > seen[starts]
    newline = np.concatenate([[False], text[breaks] == 10])  # whether a field starts a line
    line = np.cumsum(newline)  # 0-based line of each field
    column = np.arange(len(starts)) - np.concatenate([[0], np.flatnonzero(newline)])[line]
    lines_with_data = np.unique(line[filled])
    row = np.searchsorted(lines_with_data, line)
    width = max(columns, int(column[filled].max()) + 1 if filled.any() else 0)
    check_memory(
        path, len(lines_with_data) * width * 8, size, f"{len(lines_with_data)} rows x {width} columns", line=first_line
    )
    if width > columns and (width - 2) % 3:
        width += 3 - (width - 2) % 3
    tokens = block.replace(b"\t", b"\n")  # a field per line: empty fields are blank lines, which are skipped
    try:
        values = parse_table(tokens, 1, int(filled.sum()), path=path, first_line=1)
    except ParseError as error:
        if error.line is None:
            raise
        field = error.line - 1
        found = block[starts[field] : ends[field]][:40].decode("latin-1")
        raise ParseError(
            path,
            f"column {column[field] + 1}: expected a number, found {found!r}",
            line=first_line + int(line[field]),
        ) from None
    table = np.full((len(lines_with_data), width), np.nan)
    table[row[filled], column[filled]] = values[:, 0]
    missing = np.isnan(table[:, :2])
    if missing.any():
        at, which = np.argwhere(missing)[0]
        raise ParseError(
            path,
            f"expected the {'frame number' if which == 0 else 'time'} in column {which + 1}, found an empty field",
            line=first_line + int(lines_with_data[at]),
        )
    return table


def write_trc(markers, path, *, precision=None):
    """Write `markers` as a tab-separated TRC file (missing coordinates as empty fields), atomically.

    precision  decimals of the coordinates and times; None: the fewest from 5 to 9 that give back
               every coordinate exactly at its precision (float32 data from a C3D: as float32)
    Names may hold spaces but not tabs or line breaks. Analog data, residuals and events are not
    part of the format.
    """
    for name in markers.names:
        if any(c in name for c in "\t\r\n"):
            raise ValueError(f"marker name {name!r} cannot be written to TRC (tab or line break)")
    positions = markers.positions
    if np.isinf(positions).any():
        frame, marker, axis = np.argwhere(np.isinf(positions))[0]
        raise ValueError(f"marker {markers.names[marker]!r} {'XYZ'[axis]} at frame {frame} is infinite")
    frames, count = positions.shape[:2]
    decimals = max(_decimals(positions), 5) if precision is None else int(precision)
    rate = shortest(markers.rate)
    header = markers.metadata.get("header", {}) if markers.metadata.get("header") else {}
    head = [
        f"PathFileType\t4\t(X/Y/Z)\t{os.path.basename(os.fspath(path))}",
        "\t".join(_HEADER),
        "\t".join(
            [
                rate,
                header.get("CameraRate", rate),
                str(frames),
                str(count),
                markers.units,
                header.get("OrigDataRate", rate),
                str(markers.first_frame),
                str(frames),
            ]
        ),
        "Frame#\tTime\t" + "".join(f"{name}\t\t\t" for name in markers.names).rstrip("\t"),
        "\t\t" + "\t".join(f"X{i}\tY{i}\tZ{i}" for i in range(1, count + 1)),
        "",
        "",
    ]
    start_time = markers.metadata.get("start_time", (markers.first_frame - 1) / markers.rate)
    with atomic_write(path) as f:
        f.write("\n".join(head).encode("utf-8"))
        step = max(1, 65536 // max(3 * count, 1))
        for first in range(0, frames, step):
            f.write(_rows(markers, first, min(first + step, frames), decimals, start_time))


def _rows(markers, first, last, decimals, start_time):
    """Bytes of rows first..last-1: frame, time, coordinates; tab-separated, NaN as empty fields."""
    positions = markers.positions[first:last].reshape(last - first, -1).astype(float)
    index = np.arange(first, last)
    table = np.column_stack([markers.first_frame + index, start_time + index / markers.rate, positions])
    missing = np.isnan(table)
    text = np.frombuffer(format_table(np.where(missing, 0.0, table), decimals, separator="\t", whole=1), np.uint8)
    ends = np.flatnonzero((text == 9) | (text == 10))
    starts = np.concatenate([[0], ends[:-1] + 1])
    cells = missing.ravel()  # a missing cell's text is cut, its separators stay
    size = len(text) + 1
    drop = np.bincount(starts[cells], minlength=size) - np.bincount(ends[cells], minlength=size)
    return text[np.cumsum(drop[:-1]) == 0].tobytes()


def _decimals(positions):
    """The fewest decimals (0 to 9) that give back every finite coordinate in its own precision."""
    values = positions[np.isfinite(positions)]
    if not values.size:
        return 0
    sample = values[:: max(1, values.size // 10_000)]
    for decimals in range(10):
        if _exact(sample, decimals) and _exact(values, decimals):
            return decimals
    return 9


def _exact(values, decimals):
    scale = 10.0**decimals
    back = np.rint(values.astype(float) * scale) / scale
    return bool((back.astype(values.dtype) == values).all())
