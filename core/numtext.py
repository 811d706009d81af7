"""Whitespace-separated numeric tables: one vectorised parse on the way in, vectorised formatting out.

Shared by the text formats whose data sections are rows of numbers (BVH, HTR, OBJ sequences).
Reading parses every decimal of the usual forms with a few numpy passes over the whole block
(`_decimal_table`); anything else goes to numpy's tokenizer, and only when that fails does a slow
line-by-line scan run, to name the exact line and token for the error message.
"""

import functools
import io
import math
import re
import threading
import warnings

import numpy as np

from .errors import FrameCountWarning, ParseError, beyond, first_beyond
from .inputs import Bounded
from .parallel import THREADS, parallel_map

_LONE_CR = re.compile(rb"\r(?!\n)")
_DECIMAL = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def parse_number(token):
    """The finite float of a decimal token (str or bytes: `-1.5`, `.5`, `2e-3`), or None.

    Stricter than float(): no underscores (`1_000`), no `nan`, `inf`, or numbers beyond float range,
    no surrounding whitespace: exactly what the table parsers (ours, numpy's loadtxt) accept.
    """
    raw = token.encode("latin-1", "replace") if isinstance(token, str) else token
    if not _DECIMAL.fullmatch(raw):
        return None
    value = float(raw)
    return value if math.isfinite(value) else None


def normalize_newlines(data):
    """Bytes with every line ending as LF or CRLF (old Mac CR-only endings become LF)."""
    if b"\r" in data and _LONE_CR.search(data):
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def shortest(value):
    """The shortest text that reads back as the same double: "20", "0.655637", "-inf" ("0", never "-0")."""
    text = repr(float(value) + 0.0)
    return text[:-2] if text.endswith(".0") else text


