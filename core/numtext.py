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


def parse_table(block, columns, rows, *, path, first_line, start=0, strict=True, what="frame", end="file"):
    """Parse `block` (bytes, LF or CRLF line ends) from byte `start` on into a (rows, columns) float
    array (a start spares a copy of a large file's table when its header is cut off).

    `first_line` is the file line number of the table's first line. Blank lines are skipped. Every
    non-blank line must hold exactly `columns` finite numbers of magnitude at most errors.LARGEST,
    and there must be exactly `rows` lines. With strict=False a short or long table, or an
    incomplete last line, is accepted with a warning (the rows present are kept). Anything else
    raises ParseError naming the line. `what` names a row in messages, `end` what ends with the
    block ("file", "block [Hips]").
    """
    table = _decimal_table(block, columns, start) if columns else None
    bad = None
    if table is not None and (block.find(b"e", start) >= 0 or block.find(b"E", start) >= 0):
        bad = first_beyond(table)  # (without exponents, the fast path's numbers have 8 integer digits at most)
    if table is None:  # the general paths, and messages, read a copy of the table alone
        block, start = block[start:], 0
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
    if bad is not None:  # a number too large for what it feeds (products, sums over joints)
        shown = beyond(f"value {bad[1] + 1} of this {what} line", table[bad])
        raise ParseError(path, shown, line=first_line + line_of_row(block[start:], bad[0]))
    if len(table) != rows:
        last = first_line + line_of_row(block[start:], min(len(table), rows))
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
    """Bytes per parsing task for a block of `size` bytes: about 16 tasks per thread, within _CHUNK.
    Larger tasks keep the threads in numpy's loops longer between the moments each needs the GIL
    (tasks of 2 MB parse a 125 MB block 20-25 % faster than tasks of 0.5 MB on two cores), but
    each thread's work arrays take about 10 bytes per byte of its task: with 16 tasks per thread
    they stay under a third of the block."""
    return min(max(size // (16 * THREADS), _CHUNK[0]), _CHUNK[1])


def parse_numbers(block):
    """Every whitespace-separated token of `block` (bytes) as one flat float array, or None when a
    token is not a finite decimal number (the caller then finds and names it).

    The fast path of `parse_table` without its rows, else numpy's tokenizer over one token per line.
    """
    values = _decimal_table(block, None)
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


def _decimal_table(block, columns, start=0):
    """The fast path of `parse_table`: decimals ([+-]digits[.digits][e[+-]ddd], at most 8 digits
    before the point and 16 after) in whole rows of `columns` (any number per line when None, as one
    flat array), or None for anything else (longer numbers, powers beyond 1e22, bad tokens or rows),
    which the general path reads or reports.

    Exact: each number is the integer of its digits (< 2**53) divided or multiplied by a power of
    ten up to 1e22, all exact in float64, and IEEE division and multiplication round the exact
    result once: the correctly rounded value, as strtod gives (Clinger's fast path). Chunks of
    lines parse in parallel (numpy releases the GIL), each into its own rows of one output array
    (its size known from a first pass counting the tokens), with work arrays kept per thread (no
    fresh pages to fault in for each chunk). A chunk of the usual numbers only (a point in each,
    few digits) is read around the points (`_point_values`), any other by `_decimal_values`.
    """
    view = memoryview(block)
    bounds, step = [], _chunk(len(view) - start)
    while start < len(view):
        end = block.find(b"\n", start + step)
        end = len(view) if end < 0 else end + 1
        bounds.append((start, end))
        start = end
    if not bounds:
        return None
    pool = threading.local()  # each thread's work arrays, for this call only
    if len(bounds) == 1:
        ((start, end),) = bounds
        values = _decimal_rows(block, start, end, columns, None, None, pool)
    else:
        tokens = list(parallel_map(lambda b: _tokens(view[b[0] : b[1]], pool), bounds))
        offsets = np.cumsum([0, *tokens])
        values = np.empty(offsets[-1])
        chunks = range(len(bounds))
        slots = [values[offsets[i] : offsets[i + 1]] for i in chunks]
        parts = list(
            parallel_map(
                lambda i: _decimal_rows(block, bounds[i][0], bounds[i][1], columns, tokens[i], slots[i], pool), chunks
            )
        )
        if any(part is None for part in parts):
            return None
    if values is None or columns is None:
        return values
    return values.reshape(-1, columns)


def _tokens(chunk, pool) -> int:
    """The number of tokens (runs of bytes above the space) of `chunk`."""
    text = np.frombuffer(chunk, dtype=np.uint8)
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


def _decimal_rows(block, start, end, columns, tokens, out, pool):
    """Values of the chunk block[start:end] of whole lines (see `_decimal_table`), written in
    `out` if given (an array of one value per token: `tokens` of them), else a new array; or None."""
    size = end - start + 25
    text = _work(pool, "text", (size,), np.uint8)  # 8 spaces before, 17 after: words stay inside
    text[:8] = 32
    text[8:-17] = np.frombuffer(memoryview(block)[start:end], dtype=np.uint8)
    text[-17:] = 32
    flags = _work(pool, "flags", (size,), np.bool_)
    newlines = np.flatnonzero(np.equal(text, 10, out=flags))
    allowed = len(newlines)  # the control characters allowed: line ends and tabs
    for c in b"\t\r":
        if block.find(bytes([c]), start, end) >= 0:
            allowed += np.count_nonzero(np.equal(text, c, out=flags))
    if np.count_nonzero(np.less(text, 32, out=flags)) != allowed:
        return None  # other control characters
    if tokens is None:
        space = np.less_equal(text, 32, out=_work(pool, "space", (size,), np.bool_))
        tokens = np.count_nonzero(np.not_equal(space[:-1], space[1:], out=flags[:-1])) // 2
    if not tokens:
        return np.zeros(0)
    found = _point_values(text, tokens, out, block.find(b"+", start, end) >= 0, pool)
    if found is not None:
        values, dots = found
        return values if columns is None or _whole_rows(dots, newlines, columns) else None
    space = text <= 32
    edges = np.flatnonzero(space[:-1] != space[1:])  # each token's start, then its end (spaces around all)
    edges += 1
    starts, ends = edges[0::2], edges[1::2]
    values = _decimal_values(text, starts, ends)
    if values is None or (columns is not None and not _whole_rows(starts, newlines, columns)):
        return None
    if out is None:
        return values
    out[:] = values
    return out


def _whole_rows(positions, newlines, columns):
    """Whether every line holds none or `columns` of the tokens at `positions` (sorted)."""
    per_line = np.diff(np.searchsorted(positions, newlines), prepend=0, append=len(positions))
    return ((per_line == 0) | (per_line == columns)).all()


_XOR_DIGITS = np.array([[0x3030303030303030], [0x303030303030302E]], dtype=np.uint64)  # digits xor '0' are 0-9
_LOW_SEVEN = np.uint64(0x7F7F7F7F7F7F7F7F)
_PAST_NINE = np.uint64(0x7676767676767676)  # added to a byte below 128: its high bit set from 10 up
_HIGH_BITS = np.uint64(0x8080808080808080)
_PAIRS = np.uint64(0x000000FF000000FF)
_U = np.uint64


def _point_values(text, tokens, out, plus, pool):
    """The values of the usual table's numbers ([+-]digits.digits: a space and at most 7 bytes of
    sign and digits before the point, at most 6 digits after, a digit at least), every token one
    of them (`tokens` of them in the padded chunk `text`; `plus`: whether it has a '+'), written in
    `out` (or a new array); and where their points are. None when a token is anything else (the
    general fast path then reads the chunk).

    Each number is read from the 16 bytes around its point: the 8 before it and the point with the
    7 after (the point read as a leading '0'), 8 digits at a time (SWAR in 64-bit words). The
    integer M of those 15 digits is below 1e14 < 2**53, and M / 1e7 (one IEEE division of exact
    operands) is correctly rounded. That every token is such a number: one point in each, the
    bytes around each point digits up to a space, or a sign and a space before, and as many points
    as tokens.
    """
    flags = np.equal(text, 46, out=_work(pool, "flags", (len(text),), np.bool_))
    if np.count_nonzero(flags) != tokens:
        return None
    dots = np.flatnonzero(flags)
    around = np.ndarray((len(text) - 15,), dtype="V16", buffer=text, strides=(1,))  # (aligned gathers)
    dots -= 8
    words = around[dots].view(np.uint64).reshape(-1, 2)  # the 8 bytes before a point; it and 7 after
    dots += 8
    work = _work(pool, "work", (6, tokens), np.uint64)
    digits, marks, scratch = work[0:2], work[2:4], work[4:6]
    low, high = scratch
    tests = _work(pool, "tests", (4, tokens), np.bool_)
    for row in (0, 1):  # the integer part's digits, then the fraction's
        np.bitwise_xor(words[:, row], _XOR_DIGITS[row], out=digits[row])
    np.bitwise_and(digits, _LOW_SEVEN, out=marks)
    marks += _PAST_NINE
    marks |= digits
    marks &= _HIGH_BITS  # the high bit of each byte that is not a digit
    ends = marks[1]  # after the point: the first byte not a digit, its high bit alone
    np.negative(ends, out=low)
    ends &= low
    ends >>= _U(7)  # 1 in that byte (none: 7 digits or more, declined)
    if not ends.all():
        return None
    np.subtract(ends, _U(1), out=low)
    digits[1] &= low  # the fraction's digits alone (after the 0), then zeros
    np.multiply(ends, _U(255), out=low)
    low &= words[:, 1]  # the byte after the number: a space or a line end
    np.multiply(ends, _U(33), out=high)
    if not np.less(low, high, out=tests[0]).all():
        return None
    lead = marks[0]  # before the point: the last byte not a digit (none: 8 digits, declined)
    if not lead.all():
        return None
    for shift in (8, 16, 32):  # the high bit in that byte and every byte before it
        np.right_shift(lead, _U(shift), out=low)
        lead |= low
    np.right_shift(lead, _U(8), out=low)
    lead ^= low  # that byte's high bit alone
    lead >>= _U(7)
    np.left_shift(lead, _U(8), out=low)
    np.negative(low, out=low)  # the integer part's bytes
    digits[0] &= low
    np.right_shift(ends, _U(16), out=high)
    low |= high
    if not low.all():  # a digit at least, before or after the point
        return None
    np.multiply(lead, _U(255), out=low)
    low &= words[:, 0]  # the byte before the digits: a space or a sign
    np.multiply(lead, _U(45), out=high)
    negative = np.equal(low, high, out=tests[0])
    sign = negative
    if plus:
        np.multiply(lead, _U(43), out=high)
        sign = np.equal(low, high, out=tests[1])
        sign |= negative
    np.multiply(lead, _U(33), out=high)
    good = np.less(low, high, out=tests[2])
    if sign.any():  # before a sign, a space (inside the 8 bytes: 7 digits with a sign decline)
        lead >>= _U(8)
        np.multiply(lead, _U(255), out=low)
        low &= words[:, 0]
        np.multiply(lead, _U(33), out=high)
        spaced = np.less(low, high, out=tests[3])
        spaced &= sign
        good |= spaced
    if not good.all():
        return None
    _eight_values(digits, scratch)
    digits[0] *= _U(10**7)
    digits[0] += digits[1]
    out = np.divide(digits[0], 1e7, out=out)
    np.copyto(low, negative)
    low <<= _U(63)  # the sign bit of the negative
    bits = out.view(np.uint64)
    np.bitwise_or(bits, low, out=bits)
    return out, dots


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
