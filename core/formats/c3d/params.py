"""C3D numbers by processor type, and the parameter section (groups and parameters).

The parameter section is a chain of entries, each with a signed 16-bit pointer to the next. The
pointers are followed; each entry's own size (name, dimensions, data, description) says where the
next should start, and a pointer that disagrees is reported (strict) or followed with a warning.
"""

import warnings

import numpy as np

from ...errors import FileWarning, ParseError
from ...markers import Group, Parameter

INTEL, DEC, MIPS = 84, 85, 86
PROCESSORS = {INTEL: "Intel", DEC: "DEC", MIPS: "MIPS"}
BLOCK = 512
# parameter type byte -> numpy dtype of one element (characters are read as bytes)
_TYPES = {-1: "S1", 1: "i1", 2: "i2", 4: "f4"}


def byte_order(processor):
    return ">" if processor == MIPS else "<"


def floats(data, processor, count=-1, offset=0):
    """float32 array of `count` 4-byte reals at `offset` of `data`, in the processor's encoding."""
    if processor == DEC:
        return vax_to_ieee(np.frombuffer(data, "<u4", count, offset))
    return np.frombuffer(data, byte_order(processor) + "f4", count, offset).astype(np.float32)


def vax_to_ieee(words):
    """float32 values of VAX F-floats read as little-endian uint32: the two 16-bit halves swap,
    and the exponent bias is 2 higher than IEEE's (value = IEEE reading / 4). Exponent 0 is zero."""
    bits = (words >> np.uint32(16)) | (words << np.uint32(16))
    exponent = (bits >> np.uint32(23)) & np.uint32(0xFF)
    exact = exponent > 2  # lower the exponent by 2: exact
    values = np.where(exact, bits - np.uint32(2 << 23), bits).view(np.float32)
    if not exact.all():  # tiny numbers become IEEE denormals, zero stays zero
        values = np.where(exact, values, np.where(exponent == 0, np.float32(0), values * np.float32(0.25)))
    return values


def read_parameters(data, start, path, strict):
    """(groups {name: Group}, processor) of the parameter section at byte `start` of `data`.

    Group and parameter names are upper-cased (C3D names are case-insensitive). A next-pointer
    that leads elsewhere than the entry's size says raises ParseError when `strict`, else the
    pointers are followed with one warning; a pointer beyond the section (the SGI samples' last
    entry) ends the chain when the sizes end it there too.
    """
    if len(data) < start + 4:
        raise ParseError(
            path, f"file ends at byte {len(data)}: no parameter section at block {start // BLOCK + 1}", offset=len(data)
        )
    blocks, processor = data[start + 2], data[start + 3]
    if processor not in PROCESSORS:
        raise ParseError(
            path, f"processor type {processor}: expected 84 (Intel), 85 (DEC) or 86 (MIPS)", offset=start + 3
        )
    end = min(len(data), start + BLOCK * blocks) if blocks else len(data)
    walk = _Walk(data, start, end, path, processor, strict)
    walk.run()
    return walk.groups(), processor


