"""The vectorised number parser agrees bit for bit with strtod (via float()); the formatter with
printf-style formatting."""

import io
import warnings

import numpy as np
import pytest

from mocap_io.core import inputs, numtext
from mocap_io.core.errors import ParseError
from mocap_io.core.numtext import format_table, parse_table


@pytest.mark.parametrize("decimals", range(0, 11))
def test_matches_savetxt(decimals):
    rng = np.random.default_rng(decimals)
    values = rng.normal(0, 50, (40, 7))
    values[0] = [-1e-9, 0.5, -1234567.5, 0, 999.9999996, 12345.678, -9999.99999]
    values[1, :3] = [-0.4, 123456.5, 1e15]
    ours = format_table(values, decimals).split(b"\n")
    reference = io.BytesIO()
    np.savetxt(reference, values, fmt=f"%.{decimals}f")
    theirs = reference.getvalue().split(b"\n")
    assert len(ours) == len(theirs) == 41
    for a, b in zip(ours, theirs):
        for x, y in zip(a.split(b" "), b.split(b" ")):
            # printf rounds the exact binary value, we round the scaled value: they may differ by
            # one unit in the last place for values that sit on a rounding boundary
            assert x == y or abs(float(x) - float(y)) <= 1.01 * 10.0**-decimals
            assert not x.startswith(b"-") or float(x) != 0  # never "-0"


@pytest.mark.parametrize("decimals", [0, 3, 6, 10])
@pytest.mark.parametrize("whole", [1, 2, 4])
def test_whole_columns_and_separator(decimals, whole):
    """Frame numbers as integers (HTR, TRC rows), tab-separated, on the fast and the exact path."""
    rng = np.random.default_rng(whole)
    values = rng.normal(0, 50, (30, 4))
    values[:, 0] = np.arange(-3, 27)
    values[0, 1] = 2e6  # an integer part the fast path declines: the exact path for that block
    ours = format_table(values, decimals, separator="\t", whole=whole).decode().splitlines()
    assert len(ours) == 30
    for row, line in zip(values, ours):
        tokens = line.split("\t")
        assert tokens[:whole] == [str(int(n)) for n in np.rint(row[:whole])]
        for x, y in zip(tokens[whole:], row[whole:]):
            assert len(x.partition(".")[2]) == decimals and abs(float(x) - y) <= 0.51 * 10.0**-decimals
    assert format_table(values[3:5, :1], 6, whole=1) == b"0\n1\n"
    with pytest.raises(ValueError):
        format_table(values, 6, separator="ab")


def test_shapes_and_errors():
    assert format_table(np.zeros((3, 0))) == b"\n\n\n"
    assert format_table(np.array([[1.0, -2.0]]), 2) == b"1.00 -2.00\n"
    with pytest.raises(ValueError):
        format_table(np.array([[np.nan]]))


def _fast(block, columns):
    """The fast path's table of `block`, or None where it declines."""
    found = numtext._decimal_table(numtext._Memory(block, 0), columns)
    return None if found is None else found[0]


def _random_tokens(rng, count):
    """Decimal tokens in every form the fast parser takes: signs, no point, '5.', '.5', up to 8
    digits before the point, at most 15 in all (16 may exceed 2**53), exponents of 1-3 digits
    (the power of ten applied stays within 1e+-22)."""
    tokens = []
    for _ in range(count):
        whole = str(rng.integers(0, 10 ** rng.integers(1, 9)))[: rng.integers(0, 9)]
        fraction = "".join(rng.choice(list("0123456789"), rng.integers(0, 16 - len(whole))))
        if not whole and not fraction:
            whole = "0"
        sign = rng.choice(["", "-", "+"])
        point = "." if fraction or rng.random() < 0.5 else ""
        sign_of_power = rng.choice(["", "-", "+"])
        power = rng.integers(0, 13 if sign_of_power != "-" else 23 - len(fraction))  # within 1e-22
        exponent = (
            "" if rng.random() < 0.7 else rng.choice(["e", "E"]) + sign_of_power + str(power).zfill(rng.integers(1, 4))
        )
        tokens.append(sign + whole + point + fraction + exponent)
    return tokens


@pytest.mark.parametrize("seed", range(4))
def test_fast_parse_is_exact(seed):
    rng = np.random.default_rng(seed)
    columns = 7
    tokens = _random_tokens(rng, columns * 3000)
    separators = rng.choice([" ", "  ", "\t", " \t "], len(tokens))
    lines = [
        "".join(t + s for t, s in zip(tokens[i : i + columns], separators[i : i + columns]))
        for i in range(0, len(tokens), columns)
    ]
    block = "\r\n".join(lines).encode()
    expected = np.array([float(t) for t in tokens]).reshape(-1, columns)
    fast = _fast(block, columns)
    assert fast is not None
    assert np.array_equal(fast.view(np.int64), expected.view(np.int64))  # same bits, -0.0 included
    chunked = numtext._CHUNK
    try:
        numtext._CHUNK = 1000, 1000  # many chunks, parsed in parallel
        assert np.array_equal(_fast(block, columns).view(np.int64), expected.view(np.int64))
    finally:
        numtext._CHUNK = chunked


