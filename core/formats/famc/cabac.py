"""The binary arithmetic coder of FAMC: the H.264 JM engine (B_BITS 10) as the MPEG reference
software uses it, contexts initialised from a raw state, plus its Exp-Golomb binarisations.

Engine: the range starts at 510 and stays in [256, 510] between bins; the decoder's value holds
9 bits (it reads 9 at the start); probability states and LPS ranges are H.264's (rangeTabLPS,
transIdxLPS/MPS). A context initialised with `ini` starts in state ini-64 with MPS 1 when
ini >= 64, else in state 63-ini with MPS 0 (FAMC uses 61, 64 and 2).

Framing (exact sub-stream lengths, so the next syntax element can follow a sub-stream without a
size field): a sub-stream ends with a final bin of value 1. The encoder then writes, as JM's
`done_encoding` does, bits 9 and 8 of its low register, a stop bit 1 and zero bits up to the
byte boundary; the first bit its register produces is always 0 and is not written (JM's
`Ebits_to_go = 9`). The decoder fetches a byte only when it needs one of its bits and does not
renormalise after a final bin of 1. Both then stand at the same bit: (bits the decoder has
consumed) = 9 + (renormalisation shifts and bypass bins before the final bin) = (bits the encoder
wrote before padding). So the encoder's output length equals the bytes the decoder fetched:
`Decoder.end - start`, the "nBytesDec = streamSize - 1" of the reference's decoders. An empty
sub-stream (only the final bin) is 2 bytes.

The per-bin paths keep the engine state in locals and the tables in flat tuples; a context is
one small object holding `s = 2 * state + MPS`.
"""

from ...errors import ParseError

# H.264 Table 9-44 (rangeTabLPS), one row per probability state, columns by (range >> 6) & 3.
_RANGE_LPS = (
    (128, 176, 208, 240), (128, 167, 197, 227), (128, 158, 187, 216), (123, 150, 178, 205),
    (116, 142, 169, 195), (111, 135, 160, 185), (105, 128, 152, 175), (100, 122, 144, 166),
    (95, 116, 137, 158), (90, 110, 130, 150), (85, 104, 123, 142), (81, 99, 117, 135),
    (77, 94, 111, 128), (73, 89, 105, 122), (69, 85, 100, 116), (66, 80, 95, 110),
    (62, 76, 90, 104), (59, 72, 86, 99), (56, 69, 81, 94), (53, 65, 77, 89),
    (51, 62, 73, 85), (48, 59, 69, 80), (46, 56, 66, 76), (43, 53, 63, 72),
    (41, 50, 59, 69), (39, 48, 56, 65), (37, 45, 54, 62), (35, 43, 51, 59),
    (33, 41, 48, 56), (32, 39, 46, 53), (30, 37, 43, 50), (29, 35, 41, 48),
    (27, 33, 39, 45), (26, 31, 37, 43), (24, 30, 35, 41), (23, 28, 33, 39),
    (22, 27, 32, 37), (21, 26, 30, 35), (20, 24, 29, 33), (19, 23, 27, 31),
    (18, 22, 26, 30), (17, 21, 25, 28), (16, 20, 23, 27), (15, 19, 22, 25),
    (14, 18, 21, 24), (14, 17, 20, 23), (13, 16, 19, 22), (12, 15, 18, 21),
    (12, 14, 17, 20), (11, 14, 16, 19), (11, 13, 15, 18), (10, 12, 15, 17),
    (10, 12, 14, 16), (9, 11, 13, 15), (9, 11, 12, 14), (8, 10, 12, 14),
    (8, 9, 11, 13), (7, 9, 11, 12), (7, 9, 10, 12), (7, 8, 10, 11),
    (6, 8, 9, 11), (6, 7, 9, 10), (6, 7, 8, 9), (2, 2, 2, 2),
)  # fmt: skip
# H.264 Table 9-45: next state after an LPS (transIdxLPS); after an MPS the state rises by one up to 62.
_NEXT_LPS = (
    0, 0, 1, 2, 2, 4, 4, 5, 6, 7, 8, 9, 9, 11, 11, 12, 13, 13, 15, 15, 16, 16, 18, 18, 19, 19, 21, 21,
    22, 22, 23, 24, 24, 25, 26, 26, 27, 27, 28, 29, 29, 30, 30, 30, 31, 32, 32, 33, 33, 33, 34, 34, 35,
    35, 35, 36, 36, 36, 37, 37, 37, 38, 38, 63,
)  # fmt: skip

