"""The FAMC arithmetic coder: round trips, exact sub-stream lengths, bit-exactness against a
bit-by-bit model of JM's encoder, and bad input."""

import random
import time

import pytest

from mocap_io.core.errors import ParseError
from mocap_io.core.formats.famc import cabac
from mocap_io.core.formats.famc.cabac import Context, Decoder, Encoder

INITS = (61, 64, 2, 100)


def random_ops(rnd, n, p):
    """(kind, value, parameter) operations: context bins, bypass bins, final 0s, Exp-Golomb values."""
    ops = []
    for _ in range(n):
        x = rnd.random()
        if x < 0.6:
            ops.append(("symbol", int(rnd.random() < p), rnd.randrange(len(INITS))))
        elif x < 0.8:
            ops.append(("bypass", rnd.randint(0, 1), 0))
        elif x < 0.85:
            ops.append(("final", 0, 0))
        elif x < 0.95:
            ops.append(("unary", rnd.randint(0, 40), rnd.randrange(len(INITS))))
        else:
            ops.append(("golomb", rnd.randint(0, 1 << 20), rnd.randint(0, 8)))
    return ops


def encode(ops):
    enc = Encoder()
    contexts = [Context(i) for i in INITS]
    for kind, value, param in ops:
        if kind == "symbol":
            enc.symbol(value, contexts[param])
        elif kind == "bypass":
            enc.bypass(value)
        elif kind == "final":
            enc.final(0)
        elif kind == "unary":
            enc.unary_exp_golomb(value, contexts[param])
        else:
            enc.exp_golomb_bypass(value, param)
    enc.final(1)
    return enc.finish()


def decode(data, start, ops, end=None):
    dec = Decoder(data, start, len(data) if end is None else end, "x.famc", "test")
    contexts = [Context(i) for i in INITS]
    out = []
    for kind, _, param in ops:
        if kind == "symbol":
            out.append(dec.symbol(contexts[param]))
        elif kind == "bypass":
            out.append(dec.bypass())
        elif kind == "final":
            out.append(dec.final())
        elif kind == "unary":
            out.append(dec.unary_exp_golomb(contexts[param]))
        else:
            out.append(dec.exp_golomb_bypass(param))
    assert dec.final() == 1
    return out, dec.end


def jm_model(ops):
    """A literal bit-by-bit model of JM's encoder (put_one_bit_plus_outstanding, 9 bits to go at
    the start, done_encoding): the fast encoder must write the very same bytes."""
    state = {"low": 0, "range": 510, "follow": 0, "bits": [], "contexts": [Context(i) for i in INITS]}

    def put(bit):
        state["bits"].append(bit)
        state["bits"].extend([1 - bit] * state["follow"])
        state["follow"] = 0

    def emit(half):  # the top bit of low against `half`: out, or deferred while it is undecided
        if state["low"] >= 2 * half:
            put(1)
            state["low"] -= 2 * half
        elif state["low"] < half:
            put(0)
        else:
            state["follow"] += 1
            state["low"] -= half

    def renorm():
        while state["range"] < 256:
            emit(256)
            state["low"] <<= 1
            state["range"] <<= 1

    def symbol(bit, ctx):
        state_, mps = ctx.state, ctx.mps
        lps = cabac._RANGE_LPS[state_][(state["range"] >> 6) & 3]
        state["range"] -= lps
        if bit != mps:
            state["low"] += state["range"]
            state["range"] = lps
            if state_ == 0:
                mps ^= 1
            state_ = cabac._NEXT_LPS[state_]
        else:
            state_ = min(state_ + 1, 62) if state_ < 63 else 63
        ctx.s = 2 * state_ + mps
        renorm()

    def bypass(bit):
        state["low"] <<= 1
        if bit:
            state["low"] += state["range"]
        emit(512)

    def final(bit):
        state["range"] -= 2
        if bit:
            state["low"] += state["range"]
            state["range"] = 2
        renorm()

    def golomb(value, k):
        while value >= 1 << k:
            bypass(1)
            value -= 1 << k
            k += 1
        bypass(0)
        for i in range(k - 1, -1, -1):
            bypass((value >> i) & 1)

    contexts = state["contexts"]
    for kind, value, param in ops:
        if kind == "symbol":
            symbol(value, contexts[param])
        elif kind == "bypass":
            bypass(value)
        elif kind == "final":
            final(0)
        elif kind == "unary":
            for _ in range(min(value, 2)):
                symbol(1, contexts[param])
            if value < 2:
                symbol(0, contexts[param])
            else:
                golomb(value - 2, 0)
        else:
            golomb(value, param)
    final(1)
    put((state["low"] >> 9) & 1)
    state["bits"].append((state["low"] >> 8) & 1)
    state["bits"].append(1)
    bits = state["bits"][1:]  # the first bit is JM's redundant one
    bits += [0] * (-len(bits) % 8)
    return bytes(int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits), 8))