@pytest.mark.parametrize(
    "text",
    [
        b"1.2.3 4",
        b"-- 1",
        b"1- 2",
        b"123456789.5 1",
        b"0.12345678901234567 1",
        b"nan 1",
        b". 1",
        b"- 1",
        b"1 2 3",
        b"1\x0b 2",
        b"\xff1 2",
        b"99999999.99999999 1",
        b"1e 2",
        b"1e5e3 2",
        b"1e5.5 2",
        b"e5 2",
        b"1.5e-30 2",
        b"1e400 2",
        b"1e-1234 2",
    ],
)
def test_fast_parse_declines_what_it_cannot_read_exactly(text):
    assert _fast(text, 2) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        (b"1.5e-30 2\n", [[1.5e-30, 2]]),
        (b"0.123456789 1\n", [[0.123456789, 1]]),
        (b"123456789.5 1", [[123456789.5, 1]]),
    ],
)
def test_general_path_reads_what_the_fast_one_declines(text, expected):
    assert np.array_equal(parse_table(text, 2, 1, path="x", first_line=1), expected)


def test_fast_parse_rows_and_blank_lines():
    assert _fast(b"\n\n1 2\n\n  \n3.5 -4\n\n", 2).tolist() == [[1, 2], [3.5, -4]]
    assert _fast(b"  \n", 2).shape == (0, 2)
    with pytest.raises(ParseError, match="line 12"):
        parse_table(b"1 2\n3 x\n", 2, 2, path="x", first_line=11)


def test_splice_joins_slices_and_line_spans_find_lines():
    data = b"ab\n\ncde\n"
    starts, lengths = numtext.line_spans(data)
    assert starts.tolist() == [0, 3, 4] and lengths.tolist() == [2, 0, 3]
    assert numtext.splice(data, [4, 0, 2, 5], [3, 2, 0, 1]) == b"cdeabd"
    assert numtext.splice(data, [], []) == b"" and numtext.line_spans(b"")[0].tolist() == []


def _decimal_tokens(rng, count, short):
    """Decimal tokens: signs, 0-8 digits before the point, 0-16 after, leading zeros, '-0', '.5',
    '5.', some with exponents; `short`: only [+-]digits.digits with at most 6 digits on either side
    (the point path), else any form the general fast path reads exactly (at most 15 digits, powers
    of ten within 1e+-22)."""
    digits = rng.integers(0, 10, (count, 24)).astype(str)
    whole = rng.integers(0, 7 if short else 9, count)
    fraction = rng.integers(0, 7 if short else 17, count)
    signs = rng.choice(["", "-", "+", "-"], count)
    tokens = []
    for i in range(count):
        w, f = "".join(digits[i, : whole[i]]), "".join(digits[i, 8 : 8 + fraction[i]])
        if not short:
            f = f[: max(0, 15 - len(w))]
        if not w and not f:
            w = "0"
        point = "." if short or f or rng.random() < 0.5 else ""
        exponent = ""
        if not short and rng.random() < 0.05:
            power = int(rng.integers(0, 23 - len(f)))
            exponent = rng.choice(["e", "E"]) + rng.choice(["", "+"]) + str(power)
        tokens.append(signs[i] + w + point + f + exponent)
    return tokens


@pytest.mark.parametrize("seed", range(2))
def test_point_path_is_exact_and_declines_to_the_general_path(seed, monkeypatch):
    """Runs of lines of the usual numbers (parsed around their points) and of every other form,
    in chunks of either kind or both: the same bits as float(), -0.0 included."""
    rng = np.random.default_rng(seed)
    columns, lines = 6, []
    tokens = []
    for run in range(40):
        row_tokens = _decimal_tokens(rng, columns * 50, short=run % 3 != 2)
        tokens += row_tokens
        separators = rng.choice([" ", " ", "  ", "\t", " \t"], len(row_tokens))
        for i in range(0, len(row_tokens), columns):
            line = "".join(t + s for t, s in zip(row_tokens[i : i + columns], separators[i : i + columns]))
            lines.append(line.rstrip(" \t") + rng.choice(["\n", "\r\n", " \n", "\n\n"]))
    block = "".join(lines).encode()
    expected = np.array([float(t) for t in tokens]).reshape(-1, columns)
    for chunk in (1 << 19, 3000, 200):
        monkeypatch.setattr(numtext, "_CHUNK", (chunk, chunk))
        for result in (_fast(block, columns), numtext.parse_numbers(block).reshape(-1, columns)):
            assert result is not None
            assert np.array_equal(result.view(np.int64), expected.view(np.int64))