class _Walk:
    """The entries of one parameter section, read by following the next-pointers."""

    def __init__(self, data, start, end, path, processor, strict):
        self.data, self.start, self.end, self.path = data, start, end, path
        self.order = byte_order(processor)
        self.processor = processor
        self.strict = strict
        self.group_entries = {}  # id -> (name, Group)
        self.parameter_entries = []  # (group id, name, Parameter, offset)
        self.disagreements = []  # (offset, what)

    def error(self, what, offset):
        return ParseError(self.path, what, offset=offset)

    def run(self):
        position, seen = self.start + 4, set()
        while position + 2 <= self.end:
            length, ident = np.frombuffer(self.data, "i1", 2, position)
            if length == 0 or ident == 0:
                break  # the end marker
            seen.add(position)
            name_end = position + 2 + abs(int(length))
            if name_end + 2 > self.end:
                raise self.error(
                    f"parameter section ends inside an entry's name (section ends at byte {self.end})", position
                )
            name = self.data[position + 2 : name_end].decode("latin-1").strip().upper()
            pointer = int(np.frombuffer(self.data, self.order + "i2", 1, name_end)[0])
            if ident < 0:
                size_end = self.group(name, -int(ident), length < 0, name_end + 2, pointer)
            else:
                size_end = self.parameter(name, int(ident), length < 0, name_end + 2, pointer, position)
            following = name_end + pointer
            if pointer == 0:
                break
            if pointer < 0 or following <= position or following >= self.end:
                if following >= self.end and self._ends_at(size_end):
                    break  # a last pointer beyond the section (byte-swapped in the SGI samples)
                self.disagree(name_end, name, pointer, following, size_end)
                break
            if following != size_end:
                self.disagree(name_end, name, pointer, following, size_end)
            if following in seen:
                break
            position = following
        if self.disagreements and not self.strict:
            offset, what = self.disagreements[0]
            warnings.warn(
                f"{self.path}: {len(self.disagreements)} parameter next-pointers disagree with the parameter "
                f"sizes (first at byte {offset}: {what}); followed the pointers",
                FileWarning,
                stacklevel=4,
            )

    def _ends_at(self, position):
        """Whether the entry sizes end the chain at `position` (end marker or end of section)."""
        return position + 2 > self.end or self.data[position] == 0 or self.data[position + 1] == 0

    def disagree(self, offset, name, pointer, following, size_end):
        what = f"the next-pointer of {name} ({pointer}) leads to byte {following}, its size ends at byte {size_end}"
        if self.strict:
            raise self.error(what + " (strict=False follows the pointers)", offset)
        self.disagreements.append((offset, what))

    def bytes_at(self, position, count, what):
        if position + count > self.end:
            raise self.error(f"{what} runs past the end of the parameter section (byte {self.end})", position)
        return self.data[position : position + count]

    def description(self, position, next_entry):
        """(text, end by size) of a description: a length byte and the characters. The text stops
        at the next entry (OptiTrack's POINT:LABELS lacks the length byte: the pointer leaves no
        room for it)."""
        if next_entry is not None and next_entry <= position:
            count = self.data[position] if position < self.end else 0
            return "", position + 1 + count
        count = self.bytes_at(position, 1, "description length")[0]
        stop = position + 1 + count if next_entry is None else min(position + 1 + count, next_entry)
        text = self.bytes_at(position + 1, stop - position - 1, "description").decode("latin-1").strip()
        return text, position + 1 + count

    def group(self, name, ident, locked, body, pointer):
        next_entry = body - 2 + pointer if pointer > 0 else None
        description, end = self.description(body, next_entry)
        if ident in self.group_entries:
            what = f"group id {ident} defined twice ({name}); keeping the first"
            warnings.warn(f"{self.path}: {what}", FileWarning, stacklevel=5)
        else:
            self.group_entries[ident] = (name, Group(description=description, locked=locked))
        return end

    def parameter(self, name, ident, locked, body, pointer, offset):
        kind, rank = np.frombuffer(self.bytes_at(body, 2, f"type of parameter {name}"), "i1")
        if int(kind) not in _TYPES:
            raise self.error(f"parameter {name}: type {kind}, expected -1 (char), 1 (byte), 2 (int) or 4 (real)", body)
        rank = int(rank) & 0xFF
        if rank > 7:
            raise self.error(f"parameter {name}: {rank} dimensions, C3D allows at most 7", body + 1)
        dims = tuple(int(d) for d in self.bytes_at(body + 2, rank, f"dimensions of parameter {name}"))
        count = int(np.prod(dims, dtype=np.int64))
        start = body + 2 + rank
        raw = self.bytes_at(start, abs(int(kind)) * count, f"the data of parameter {name} ({dims})")
        next_entry = body - 2 + pointer if pointer > 0 else None
        if next_entry is not None and start + len(raw) > next_entry:
            return start + len(raw) + 1  # its data runs into the next entry: dropped (lenient)
        description, end = self.description(start + len(raw), next_entry)
        value = self.value(name, int(kind), dims, raw, body)
        self.parameter_entries.append((ident, name, Parameter(value, description, locked, start), offset))
        return end

    def value(self, name, kind, dims, raw, offset):
        shape = dims[::-1]
        if kind == -1:  # strings of dims[0] characters, blanks and NULs at the end removed
            width = dims[0] if dims else len(raw)
            count = int(np.prod(dims[1:], dtype=np.int64))
            if not width and count > self.end - self.start:  # no bytes: bound the empty strings
                raise self.error(f"parameter {name}: {count} empty strings", offset)
            text = raw.decode("latin-1")
            strings = [text[i : i + width].rstrip(" \0") for i in range(0, width * count, width)] if width else []
            return np.array(strings or [""] * count, dtype=str).reshape(shape[:-1])
        if kind == 4:
            return floats(raw, self.processor).reshape(shape)
        return np.frombuffer(raw, self.order + _TYPES[kind]).astype(_TYPES[kind]).reshape(shape)

    def groups(self):
        named = {}
        for name, group in self.group_entries.values():
            named.setdefault(name, group)
        for ident, name, parameter, offset in self.parameter_entries:
            entry = self.group_entries.get(ident)
            if entry is None:
                warnings.warn(
                    f"{self.path}, byte {offset}: parameter {name} belongs to group id {ident}, which "
                    "does not exist; dropped",
                    FileWarning,
                    stacklevel=4,
                )
                continue
            entry[1].setdefault(name, parameter)
        return named