# Tables over s = 2 * state + MPS: LPS range by 4 * s + (range >> 6 & 3), next s after an MPS or an LPS.
LPS = tuple(_RANGE_LPS[s >> 1][q] for s in range(128) for q in range(4))
AFTER_MPS = tuple(2 * min(s // 2 + 1, 62 if s // 2 < 63 else 63) + (s & 1) for s in range(128))
AFTER_LPS = tuple(2 * _NEXT_LPS[s >> 1] + ((s & 1) ^ (s >> 1 == 0)) for s in range(128))
SHIFT = tuple(9 - r.bit_length() if r else 0 for r in range(256))  # renormalisation shifts for a range < 256
MAX_PREFIX = 30  # Exp-Golomb prefixes longer than this are refused (garbage ends quickly)
_FLUSH = 64  # the encoder moves finished bytes out of its register past this many pending bits


class Context:
    """One adaptive binary context: `s` = 2 * probability state + MPS."""

    __slots__ = ("s",)

    def __init__(self, ini):
        self.s = 2 * (ini - 64) + 1 if ini >= 64 else 2 * (63 - ini)

    @property
    def state(self):
        return self.s >> 1

    @property
    def mps(self):
        return self.s & 1


class Encoder:
    """Encodes bins; `finish()` returns the sub-stream after a `final(1)`.

    The low register is kept exactly (Python ints): `_low` holds the `_pending` output bits not
    yet moved to `_out` above its 10-bit window, so a carry simply propagates (into `_out` when
    it reaches written bytes).
    """

    def __init__(self):
        self._out = bytearray()
        self._low = 0
        self._range = 510
        self._pending = 9  # bits of _low below the dropped first bit (JM's first redundant bit)
        self._ended = False

    def symbol(self, bit, ctx):
        s = ctx.s
        rng = self._range
        lps = LPS[(s << 2) | ((rng >> 6) & 3)]
        rng -= lps
        if bit == (s & 1):
            ctx.s = AFTER_MPS[s]
            if rng >= 256:
                self._range = rng
                return
            n = 1
        else:
            self._low += rng
            rng = lps
            ctx.s = AFTER_LPS[s]
            n = SHIFT[rng]
        self._range = rng << n
        self._low <<= n
        self._pending += n
        if self._pending > _FLUSH:
            self._flush()

    def bypass(self, bit):
        self._low = (self._low << 1) + (self._range if bit else 0)
        self._pending += 1
        if self._pending > _FLUSH:
            self._flush()

    def final(self, bit):
        rng = self._range - 2
        if bit:
            self._low += rng
            rng = 2
            self._ended = True
        n = SHIFT[rng] if rng < 256 else 0
        self._range = rng << n
        self._low <<= n
        self._pending += n

    def unary_exp_golomb(self, value, ctx, exp_start=2):
        """JM's unary_exp_golomb_encode: 0 -> 0; v < exp_start -> v ones then 0 (context bins);
        else exp_start ones, then value - exp_start as Exp-Golomb order 0 in bypass bins."""
        if value < 0:
            raise ValueError(f"unary/Exp-Golomb value {value} is negative")
        for _ in range(min(value, exp_start)):
            self.symbol(1, ctx)
        if value < exp_start:
            self.symbol(0, ctx)
        else:
            self.exp_golomb_bypass(value - exp_start, 0)

    def exp_golomb_bypass(self, value, k):
        """k-th order Exp-Golomb in bypass bins: a unary prefix (each 1 takes 2^k off and raises k),
        0, then k bits MSB first."""
        if value < 0:
            raise ValueError(f"Exp-Golomb value {value} is negative")
        ones = 0
        while value >= (1 << k):
            value -= 1 << k
            k += 1
            ones += 1
        if ones > MAX_PREFIX:
            raise ValueError(f"Exp-Golomb value too large ({ones} prefix bins, at most {MAX_PREFIX})")
        for _ in range(ones):
            self.bypass(1)
        self.bypass(0)
        for i in range(k - 1, -1, -1):
            self.bypass((value >> i) & 1)

    def _flush(self, keep=16):
        """Move whole bytes above the newest `keep` pending bits (>= the 10-bit window) to `_out`."""
        nbits = (self._pending - keep) & ~7
        shift = self._pending - nbits
        top = self._low >> shift
        self._low &= (1 << shift) - 1
        self._pending = shift
        if top >> nbits:  # a carry into bytes already written
            top &= (1 << nbits) - 1
            self._carry()
        self._out += top.to_bytes(nbits // 8, "big")

    def _carry(self):
        i = len(self._out) - 1
        while self._out[i] == 0xFF:
            self._out[i] = 0
            i -= 1
        self._out[i] += 1

    def finish(self):
        """The sub-stream: bits 9 and 8 of low, a stop bit 1, zero bits to the byte boundary."""
        if not self._ended:
            raise ValueError("an arithmetic sub-stream must end with final(1) before finish()")
        nbits = self._pending - 8
        top = self._low >> 8
        if top >> nbits:
            top &= (1 << nbits) - 1
            self._carry()
        nbits += 1
        top = (top << 1) | 1
        pad = -nbits % 8
        self._out += (top << pad).to_bytes((nbits + pad) // 8, "big")
        return bytes(self._out)


class Decoder:
    """Decodes bins from `data[start:end]`; `.end` is the byte offset just after the sub-stream
    once `final()` has returned 1 (None before). Needing a byte at or past `end` raises
    ParseError naming `element`."""

    def __init__(self, data, start, end, path, element):
        self.data = data
        self.path = path
        self.element = element
        self.limit = min(end, len(data))
        self.end = None
        if self.limit - start < 2:
            self._overrun(self.limit)
        self._value = (data[start] << 1) | (data[start + 1] >> 7)
        self._buf = data[start + 1] & 0x7F
        self._nbuf = 7
        self._pos = start + 2
        self._range = 510

    def error(self, what, offset=None):
        """A ParseError about this sub-stream at `offset` (default: the next byte to fetch)."""
        return ParseError(self.path, f"{self.element}: {what}", offset=self._pos if offset is None else offset)

    def _overrun(self, at):
        raise self.error("the arithmetic-coded data ends before its final bin", at)

    def _fill(self, n):
        """Fetch bytes until `n` bits are buffered; returns (buffer, bits in it)."""
        buf, nbuf, pos = self._buf, self._nbuf, self._pos
        while nbuf < n:
            if pos >= self.limit:
                self._overrun(pos)
            buf = (buf << 8) | self.data[pos]
            pos += 1
            nbuf += 8
        self._pos = pos
        return buf, nbuf

    def symbol(self, ctx):
        s = ctx.s
        rng = self._range
        lps = LPS[(s << 2) | ((rng >> 6) & 3)]
        rng -= lps
        value = self._value
        if value < rng:
            ctx.s = AFTER_MPS[s]
            if rng >= 256:
                self._range = rng
                return s & 1
            bit = s & 1
            n = 1
        else:
            value -= rng
            rng = lps
            ctx.s = AFTER_LPS[s]
            bit = (s & 1) ^ 1
            n = SHIFT[rng]
        nbuf = self._nbuf
        if nbuf < n:
            buf, nbuf = self._fill(n)
        else:
            buf = self._buf
        nbuf -= n
        self._value = (value << n) | (buf >> nbuf)
        self._buf = buf & ((1 << nbuf) - 1)
        self._nbuf = nbuf
        self._range = rng << n
        return bit

    def _shift_in(self, value):
        """`value` shifted left by one bit, the stream's next bit coming in."""
        nbuf = self._nbuf
        if nbuf:
            buf = self._buf
        else:
            buf, nbuf = self._fill(1)
        nbuf -= 1
        self._buf = buf & ((1 << nbuf) - 1)
        self._nbuf = nbuf
        return (value << 1) | (buf >> nbuf)

    def bypass(self):
        value = self._shift_in(self._value)
        if value >= self._range:
            self._value = value - self._range
            return 1
        self._value = value
        return 0

    def final(self):
        rng = self._range - 2
        if self._value >= rng:
            self.end = self._pos
            return 1
        if rng >= 256:
            self._range = rng
            return 0
        self._value = self._shift_in(self._value)
        self._range = rng << 1
        return 0

    def unary_exp_golomb(self, ctx, exp_start=2):
        """Twin of Encoder.unary_exp_golomb (JM's unary_exp_golomb_decode)."""
        symbol = self.symbol
        ones = 0
        while ones < exp_start and symbol(ctx):
            ones += 1
        return ones if ones < exp_start else exp_start + self.exp_golomb_bypass(0)

    def exp_golomb_bypass(self, k):
        bypass = self.bypass
        value = 0
        ones = 0
        while bypass():
            value += 1 << k
            k += 1
            ones += 1
            if ones > MAX_PREFIX:
                raise self.error(f"Exp-Golomb prefix longer than {MAX_PREFIX} bins")
        suffix = 0
        for _ in range(k):
            suffix = (suffix << 1) | bypass()
        return value + suffix