@pytest.mark.parametrize(
    "text",
    [b"-.5 1.", b"+1.25 -0.0", b"1234567.5 -123456.5", b"0.1234567 1.5", b"12345678.5 1.5", b"1.5 -1234567.5"],
)
def test_point_path_edges(text):
    """At the limits of the point path (7 digits before the point, 6 after, a sign within 8 bytes):
    read by it or by the general path, the same bits as float()."""
    expected = np.array([[float(t) for t in text.split()]])
    for block in (text, b"\n" + text + b"\r\n"):
        assert np.array_equal(_fast(block, 2).view(np.int64), expected.view(np.int64))


def _fixed_tokens(rng, count, width):
    """Tokens of `width` decimals (as one printf format writes them): signs, 0-7 digits before the point."""
    whole = rng.integers(0, 8, count)
    tokens = []
    for i in range(count):
        digits = "".join(rng.choice(list("0123456789"), whole[i] + width))
        sign = rng.choice(["", "-", "-", "+"]) if whole[i] < 7 else ""
        tokens.append(f"{sign}{digits[: whole[i]]}.{digits[whole[i] :]}")
    return tokens


@pytest.mark.parametrize("width", range(1, 7))
def test_fixed_decimals_path_is_exact(width, monkeypatch):
    """Numbers all printed with `width` decimals (read without searching each one's end): the same
    bits as float(), rows ended by LF, CRLF or a space and LF."""
    rng = np.random.default_rng(width)
    columns = 9
    tokens = _fixed_tokens(rng, columns * 400, width)
    lines = [
        " ".join(tokens[i : i + columns]) + rng.choice(["\n", "\r\n", " \n"]) for i in range(0, len(tokens), columns)
    ]
    block = "".join(lines).encode()
    expected = np.array([float(t) for t in tokens]).reshape(-1, columns)
    for chunk in (1 << 19, 2000):
        monkeypatch.setattr(numtext, "_CHUNK", (chunk, chunk))
        assert np.array_equal(_fast(block, columns).view(np.int64), expected.view(np.int64))


@pytest.mark.parametrize(
    "text",
    [
        b"1.50 2.5x",
        b"1.50 2.5.",
        b"1.5 2.5.5 1.5",
        b"1.5 --2.5",
        b"1.5 x-2.5",
        b"1.5 2-2.5",
        b"1.5 2.5e1",
        b"1.5 .5 3.5",
    ],
)
def test_fixed_decimals_path_declines_other_tokens(text):
    """Tokens that look like the first number's kind but are not (one more byte, a second point or
    sign, an exponent, a different count of decimals) are not misread: read by the general path
    (the same bits as float()) or refused there."""
    columns = len(text.split())
    table = text.replace(b" ", b"\n") + b"\n" if columns > 3 else text + b"\n"
    rows, columns = (columns, 1) if columns > 3 else (1, columns)
    try:
        expected = np.array([float(t) for t in text.split()]).reshape(rows, columns)
    except ValueError:
        expected = None
    found = _fast(table, columns)
    if found is not None:
        assert expected is not None and np.array_equal(found.view(np.int64), expected.view(np.int64))
    if expected is None:
        with pytest.raises(ParseError):
            parse_table(table, columns, rows, path="x", first_line=1)


def _table_file(tmp_path, block, header=b"head\n"):
    path = tmp_path / "table.txt"
    path.write_bytes(header + block)
    return path


@pytest.mark.parametrize("seed", range(3))
def test_a_file_table_reads_as_its_bytes_do(tmp_path, seed, monkeypatch):
    """A table read from the file a chunk at a time by the parsing threads: the same values, the same
    warnings and the same errors (with their lines) as from the file's bytes in memory."""
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(numtext, "_CHUNK", (700, 700))
    monkeypatch.setattr(numtext._File, "_LOOK", 64)
    columns = 5
    tokens = _decimal_tokens(rng, columns * 300, short=seed != 2)
    lines = [
        " ".join(tokens[i : i + columns]) + rng.choice(["\n", "\r\n", "\n\n"]) for i in range(0, len(tokens), columns)
    ]
    good = "".join(lines).encode()
    rows = len(lines)
    cases = [
        (good, rows, True),
        (good, rows + 1, False),  # a short table: a warning when lenient
        (good[:-1], rows, True),  # no final line end
        (good.replace(b" ", b" 1e300 ", 1), rows, True),  # a row too long
        (good[: len(good) // 2] + b"1 2 3 4 1e400\n" + good[len(good) // 2 :], rows + 1, True),
        (good[: len(good) // 2] + b"1 2 3 4 1e16\n" + good[len(good) // 2 :], rows + 1, True),  # beyond LARGEST
        (good.replace(b"\n", b"\r", 1), rows, True),  # a lone CR
    ]
    for block, declared, strict in cases:
        path = _table_file(tmp_path, block)
        outcomes = []
        for source in ("bytes", "file"):
            with inputs.open_input(path) as f:
                given = numtext.normalize_newlines(f.read()) if source == "bytes" else f
                try:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        table = parse_table(given, columns, declared, path=path, first_line=2, start=5, strict=strict)
                    outcomes.append((table.view(np.int64).tolist(), [str(w.message) for w in caught]))
                except ParseError as error:
                    outcomes.append(str(error))
        assert outcomes[0] == outcomes[1]
