"""Fixed-length FAMC fields in two byte orders ("dialects").

``STANDARD`` is the standard's bit syntax: fields MSB first, u32 and f32 big-endian, so a segment
starts 00 00 01 F0. ``REFERENCE`` is what the MPEG reference software writes: it `fwrite`s every
fixed-length field as a native little-endian int or float, so its segments start F0 01 00 00.
Bit fields (`u`) are MSB first in both; the syntax module decides which fields a dialect has.
Multi-byte fields and raw bytes must start on a byte boundary (every FAMC field does).
"""

import math
import struct
from dataclasses import dataclass

from ...errors import ParseError

START_CODE = 0x000001F0


@dataclass(frozen=True)
class Dialect:
    name: str
    order: str  # struct byte-order character

    @property
    def start(self):
        return struct.pack(self.order + "I", START_CODE)


STANDARD = Dialect("standard", ">")
REFERENCE = Dialect("reference", "<")
DIALECTS = (STANDARD, REFERENCE)


def detect(data, offset, path):
    """The dialect whose start code is at `offset`, else ParseError naming the offset."""
    head = bytes(data[offset : offset + 4])
    for dialect in DIALECTS:
        if head == dialect.start:
            return dialect
    raise ParseError(
        path, f"expected a FAMC segment start code 00 00 01 F0 (or F0 01 00 00), found {head.hex(' ')}", offset=offset
    )


class BitReader:
    """Reads fields from `data[offset:end]`; every read past `end` raises ParseError naming the field."""

    def __init__(self, data, offset, dialect, path, end=None):
        self.data = data
        self.dialect = dialect
        self.path = path
        self.end = len(data) if end is None else end
        self._pos = offset  # byte of the next bit
        self._bit = 0  # bits of that byte already read

    @property
    def offset(self):
        """Byte offset of the next field (of the partly read byte inside a bit field)."""
        return self._pos

    @offset.setter
    def offset(self, value):
        self._pos, self._bit = value, 0

    def error(self, what, offset=None):
        return ParseError(self.path, what, offset=self._pos if offset is None else offset)

    def _need(self, nbits, name):
        left = (self.end - self._pos) * 8 - self._bit
        if nbits > left:
            raise self.error(f"truncated: {name} needs {nbits} bits, {max(left, 0)} left")

    def u(self, bits, name):
        """An unsigned `bits`-bit field, MSB first."""
        self._need(bits, name)
        value = 0
        for _ in range(bits):
            value = (value << 1) | ((self.data[self._pos] >> (7 - self._bit)) & 1)
            self._bit += 1
            if self._bit == 8:
                self._pos, self._bit = self._pos + 1, 0
        return value

    def _unpack(self, code, size, name):
        self._aligned(name)
        self._need(8 * size, name)
        (value,) = struct.unpack_from(self.dialect.order + code, self.data, self._pos)
        self._pos += size
        return value

    def _aligned(self, name):
        if self._bit:
            raise ValueError(f"{name} must start on a byte boundary")

    def u8(self, name):
        return self._unpack("B", 1, name)

    def u32(self, name):
        return self._unpack("I", 4, name)

    def f32(self, name):
        return self._unpack("f", 4, name)

    def take(self, n, name):
        """`n` raw bytes."""
        self._aligned(name)
        self._need(8 * n, name)
        self._pos += n
        return bytes(self.data[self._pos - n : self._pos])

    def align(self):
        """Skip to the next byte boundary (the skipped bits are not checked)."""
        if self._bit:
            self._pos, self._bit = self._pos + 1, 0


class BitWriter:
    """The twin of BitReader: `u`, `u8`, `u32`, `f32`, `put` (raw bytes), `align`, `getvalue`."""

    def __init__(self, dialect):
        self.dialect = dialect
        self._out = bytearray()
        self._acc = 0  # bits of the unfinished byte
        self._bits = 0

    def u(self, value, bits, name):
        if not 0 <= value < (1 << bits):
            raise ValueError(f"{name} = {value} does not fit {bits} unsigned bits")
        for i in range(bits - 1, -1, -1):
            self._acc = (self._acc << 1) | ((value >> i) & 1)
            self._bits += 1
            if self._bits == 8:
                self._out.append(self._acc)
                self._acc = self._bits = 0

    def _pack(self, code, value, name):
        if self._bits:
            raise ValueError(f"{name} must start on a byte boundary")
        try:
            self._out += struct.pack(self.dialect.order + code, value)
        except (struct.error, OverflowError) as error:
            raise ValueError(f"{name} = {value!r} does not fit: {error}") from None

    def u8(self, value, name):
        self._pack("B", value, name)

    def u32(self, value, name):
        self._pack("I", value, name)

    def f32(self, value, name):
        """A float32; NaN, infinities and finite values beyond float32's range are refused."""
        if not math.isfinite(value):
            raise ValueError(f"{name} is {value}: cannot write non-finite numbers")
        self._pack("f", value, name)

    def put(self, data):
        """Raw bytes (an arithmetic-coded sub-stream)."""
        self._pack(f"{len(data)}s", bytes(data), "raw bytes")

    def align(self):
        """Pad the unfinished byte with zero bits."""
        if self._bits:
            self.u(0, 8 - self._bits, "alignment")

    def getvalue(self):
        if self._bits:
            raise ValueError("the last byte is unfinished: align() first")
        return bytes(self._out)