@pytest.mark.parametrize("p", [0.5, 0.02, 0.98])
def test_round_trip_and_exact_length(p):
    rnd = random.Random(int(p * 100))
    for trial in range(40):
        ops = random_ops(rnd, rnd.randint(0, 2000), p)
        data = encode(ops)
        prefix = bytes(rnd.randrange(256) for _ in range(trial))
        stream = prefix + data + bytes(rnd.randrange(256) for _ in range(7))
        out, end = decode(stream, len(prefix), ops)
        assert out == [0 if kind == "final" else value for kind, value, _ in ops]
        assert end - len(prefix) == len(data)


def test_bytes_match_jm_bit_by_bit():
    rnd = random.Random(5)
    for p in (0.5, 0.02, 0.98, 0.3):
        for _ in range(15):
            ops = random_ops(rnd, rnd.randint(0, 1500), p)
            assert encode(ops) == jm_model(ops)


def test_skewed_all_bypass_and_golomb_extremes():
    rnd = random.Random(2)
    for ops in (
        [("symbol", int(rnd.random() < 0.02), 0) for _ in range(5000)],
        [("symbol", int(rnd.random() < 0.98), 1) for _ in range(5000)],
        [("bypass", rnd.randint(0, 1), 0) for _ in range(5000)],
        [("golomb", v, k) for v in (0, 1, 2, 3, (1 << 20) - 1, 1 << 20) for k in range(9)],
        [("unary", v, 0) for v in (0, 1, 2, 3, 4, 1 << 20)],
    ):
        data = encode(ops)
        out, end = decode(data, 0, ops)
        assert out == [value for _, value, _ in ops] and end == len(data)
    assert len(encode([("symbol", 0, 1)] * 5000)) < 40  # a skewed context costs little


def test_empty_stream_is_two_bytes():
    assert encode([]) == bytes.fromhex("fe80")
    assert decode(b"\xfe\x80", 0, []) == ([], 2)


def test_back_to_back_sub_streams():
    rnd = random.Random(3)
    parts = [random_ops(rnd, rnd.randint(0, 300), 0.2) for _ in range(6)]
    stream = b"".join(encode(ops) for ops in parts)
    at = 0
    for ops in parts:
        out, at = decode(stream, at, ops)
        assert out == [0 if kind == "final" else value for kind, value, _ in ops]
    assert at == len(stream)


def test_context_initialisation():
    assert (Context(61).state, Context(61).mps) == (2, 0)
    assert (Context(64).state, Context(64).mps) == (0, 1)
    assert (Context(2).state, Context(2).mps) == (61, 0)
    assert (Context(127).state, Context(127).mps) == (63, 1)


def test_finish_needs_a_final_one():
    enc = Encoder()
    enc.bypass(1)
    with pytest.raises(ValueError, match="final"):
        enc.finish()
    with pytest.raises(ValueError, match="too large"):
        enc.exp_golomb_bypass(1 << 40, 0)


def test_truncated_stream_is_a_parse_error():
    rnd = random.Random(4)
    ops = random_ops(rnd, 800, 0.3)
    data = encode(ops)
    for cut in (0, 1, 2, len(data) // 2, len(data) - 1):
        with pytest.raises(ParseError, match="test: the arithmetic-coded data ends") as error:
            decode(data + bytes(8), 0, ops, end=cut)  # the bytes after `end` must not be read
        assert error.value.offset == cut


def test_garbage_ends_quickly_with_parse_errors():
    rnd = random.Random(6)
    started = time.perf_counter()
    for _ in range(200):
        garbage = bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 64)))
        dec = Decoder(garbage, 0, len(garbage), "x.famc", "garbage") if len(garbage) >= 2 else None
        if dec is None:
            with pytest.raises(ParseError):
                Decoder(garbage, 0, len(garbage), "x.famc", "garbage")
            continue
        ctx = Context(61)
        try:
            for _ in range(100_000):
                dec.unary_exp_golomb(ctx)
                dec.exp_golomb_bypass(rnd.randint(0, 8))
        except ParseError:
            pass
    assert time.perf_counter() - started < 10


def test_exp_golomb_prefix_is_bounded():
    data = b"\xff" * 64  # bypass bins of 1 for ever
    dec = Decoder(data, 0, len(data), "x.famc", "prefix")
    with pytest.raises(ParseError, match="prefix: Exp-Golomb prefix longer than 30"):
        dec.exp_golomb_bypass(0)