def decode_text(data):
    """Text of `data` (bytes): UTF-8, else Latin-1 (names in a legacy 8-bit encoding)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_table(block, columns, rows, *, path, first_line, start=0, strict=True, what="frame", end="file", scale=None):
    """Parse `block` (bytes, LF or CRLF line ends) from byte `start` on into a (rows, columns) float
    array (a start spares a copy of a large file's table when its header is cut off). `block` may
    also be an input file (`inputs.Bounded`) whose table runs from byte `start` to its end: the
    parsing threads read it a chunk at a time, so its bytes are never all in memory (the general
    path below reads them all).

    `first_line` is the file line number of the table's first line. Blank lines are skipped. Every
    non-blank line must hold exactly `columns` finite numbers of magnitude at most errors.LARGEST,
    and there must be exactly `rows` lines. With strict=False a short or long table, or an
    incomplete last line, is accepted with a warning (the rows present are kept). Anything else
    raises ParseError naming the line. `what` names a row in messages, `end` what ends with the
    block ("file", "block [Hips]"). `scale` (a number per column) multiplies the columns once their
    numbers are checked (each chunk's while it is in cache: degrees to radians, say).
    """
    source = _File(block, start) if isinstance(block, Bounded) else _Memory(block, start)
    found = _decimal_table(source, columns, scale) if columns else None
    if found is not None:
        table, bad = found
    else:  # the general paths, and messages, read a copy of the table alone
        block = source.rest()
        if columns == 0:
            return _no_values(block, rows, path, first_line, what)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
                table = np.loadtxt(io.BytesIO(block), dtype=float, comments=None, ndmin=2, encoding="latin-1")
            if not table.size:
                table = np.zeros((0, columns))
            elif table.shape[1] != columns or not np.isfinite(table).all():
                raise ValueError
        except ValueError:
            table = _scan(block, columns, path, first_line, strict, what)
        bad = first_beyond(table)
        if bad is None and scale is not None:
            table *= scale
    if bad is not None:  # a number too large for what it feeds (products, sums over joints)
        shown = beyond(f"value {bad[1] + 1} of this {what} line", table[bad])
        raise ParseError(path, shown, line=first_line + line_of_row(source.rest(), bad[0]))
    if len(table) != rows:
        last = first_line + line_of_row(source.rest(), min(len(table), rows))
        if len(table) < rows:
            what_happened = f"{end} ends after {len(table)} of the {rows} {what}s declared"
        else:
            what_happened = f"{what} {rows + 1} found, but only {rows} {what}s were declared"
        if strict:
            raise ParseError(path, what_happened + " (strict=False reads the rows present)", line=last)
        warnings.warn(
            FrameCountWarning(
                f"{path}, line {last}: {what_happened}; reading the {len(table)} present",
                declared=rows,
                kept=len(table),
            ),
            stacklevel=3,
        )
    return table


class _Memory:
    """A table in memory: the bytes `block` from `start` on."""

    def __init__(self, block, start):
        self.block, self.start, self.stop = block, start, len(block)

    def rest(self):
        """The table's bytes."""
        return self.block[self.start :]

    def chunks(self, step):
        """(start, end) of chunks of whole lines of about `step` bytes."""
        bounds, start = [], self.start
        while start < self.stop:
            end = self.block.find(b"\n", start + step)
            end = self.stop if end < 0 else end + 1
            bounds.append((start, end))
            start = end
        return bounds

    def tokens(self, bound, pool):
        """The number of tokens of the chunk `bound` (start, end)."""
        return _tokens(np.frombuffer(memoryview(self.block)[bound[0] : bound[1]], dtype=np.uint8), pool)

    def fill(self, bound, into):
        """Copy the chunk `bound` into `into` (a memoryview of its size); False if it is not all there."""
        into[:] = memoryview(self.block)[bound[0] : bound[1]]
        return True


class _File:
    """A table in an input file (`inputs.Bounded`) from byte `start` to its end, its chunks read
    by the parsing threads (the methods of `_Memory`): each twice, to count its tokens and to parse
    it, into the thread's buffer (a second read from the page cache costs less than faulting in
    memory for the whole file)."""

    _LOOK = 1 << 16  # bytes read at a time to find a line's end

    def __init__(self, file, start):
        self.file, self.start, self.stop = file, start, file.size
        self._rest = None

    def rest(self):
        if self._rest is None:
            rest = bytearray(self.stop - self.start)
            del rest[self.file.read_at(rest, self.start) :]
            self._rest = normalize_newlines(bytes(rest))
        return self._rest

    def chunks(self, step):
        bounds, start, look = [], self.start, bytearray(self._LOOK)
        while start < self.stop:
            end = start + step
            while end < self.stop:  # on to the end of the line at start + step
                count = self.file.read_at(look, end)
                newline = look.find(b"\n", 0, count)
                end += count if newline < 0 else newline + 1
                if newline >= 0 or not count:
                    break
            end = min(end, self.stop)
            bounds.append((start, end))
            start = end
        return bounds

    def tokens(self, bound, pool):
        size = bound[1] - bound[0]
        raw, text = _text(pool, size)
        if not self.fill(bound, memoryview(raw)[8 : 8 + size]):
            return -1
        return _tokens(text[8:-17], pool)

    def fill(self, bound, into):
        return self.file.read_at(into, bound[0]) == len(into)


def _decimal_table(source, columns, scale=None):
    """The fast path of `parse_table`: decimals ([+-]digits[.digits][e[+-]ddd], at most 8 digits
    before the point and 16 after) in whole rows of `columns` (any number per line when None, as one
    flat array) of `source` (`_Memory` or `_File`), and the index of the first beyond
    errors.LARGEST (or None), the values multiplied by `scale` (per column) if given; or None for
    anything else (longer numbers, powers beyond 1e22, bad tokens or rows), which the general path
    reads or reports.

    Exact: each number is the integer of its digits (< 2**53) divided or multiplied by a power of
    ten up to 1e22, all exact in float64, and IEEE division and multiplication round the exact
    result once: the correctly rounded value, as strtod gives (Clinger's fast path). Chunks of
    lines parse in parallel (numpy releases the GIL), each into its own rows of one output array
    (its size known from a first pass counting the tokens), with work arrays kept per thread (no
    fresh pages to fault in for each chunk). A chunk of the usual numbers only (a point in each,
    few digits) is read around the points (`_point_values`), any other by `_decimal_values`.
    """
    bounds = source.chunks(_chunk(source.stop - source.start))
    if not bounds:
        return None
    pool = threading.local()  # each thread's work arrays, for this call only
    per_row = columns or 1
    if len(bounds) == 1:
        found = _chunk_values(source, bounds[0], columns, None, None, scale, pool)
        if found is None:
            return None
        values, bad = found
    else:
        tokens = list(parallel_map(lambda bound: source.tokens(bound, pool), bounds))
        if min(tokens) < 0 or any(count % per_row for count in tokens):
            return None
        offsets = np.cumsum([0, *tokens])
        values = np.empty(offsets[-1])
        chunks = range(len(bounds))
        parts = list(
            parallel_map(
                lambda i: _chunk_values(
                    source, bounds[i], columns, tokens[i], values[offsets[i] : offsets[i + 1]], scale, pool
                ),
                chunks,
            )
        )
        bad = None
        for offset, part in zip(offsets, parts):
            if part is None:
                return None
            if part[1] is not None and bad is None:
                bad = part[1][0] + offset // per_row, part[1][1]
    if columns is None:
        return values, bad
    return values.reshape(-1, columns), bad


def _chunk_values(source, bound, columns, tokens, out, scale, pool):
    """The values of one chunk of `source` (`bound`: its (start, end)) and the (row, column) of
    its first number beyond errors.LARGEST (or None); None if the fast path cannot read it."""
    size = bound[1] - bound[0]
    raw, text = _text(pool, size)
    if not source.fill(bound, memoryview(raw)[8 : 8 + size]):
        return None
    found = _decimal_rows(raw, text, columns, tokens, out, pool)
    if found is None:
        return None
    values, exponents = found
    rows = values.reshape(-1, columns or 1)
    bad = first_beyond(rows) if exponents else None  # (without, the numbers have 8 integer digits at most)
    if scale is not None:
        rows *= scale
    return values, bad


def _text(pool, size):
    """This thread's chunk buffer for `size` bytes: a bytearray and its uint8 array, 8 spaces
    before the chunk and 17 after (each number's words stay inside)."""
    raw = getattr(pool, "raw", None)
    if raw is None or len(raw) < size + 25:
        raw = pool.raw = bytearray(size + size // 4 + 25)
    raw[:8] = b" " * 8
    raw[size + 8 : size + 25] = b" " * 17
    return raw, np.frombuffer(raw, dtype=np.uint8, count=size + 25)


def _no_values(block, rows, path, first_line, what):
    """The (rows, 0) table of rows without values: only blank lines, but no more rows than lines."""
    if block.strip():
        row, line = next((i, line) for i, line in enumerate(block.split(b"\n")) if line.strip())
        found = f"found {len(line.split())}"
        raise ParseError(path, f"expected no values in this {what} line (no channels), {found}", line=first_line + row)
    lines = block.count(b"\n") + 1
    if rows > lines:
        raise ParseError(path, f"{rows} {what}s declared but only {lines} lines follow", line=first_line)
    return np.zeros((rows, 0))


_CHUNK = 1 << 19, 1 << 21  # bytes parsed per task, least and most (see _chunk)
_ASCII_ZEROS = np.uint64(0x3030303030303030)
_KEEP_HIGH = np.array([0] + [(1 << 64) - (1 << (8 * (8 - n))) for n in range(1, 9)], dtype=np.uint64)
_POWERS = 10 ** np.arange(9, dtype=np.uint64)  # per 8-digit word
_FLOAT_POWERS = 10.0 ** np.arange(23)  # all exact in float64


def _chunk(size):
    """Bytes per parsing task for a block of `size` bytes: about 8 tasks per thread, within _CHUNK.
    Larger tasks keep the threads in numpy's loops longer between the moments each needs the GIL
    (on two cores, 8 tasks per thread read a 19 MB table in 36 ms, 16 in 42 ms; tasks of 2 MB
    parse a 125 MB one 20-25 % faster than tasks of 0.5 MB), but each thread's work arrays take
    about 10 bytes per byte of its task: with 8 tasks per thread they stay under half the result
    (4 per thread: the peak passes twice the result)."""
    return min(max(size // (8 * THREADS), _CHUNK[0]), _CHUNK[1])


def parse_numbers(block):
    """Every whitespace-separated token of `block` (bytes) as one flat float array, or None when a
    token is not a finite decimal number (the caller then finds and names it).

    The fast path of `parse_table` without its rows, else numpy's tokenizer over one token per line.
    """
    found = _decimal_table(_Memory(block, 0), None)
    values = None if found is None else found[0]
    if values is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
                values = np.loadtxt(io.BytesIO(block.translate(_TOKENS_PER_LINE)), comments=None, ndmin=1)
        except ValueError:
            return None
        if not np.isfinite(values).all():
            return None
    return values


_TOKENS_PER_LINE = bytes.maketrans(b" \t\r\x0b\x0c", b"\n\n\n\n\n")


def decimal_values(text, starts, ends):
    """Floats of the tokens ``text[starts[i]:ends[i]]`` (sorted, not overlapping) of a uint8 array
    with at least 8 bytes before the first token and 17 after the last; or None unless every one
    is a decimal of the fast path (see `_decimal_table`). Bytes between the tokens are not read as
    numbers: a caller that has found the tokens (and words among them) parses only the numbers.
    Chunks of tokens parse in parallel.
    """
    step = _chunk(ends[-1] - starts[0]) if len(starts) else 0
    cuts = np.searchsorted(starts, np.arange(starts[0] + step, ends[-1], step)) if len(starts) else []
    bounds = list(zip([0, *cuts], [*cuts, len(starts)]))

    def chunk(bound):
        a, b = bound
        if a == b:
            return np.zeros(0)
        low = starts[a] - 8
        return _decimal_values(text[low : ends[b - 1] + 17], starts[a:b] - low, ends[a:b] - low)

    parts = list(parallel_map(chunk, bounds))
    found = [part for part in parts if part is not None]
    if len(found) < len(parts):
        return None
    return np.concatenate(found) if found else np.zeros(0)


def _tokens(text, pool) -> int:
    """The number of tokens (runs of bytes above the space) of `text` (a uint8 array)."""
    space = np.less_equal(text, 32, out=_work(pool, "space", text.shape, np.bool_))
    starts = np.greater(space[:-1], space[1:], out=_work(pool, "flags", (len(text) - 1,), np.bool_))
    return np.count_nonzero(starts) + bool(len(text) and not space[0])


def _work(pool, name, shape, dtype) -> np.ndarray:
    """A work array of this thread's (`pool`: a threading.local), grown as needed."""
    size = math.prod(shape)
    array = getattr(pool, name, None)
    if array is None or len(array) < size:
        array = np.empty(size + size // 4, dtype)
        setattr(pool, name, array)
    return array[:size].reshape(shape)


def _decimal_rows(raw, text, columns, tokens, out, pool):
    """Values of a chunk of whole lines (see `_decimal_table`) in `raw` (a bytearray) and `text`
    (its uint8 array, the chunk padded as `_text` does), written in `out` if given (an array of
    one value per token: `tokens` of them), else a new array, and whether they had exponents; or None."""
    size = len(text)
    flags = _work(pool, "flags", (size,), np.bool_)
    lines = np.count_nonzero(np.equal(text, 10, out=flags))
    allowed = lines  # the control characters allowed: line ends and tabs
    if raw.find(b"\t", 0, size) >= 0:
        allowed += np.count_nonzero(np.equal(text, 9, out=flags))
    if raw.find(b"\r", 0, size) >= 0:  # only before a line end (a lone one is a line end too)
        returns = np.count_nonzero(np.equal(text, 13, out=flags))
        np.equal(text[:-1], 13, out=flags[:-1])
        flags[:-1] &= text[1:] == 10
        if np.count_nonzero(flags[:-1]) != returns:
            return None
        allowed += returns
    if np.count_nonzero(np.less(text, 32, out=flags)) != allowed:
        return None  # other control characters
    if tokens is None:
        tokens = _tokens(text, pool)
    if not tokens:
        return np.zeros(0), False
    found = _point_values(text, tokens, out, raw.find(b"+", 0, size) >= 0, pool)
    if found is not None:
        values, dots, width = found
        if columns is None or _rows_ended(text, dots, width, columns, lines) or _whole_rows(text, dots, columns):
            return values, False
        return None
    space = text <= 32
    edges = np.flatnonzero(space[:-1] != space[1:])  # each token's start, then its end (spaces around all)
    edges += 1
    starts, ends = edges[0::2], edges[1::2]
    values = _decimal_values(text, starts, ends)
    if values is None or (columns is not None and not _whole_rows(text, starts, columns)):
        return None
    exponents = raw.find(b"e", 0, size) >= 0 or raw.find(b"E", 0, size) >= 0
    if out is None:
        return values, exponents
    out[:] = values
    return out, exponents


def _rows_ended(text, dots, width, columns, lines):
    """Whether the chunk `text` has `lines` line ends, each right after the last of a row of
    `columns` numbers of `width` decimals (0: not all the same) at `dots`: then no line holds
    more or fewer. (A quick test of the usual table; `_whole_rows` decides any other.)"""
    if not width or len(dots) != columns * lines:
        return False
    after = text[dots[columns - 1 :: columns] + (width + 1)]
    return bool(((after == 10) | (after == 13)).all())  # (a CR is followed by LF: see _decimal_rows)


def _whole_rows(text, positions, columns):
    """Whether every line of `text` holds none or `columns` of the tokens at `positions` (sorted)."""
    newlines = np.flatnonzero(text == 10)
    per_line = np.diff(np.searchsorted(positions, newlines), prepend=0, append=len(positions))
    return ((per_line == 0) | (per_line == columns)).all()


_XOR_DIGITS = np.array([[0x3030303030303030], [0x303030303030302E]], dtype=np.uint64)  # digits xor '0' are 0-9
_LOW_SEVEN = np.uint64(0x7F7F7F7F7F7F7F7F)
_PAST_NINE = np.uint64(0x7676767676767676)  # added to a byte below 128: its high bit set from 10 up
_HIGH_BITS = np.uint64(0x8080808080808080)
_PAIRS = np.uint64(0x000000FF000000FF)
_U = np.uint64
_SIGN_BIT = _U(1 << 63)
_ONES = _U((1 << 64) - 1)
# Numbers of w decimals (1-6): the point and its w digits xor '.' and '0' (the bytes after them
# kept as they are), and the high bits of those digits' bytes.
_FIXED_XOR = [_U(0x2E + sum(0x30 << (8 * i) for i in range(1, w + 1))) for w in range(7)]
_FIXED_HIGH = [_U(sum(0x80 << (8 * i) for i in range(1, w + 1))) for w in range(7)]


def _point_values(text, tokens, out, plus, pool):
    """The values of the usual table's numbers ([+-]digits.digits: at most 7 bytes of sign and
    digits before the point, at most 6 digits after, a digit at least), every token one of them
    (`tokens` of them in the padded chunk `text`; `plus`: whether it has a '+'), written in `out`
    (or a new array); and where their points are. None when a token is anything else (the
    general fast path then reads the chunk).

    Each number is read from the 16 bytes around its point: the 8 before it and the point with the
    7 after (the point read as a leading '0'), 8 digits at a time (SWAR in 64-bit words). The
    integer M of those 15 digits is below 1e14 < 2**53, and M / 1e7 (one IEEE division of exact
    operands) is correctly rounded. Where the integer part starts is the last byte before the point
    that is not a digit: the exponent of the float of that byte's bit. When every number has the
    first one's count of decimals (a table printed with one format), their bytes need no search.

    That every token is one such number, without testing each byte around each point: as many
    points as tokens; each number's extent (a '-' or '+', the digits before its point, the point,
    the digits after it) is followed by a space; and the extents' lengths add up to the count of
    the chunk's bytes that are not spaces. Extents followed by spaces do not overlap, so they
    cover every byte that is not a space exactly when the lengths add up: then any other byte (a
    second sign, a letter) is in no extent, each extent begins after a space, and each token is
    one extent.
    """
    flags = np.equal(text, 46, out=_work(pool, "flags", (len(text),), np.bool_))
    if np.count_nonzero(flags) != tokens:
        return None
    dots = np.flatnonzero(flags)
    filled = np.count_nonzero(np.greater(text, 32, out=flags))  # bytes that are not spaces or line ends
    around = np.ndarray((len(text) - 15,), dtype="V16", buffer=text, strides=(1,))  # (aligned gathers)
    dots -= 8
    words = around[dots].view(np.uint64).reshape(-1, 2)  # the 8 bytes before a point; it and 7 after
    dots += 8
    work = _work(pool, "work", (6, tokens), np.uint64)
    digits, marks, scratch = work[0:2], work[2:4], work[4:6]
    low, high = scratch
    test = flags[:tokens]
    np.bitwise_xor(words[:, 0], _XOR_DIGITS[0], out=digits[0])
    _digit_marks(digits[0], marks[0])  # the high bit of each byte that is not a digit
    width = _fixed_width(text, dots[0], words, digits[1], marks[1], scratch)
    decimals = width * tokens
    if not width:
        np.bitwise_xor(words[:, 1], _XOR_DIGITS[1], out=digits[1])
        _digit_marks(digits[1], marks[1])
        np.right_shift(marks[0], _U(48), out=low)  # no digit before nor after the point
        low &= marks[1]
        if np.bitwise_and(low, _U(1 << 15), out=low).max():
            return None
        decimals = _variable_decimals(words, digits[1], marks[1], scratch, test)
        if decimals is None:
            return None
    np.right_shift(marks[0], _U(7), out=low)
    _top_byte(low, high)  # 8 k for the last byte k (of 8) before the point that is not a digit
    if high.max() > 56:
        return None  # none: 8 digits or more
    integer_digits = 7 * tokens - int(high.sum()) // 8
    np.right_shift(digits[0], high, out=low)
    low &= _U(255)  # that byte (xor '0'): a sign or a space
    signs = np.count_nonzero(np.equal(low, ord("+") ^ 48, out=test)) if plus else 0
    sign_bits = marks[0]
    np.bitwise_xor(low, _U(ord("-") ^ 48), out=sign_bits)
    sign_bits -= _U(1)
    sign_bits &= _SIGN_BIT  # the float sign bit of a negative number
    signs += np.count_nonzero(sign_bits)
    if signs + integer_digits + tokens + decimals != filled:
        return None
    high += _U(8)
    np.left_shift(_ONES, high, out=high)
    digits[0] &= high  # the integer part's digits alone
    _eight_values(digits, scratch)
    digits[0] *= _U(10**7)
    digits[0] += digits[1]
    out = np.divide(digits[0].view(np.int64), 1e7, out=out)
    bits = out.view(np.uint64)
    np.bitwise_or(bits, sign_bits, out=bits)
    return out, dots, width


def _digit_marks(digits, out):
    """In `out`: the high bit of each byte of `digits` (bytes xor '0') that is not a digit."""
    np.bitwise_and(digits, _LOW_SEVEN, out=out)
    out += _PAST_NINE
    out |= digits
    out &= _HIGH_BITS


def _fixed_width(text, dot, words, digits, marks, scratch):
    """The count of decimals of every number when each has as many as the first (`dot`: its
    point), 1 to 6, and a space after them, with `digits` set to their bytes (xor '0') after the
    point; else 0."""
    width = 0
    while width < 6 and 48 <= text[dot + 1 + width] <= 57:
        width += 1
    if not width or text[dot + 1 + width] > 32:
        return 0
    low = scratch[0]
    np.bitwise_xor(words[:, 1], _FIXED_XOR[width], out=digits)
    _digit_marks(digits, marks)
    if np.bitwise_and(marks, _FIXED_HIGH[width], out=low).max():  # (max: faster than any)
        return 0
    np.right_shift(digits, _U(8 * width + 8), out=low)
    low &= _U(255)  # the byte after the decimals
    if low.max() > 32:
        return 0
    digits &= _U((1 << (8 * width + 8)) - 1)
    return width


def _variable_decimals(words, digits, marks, scratch, test):
    """The count of all decimals, each number's up to the first byte after its point that is not a
    digit: a space (within the 7 bytes after the point), with `digits` left holding them alone; or None."""
    low, high = scratch
    ends = marks
    np.negative(ends, out=low)
    ends &= low
    ends >>= _U(7)  # 1 in that byte (none: 7 digits or more, declined)
    if not ends.min():
        return None
    np.subtract(ends, _U(1), out=low)
    digits &= low  # the fraction's digits alone (after the 0), then zeros
    np.multiply(ends, _U(255), out=low)
    low &= words[:, 1]  # the byte after the number: a space or a line end
    np.multiply(ends, _U(33), out=high)
    if not np.less(low, high, out=test).all():
        return None
    _top_byte(ends, high)
    return int(high.sum()) // 8 - len(ends)


def _top_byte(words, out):
    """In `out`: 8 k for the highest byte k of each of `words` (at most 1 in each byte, not all 0),
    read from the exponent of its float (2**(8 k): exact); above 56 for a word of 0."""
    floats = out.view(np.float64)
    np.copyto(floats, words.view(np.int64), casting="unsafe")
    out >>= _U(52)
    out -= _U(1023)


def _eight_values(words, scratch):
    """In place: the integers of 8-byte words of one digit (0-9) per byte, the first byte most
    significant; `scratch` an array of their shape."""
    np.right_shift(words, _U(8), out=scratch)
    words *= _U(10)
    words += scratch
    np.bitwise_and(words, _PAIRS, out=scratch)
    scratch *= _U(100 + (1000000 << 32))
    words >>= _U(16)
    words &= _PAIRS
    words *= _U(1 + (10000 << 32))
    words += scratch
    words >>= _U(32)


def _decimal_values(text, starts, ends):
    """Values of the tokens text[starts:ends] (see `decimal_values`), or None."""
    stop = ends  # where each mantissa stops: an exponent mark or the end
    raw = text.tobytes()  # (a search for a byte in bytes is much faster than a comparison of the array)
    marks = np.flatnonzero((text | 32) == ord("e")) if b"e" in raw or b"E" in raw else np.zeros(0, np.intp)
    marks, marked = _owned(marks, starts, ends)
    if len(marks):
        if np.any(marked[1:] == marked[:-1]):
            return None
        stop = ends.copy()
        stop[marked] = marks
    words = np.ndarray((len(text) - 7,), dtype="<u8", buffer=text, strides=(1,))  # 8 bytes at every offset
    dots = np.flatnonzero(text == 46)
    if len(dots) == len(starts) and ((dots > starts) & (dots < stop)).all():
        point = dots  # the usual case: one point in every number
    else:
        point = _points(words, starts, stop)
    lead = text[starts]
    integer_digits = point - starts - ((lead == 45) | (lead == 43))
    fraction_digits = np.maximum(stop - point - 1, 0)
    digits = integer_digits + fraction_digits
    if integer_digits.max() > 8 or fraction_digits.max() > 16 or digits.max() > 19 or digits.min() < 1:
        return None  # (19 digits still fit in 64 bits)
    whole, ok = _eight_digits(words[point - 8], integer_digits)
    for offset in (1, 9):  # fraction digits, 8 at a time (the next 8 only in the numbers that have them)
        some = slice(None) if offset == 1 else np.flatnonzero(fraction_digits > 8)
        if isinstance(some, np.ndarray) and not len(some):
            break
        count = np.minimum(fraction_digits[some] - (offset - 1), 8)
        fraction = words[point[some] + offset]  # digits first: shift them to the end (the high bytes)
        fraction <<= (64 - 8 * count).astype(np.uint64)
        fraction, fraction_ok = _eight_digits(fraction, count)
        ok &= fraction_ok
        whole[some] *= _POWERS[count]
        whole[some] += fraction
    if not ok:
        return None
    if whole.max() >= 1 << 53:
        return None
    power = -fraction_digits
    if len(marks):
        sign = text[marks + 1]
        exponent_digits = ends[marked] - marks - 1 - ((sign == 45) | (sign == 43))
        if not 1 <= exponent_digits.min() <= exponent_digits.max() <= 3:
            return None
        exponent, exponent_ok = _eight_digits(words[ends[marked] - 8], exponent_digits)
        if not exponent_ok:
            return None
        power[marked] += np.where(sign == 45, -exponent.astype(np.int64), exponent.astype(np.int64))
        if not -22 <= power.min() <= power.max() <= 22:
            return None
    values = whole.astype(float)
    high = power.max()
    if power.min() == high:  # the usual: every number printed with the same decimals (no gather)
        power = high
    values /= _FLOAT_POWERS[-np.minimum(power, 0)]
    if high > 0:
        values *= _FLOAT_POWERS[np.maximum(power, 0)]
    values[lead == 45] *= -1.0
    return values


def _points(words, starts, stop):
    """Where each token's first '.' is if before `stop`, else `stop`: looked for in its first 16
    bytes (a sign and 8 digits come before it in any number of the fast path), 8 at a time, the
    second 8 only in the tokens that need them."""
    point = stop.copy()
    todo = np.arange(len(starts))
    for offset in (0, 8):
        x = words[starts[todo] + offset] ^ np.uint64(0x2E2E2E2E2E2E2E2E)  # a '.' is now a zero byte
        found = (x - np.uint64(0x0101010101010101)) & ~x & np.uint64(0x8080808080808080)  # exact for the first
        found &= ~found + np.uint64(1)  # its lowest set bit alone, bit 8 k + 7 for byte k: read from the exponent
        byte = (found.astype(np.float64).view(np.uint64) >> np.uint64(55)) - np.uint64(128)
        hit = found != 0
        at = starts[todo] + offset + byte.astype(np.intp)
        point[todo[hit]] = np.minimum(at[hit], stop[todo[hit]])
        todo = todo[~hit & (stop[todo] - starts[todo] > offset + 8)]
        if not len(todo):
            break
    return point


def _owned(positions, starts, ends):
    """The `positions` (sorted) inside tokens, and the token of each."""
    owner = np.searchsorted(starts, positions, "right") - 1
    inside = (owner >= 0) & (positions < ends[np.maximum(owner, 0)])
    if inside.all():
        return positions, owner
    return positions[inside], owner[inside]


def _eight_digits(words, count):
    """Integers of the last `count` bytes of 8-byte words of ASCII digits (first byte most
    significant; the others count as '0'); and whether all those bytes were digits."""
    keep = _KEEP_HIGH[count]
    words &= keep
    words |= _ASCII_ZEROS & ~keep
    high = np.uint64(0xF0F0F0F0F0F0F0F0)
    ok = (
        (words & high) | (((words + np.uint64(0x0606060606060606)) & high) >> np.uint64(4))
        == np.uint64(0x3333333333333333)
    ).all()
    words -= _ASCII_ZEROS  # now a digit per byte: combine pairs, then quads, then the halves
    shifted = words >> np.uint64(8)
    words *= np.uint64(10)
    words += shifted
    pairs = np.uint64(0x000000FF000000FF)
    low = (words & pairs) * np.uint64(100 + (1000000 << 32))
    words >>= np.uint64(16)
    words &= pairs
    words *= np.uint64(1 + (10000 << 32))
    words += low
    words >>= np.uint64(32)
    return words, ok


def line_of_row(block, row):
    """Line offset (0-based, from the block start) of non-blank row `row` of `block`, or of the end."""
    count = 0
    lines = block.split(b"\n")
    for number, line in enumerate(lines):
        if line.strip():
            if count == row:
                return number
            count += 1
    return len(lines) - 1


def _scan(block, columns, path, first_line, strict, what):
    """Slow path: every line token by token; raise at the first bad line, or (lenient) drop an
    incomplete last row. Reads the table itself when every line is good, so an error always
    names its line."""
    lines = block.split(b"\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    table = []
    for number, line in enumerate(lines):
        tokens = line.split()
        if not tokens:
            continue
        where = first_line + number
        if len(tokens) != columns:
            if not strict and number == last and len(tokens) < columns:
                warnings.warn(
                    f"{path}, line {where}: incomplete last {what} ({len(tokens)} of {columns} values) dropped",
                    stacklevel=4,
                )
                break
            raise ParseError(path, f"expected {columns} values in this {what} line, found {len(tokens)}", line=where)
        row = [parse_number(token) for token in tokens]
        if None in row:
            column = row.index(None)
            shown = tokens[column].decode("latin-1")[:40]
            raise ParseError(path, f"value {column + 1}: expected a finite number, found {shown!r}", line=where)
        table.append(row)
    return np.array(table, dtype=float).reshape(-1, columns)


_TABLE_SIZE = 10_000  # integer parts below this come from a lookup table
_BLOCK = 1 << 16  # numbers formatted per block


def _digits(n, width):
    """(len(n), width) ASCII digits of the non-negative integers `n`, zero padded."""
    out = np.empty((len(n), width), dtype=np.uint8)
    for k in range(width - 1, -1, -1):
        n, digit = np.divmod(n, 10)
        out[:, k] = digit + 48
    return out


def _integer_words(whole, negative, point):
    """8-byte words holding '[-]digits' (plus '.' when `point`) right-aligned, nulls on the left."""
    width = 8 - point
    chars = np.zeros((len(whole), 8), dtype=np.uint8)
    chars[:, :width] = _digits(whole, width)
    count = 1 + np.searchsorted(10 ** np.arange(1, 8), whole, side="right")
    chars[np.arange(8)[None, :] < (width - count)[:, None]] = 0
    rows = np.flatnonzero(negative)
    chars[rows, width - count[rows] - 1] = ord("-")
    if point:
        chars[:, 7] = ord(".")
    return chars.view("<u8").ravel()


@functools.lru_cache(maxsize=2)
def _integer_table(point):
    n = np.arange(_TABLE_SIZE)
    return np.concatenate([_integer_words(n, n < 0, point), _integer_words(n, n >= 0, point)])


@functools.lru_cache(maxsize=1)
def _four_digit_table():
    return _digits(np.arange(10_000), 4).view("<u4").ravel().astype(np.uint64)


def format_table(values, decimals=6, *, separator=" ", whole=0):
    """Bytes of `values` (rows, columns) in fixed-point notation, one row per line, the columns
    separated by `separator` (one character); the first `whole` columns are printed as integers
    (rounded: frame numbers).

    Equivalent to numpy.savetxt(fmt="%.{decimals}f") but vectorised: every number becomes 8-byte
    words (the integer part from a lookup table, the fraction from two 4-digit lookups per word)
    and the padding nulls are dropped in one pass. Rounds the scaled value half-to-even; never
    prints "-0". Integer parts of a million or more, or more than 9 decimals, take a slower exact
    path (Python formatting).
    """
    return b"".join(format_blocks(values, decimals, separator=separator, whole=whole))


def format_blocks(values, decimals=6, *, separator=" ", whole=0):
    """`format_table` as a sequence of byte blocks of whole rows (to write without joining)."""
    values = np.asarray(values, dtype=float)
    rows, columns = values.shape
    if not np.isfinite(values).all():
        raise ValueError("cannot write NaN or infinite values")
    if values.size == 0:
        yield b"\n" * rows
        return
    if len(separator) != 1 or not 0 <= whole <= columns:
        raise ValueError(f"separator must be one character ({separator!r}), whole 0 to {columns} ({whole})")
    step = max(1, _BLOCK // columns)  # blocks that stay in cache (and out of the page-fault path)
    values = np.concatenate([np.rint(values[:, :whole]), values[:, whole:]], axis=1) if whole else values
    yield from parallel_map(
        lambda i: _format_block(values[i : i + step], decimals, separator, whole), range(0, rows, step)
    )


def _format_block(values, decimals, separator, integers) -> bytes:
    rows, columns = values.shape
    scale = 10.0**decimals
    scaled = np.rint(values.ravel() * scale)
    negative = scaled < 0
    magnitude = np.abs(scaled, out=scaled)
    whole = np.floor(magnitude / scale)
    if decimals > 9 or whole.max() >= 10 ** (7 - bool(decimals)):
        line = separator.join(["%.0f"] * integers + [f"%.{decimals}f"] * (columns - integers)) + "\n"
        values = np.where(magnitude.reshape(values.shape) == 0, 0.0, values)  # no "-0.000"
        return "".join(line % tuple(row) for row in values).encode()
    fraction_words = 1 + decimals // 8  # the fraction digits and the separator
    words = np.empty((values.size, 1 + fraction_words), dtype=np.uint64)
    large = whole >= _TABLE_SIZE
    index = whole.astype(np.intp)
    if large.any():
        index[large] = 0
    index += negative * _TABLE_SIZE
    integer = _integer_table(bool(decimals))[index]
    if large.any():
        integer[large] = _integer_words(whole[large].astype(np.int64), negative[large], bool(decimals))
    words[:, 0] = integer
    fraction = (magnitude - whole * scale).astype(np.int64) * 10 ** (8 * fraction_words - decimals)
    table = _four_digit_table()
    shift = np.uint64(8 * (decimals % 8))
    for j in range(fraction_words - 1, -1, -1):
        fraction, eight = np.divmod(fraction, 10**8)
        high, low = np.divmod(eight, 10_000)
        word = table[high] | (table[low] << np.uint64(32))
        if j == fraction_words - 1:  # drop the padding digits, add the separator
            word &= (np.uint64(1) << shift) - np.uint64(1)
            word |= np.uint64(ord(separator)) << shift
            word.reshape(rows, columns)[:, -1] ^= np.uint64(ord(separator) ^ ord("\n")) << shift
        words[:, 1 + j] = word
    if integers:  # whole numbers: the integer part without its point, then only the separator
        head = words.reshape(rows, columns, -1)[:, :integers]
        index = whole.reshape(rows, columns)[:, :integers]
        sign = negative.reshape(rows, columns)[:, :integers]
        head[..., 0] = _integer_words(index.astype(np.int64).ravel(), sign.ravel(), False).reshape(index.shape)
        head[..., 1:] = 0
        head[..., -1] = ord(separator)
        if integers == columns:
            head[:, -1, -1] = ord("\n")
    return words.tobytes().translate(None, b"\0")


def ranges(starts, ends):
    """Every index of the ranges [starts[i], ends[i]), one range after the other."""
    starts, ends = np.asarray(starts, dtype=np.intp).ravel(), np.asarray(ends, dtype=np.intp).ravel()
    lengths = ends - starts
    return np.arange(lengths.sum()) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)


def splice(data, starts, lengths):
    """Bytes: the slices ``data[starts[i]:starts[i] + lengths[i]]`` of `data` (bytes) one after the
    other: text assembled from pieces (constants, rows of formatted tables) with one numpy gather."""
    starts = np.asarray(starts, dtype=np.intp).ravel()
    return np.frombuffer(data, dtype=np.uint8)[ranges(starts, starts + np.ravel(lengths))].tobytes()


def line_spans(text):
    """(starts, lengths) of the lines of `text` (bytes, each line ending in a newline), newlines left out."""
    ends = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == ord("\n"))
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.intp)[: len(ends)]
    return starts, ends - starts


# Shortest text: the fewest decimals that give each number back, written with per-number decimals.
_INTEGER_POWERS = 10 ** np.arange(19, dtype=np.int64)
_KEEP_LOW = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [(1 << 64) - 1], dtype=np.uint64)  # first n bytes
_EXACT = float(1 << 53)


def decimal_digits(values, decimals=None):
    """(digits, decimals, exact): |value| = digits / 10**decimals (int64 arrays, decimals >= 0), the
    number to write for each of `values` (a float32 or float64 array; NaN and infinities are left
    to the caller: their digits are meaningless).

    decimals=None: the shortest positional decimal that reads back as the same value of the array's
    dtype, numpy's `format_float_positional(unique=True)` digits (a float32's also read back when
    read as a double first and rounded to float32 after, as our readers and `astype` do: a double
    halfway between two float32s is avoided). decimals=n: rounded to n decimals (half to even).
    `exact` is False where this integer arithmetic cannot tell (a float64 that needs 16 or 17
    significant digits; numbers below 1e-13 or from 1e15 up; n beyond 22): write those another way
    (`positional`). Fastest on blocks of some 10,000 values (the temporaries stay in cache).
    """
    values = np.asarray(values)
    shape, values = values.shape, values.ravel()
    single = values.dtype == np.float32
    magnitude = np.abs(values).astype(np.float64)
    finite = np.isfinite(magnitude)
    if not finite.all():
        magnitude[~finite] = 0.0
    if decimals is not None:
        digits = np.rint(magnitude * 10.0 ** int(decimals))
        exact = finite & (digits < _EXACT) & (int(decimals) <= 22)
        digits[~exact] = 0
        places = np.full(shape, int(decimals), dtype=np.int64)
        return digits.astype(np.int64).reshape(shape), places, exact.reshape(shape)
    with np.errstate(divide="ignore"):
        exponent = np.floor(np.log10(magnitude))  # may be one off next to a power of ten: only a bound
    exponent[magnitude == 0] = 0
    top = np.clip((8 if single else 14) - exponent, 0, 22).astype(np.int64)  # 9 (15) significant digits
    exact = (magnitude == 0) | (magnitude >= 1e-13) & (magnitude < 1e15)
    if single:  # 9 significant digits always give a float32 back; fewer are tried one less at a time
        todo = np.flatnonzero(exact & (top > 0))
        wanted, size = np.abs(values[todo]), magnitude[todo]
        while len(todo):
            fewer = top[todo] - 1
            good = _reads_back(wanted, size, fewer, single) & (fewer >= 0)
            todo, wanted, size = todo[good], wanted[good], size[good]
            top[todo] = fewer[good]
    else:  # 15 may not do (16 or 17 would: not exact here); the fewest by a binary search
        exact &= finite & _reads_back(magnitude, magnitude, top, single)
        low = np.zeros_like(top)
        todo = np.flatnonzero(exact & (top > 0))
        while len(todo):
            middle = (low[todo] + top[todo]) // 2
            good = _reads_back(magnitude[todo], magnitude[todo], middle, single)
            top[todo[good]] = middle[good]
            low[todo[~good]] = middle[~good] + 1
            todo = todo[low[todo] < top[todo]]
    exact &= finite
    digits = np.rint(magnitude * _FLOAT_POWERS[top])
    if single:  # a double halfway between two float32s rounds either way, as readers go: one digit more
        back = digits / _FLOAT_POWERS[top]
        near = back.astype(np.float32)
        wide = near.astype(np.float64)
        other = np.nextafter(near, np.where(back > wide, np.float32(np.inf), np.float32(0))).astype(np.float64)
        tie = np.flatnonzero(exact & (back != wide) & (back == (wide + other) * 0.5))
        top[tie] += 1
        digits[tie] = np.rint(magnitude[tie] * _FLOAT_POWERS[top[tie]])
    digits[~exact] = 0
    return digits.astype(np.int64).reshape(shape), top.reshape(shape), exact.reshape(shape)


def _reads_back(wanted, magnitude, decimals, single):
    """Whether `magnitude` (float64) rounded to `decimals` reads back as `wanted` (its float32, or itself)."""
    power = _FLOAT_POWERS[decimals]
    back = np.rint(magnitude * power)
    back /= power  # correctly rounded: both exact in float64
    return (back.astype(np.float32) if single else back) == wanted


def trim_zeros(digits, decimals):
    """(digits, decimals) without the fraction's trailing zeros (0.500 -> 0.5, 2.0 -> 2)."""
    digits, decimals = digits.copy(), decimals.copy()
    for _ in range(int(decimals.max(initial=0))):
        cut = (decimals > 0) & (digits % 10 == 0)
        if not cut.any():
            break
        digits[cut] //= 10
        decimals[cut] -= 1
    return digits, decimals


def positional(value, decimals=None):
    """Text of one number without an exponent: the shortest that reads back as the same value of
    its type (np.float32 or float), or rounded to `decimals`; never "-0"."""
    if decimals is not None:
        text = f"{float(value):.{int(decimals)}f}"
    elif type(value) is np.float32:
        text = np.format_float_positional(value, unique=True, trim="-")
    else:
        text = repr(float(value))
        text = np.format_float_positional(float(value), unique=True, trim="-") if "e" in text else text
        text = text[:-2] if text.endswith(".0") else text
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def format_decimals(digits, decimals, negative, empty, *, separator="\t", trailing=False, texts=None):
    """Bytes of a (rows, columns) table of numbers digits / 10**decimals (non-negative int64
    arrays; `negative` (bool): a '-' before, never "-0"), positional, one row per line: every field
    followed by `separator`, the last one's replaced by the line end (or, `trailing`, followed by it
    too: the layout OpenSim writes). Where `empty` (bool) the field is empty (its separator stays);
    `texts` ({(row, column): text}) gives fields written as given (numbers the digits cannot hold).

    Vectorised like `format_table`: every number becomes 8-byte words (the integer part from a
    lookup table, the fraction from 4-digit lookups, cut after its own number of decimals) and the
    padding nulls are dropped in one pass; exact (integer arithmetic). Blocks of rows holding a
    number of 7 or more integer digits, more than 15 decimals, or a given text are written by Python.
    """
    rows, columns = digits.shape
    step = max(1, _BLOCK // max(columns, 1))
    texts = texts or {}
    return b"".join(
        _format_decimal_block(
            digits[i : i + step],
            decimals[i : i + step],
            negative[i : i + step],
            empty[i : i + step],
            ord(separator),
            trailing,
            {(r - i, c): t for (r, c), t in texts.items() if i <= r < i + step},
        )
        for i in range(0, rows, step)
    )


def _format_decimal_block(digits, decimals, negative, empty, separator, trailing, texts):
    rows, columns = digits.shape
    empty = empty.ravel()
    digits, decimals = np.where(empty, 0, digits.ravel()), np.where(empty, 0, decimals.ravel())
    negative = negative.ravel() & (digits > 0)
    if not digits.size:
        return (chr(separator) * trailing + "\n").encode() * rows
    scale = _INTEGER_POWERS[np.clip(decimals, 0, 18)]
    whole = digits // scale
    if texts or decimals.max() > 15 or decimals.min() < 0 or whole.max() >= 10**6:
        return _python_block(digits, decimals, negative, empty, rows, columns, chr(separator), trailing, texts)
    fraction = digits - whole * scale
    point = decimals > 0
    words = np.zeros((rows, columns + trailing, 2 if decimals.max() < 8 else 3), np.uint64)
    fields = words[:, :columns]  # (`trailing`: a row's line end in one more field's first word)
    large = whole >= _TABLE_SIZE
    integer = _integer_tables()[np.where(large, 0, whole) + negative * _TABLE_SIZE + point * (2 * _TABLE_SIZE)]
    for flag in (False, True):
        some = np.flatnonzero(large & (point == flag))
        if len(some):
            integer[some] = _integer_words(whole[some], negative[some], flag)
    integer[empty] = 0
    fields[..., 0] = integer.reshape(rows, columns)
    high, low = np.divmod(fraction * _INTEGER_POWERS[16 - decimals], 10**8)  # 16 digits, the fraction's first
    table = _four_digit_table()
    ends = np.full(columns, separator, np.uint64)
    if not trailing:
        ends[-1] = ord("\n")
    end = np.broadcast_to(ends, (rows, columns)).ravel()
    shift = (8 * (decimals % 8)).astype(np.uint64)
    for j, part in enumerate((high, low)[: words.shape[2] - 1]):
        first, rest = np.divmod(part, 10_000)
        word = table[first] | (table[rest] << np.uint64(32))
        word &= _KEEP_LOW[np.clip(decimals - 8 * j, 0, 8)]  # the fraction's own digits, then its separator
        here = decimals // 8 == j
        word[here] |= end[here] << shift[here]
        fields[..., 1 + j] = word.reshape(rows, columns)
    if trailing:
        words[:, -1, 0] = ord("\n")
    return words.tobytes().translate(None, b"\0")


@functools.lru_cache(maxsize=1)
def _integer_tables():
    """Integer words of 0 .. _TABLE_SIZE - 1: positive, negative, positive with a point, negative with a point."""
    return np.concatenate([_integer_table(False), _integer_table(True)])


def _python_block(digits, decimals, negative, empty, rows, columns, separator, trailing, texts):
    fields = []
    for d, q, n, e in zip(digits.tolist(), decimals.tolist(), negative.tolist(), empty.tolist()):
        if e:
            fields.append("")
            continue
        text = str(d).rjust(q + 1, "0")
        text = f"{text[:-q]}.{text[-q:]}" if q else text
        fields.append("-" + text if n else text)
    for (r, c), text in texts.items():
        fields[r * columns + c] = text
    end = separator + "\n" if trailing else "\n"
    return "".join(separator.join(fields[r * columns : (r + 1) * columns]) + end for r in range(rows)).encode()
