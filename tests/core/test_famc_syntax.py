"""FAMC syntax elements: headers against hand-assembled bytes in both dialects, round trips of
every element, truncated and corrupt streams."""

import random

import numpy as np
import pytest

from mocap_io.core.errors import ParseError
from mocap_io.core.formats.famc import syntax
from mocap_io.core.formats.famc.bits import REFERENCE, STANDARD, BitReader, BitWriter, detect
from mocap_io.core.formats.famc.cabac import Context, Encoder
from mocap_io.core.formats.famc.syntax import InfoTable, SegmentHeader, Weights

DIALECTS = pytest.mark.parametrize("dialect", [STANDARD, REFERENCE], ids=["standard", "reference"])

HEADER = SegmentHeader(size=0x1234, times=(0, 40), animated_fields=1, transform_type=1, normals_prediction=2)
STANDARD_HEADER = (
    b"\x00\x00\x01\xf0"  # startCode
    b"\x00"  # staticMeshDecodingType
    b"\x00\x00\x12\x34"  # animationSegmentSize
    b"\x12"  # animatedFields 0001, transformType 001, interpolationNeeded 0
    b"\x93"  # normals 10, colours 01, other attributes 0011
    b"\x00\x00\x00\x02"  # numberOfFrames
    b"\x00\x00\x00\x00\x00\x00\x00\x28"  # timeFrame[2]
)
REFERENCE_HEADER = (
    b"\xf0\x01\x00\x00"  # start code, little-endian
    b"\x34\x12\x00\x00"  # animationSegmentSize
    b"\x00"  # staticMeshDecodingType
    b"\x11"  # mask: coordinates (bit 0), transformType 1 (bits 4-6), no interpolation (bit 7)
    b"\x02"  # normalsPredictionStrategy
    b"\x03\x00\x00\x00"  # numberOfFrames: the static mesh counted in
    b"\x00\x00\x00\x00\x28\x00\x00\x00"  # a time per decoded frame
)


def written(dialect, write, *args):
    writer = BitWriter(dialect)
    write(writer, *args)
    return writer.getvalue()


def reader(data, dialect, end=None):
    return BitReader(data, 0, dialect, "x.famc", end)


def test_standard_header_bytes():
    header = SegmentHeader(**{**HEADER.__dict__, "colors_prediction": 1, "other_prediction": 3})
    assert written(STANDARD, syntax.write_header, header) == STANDARD_HEADER
    assert syntax.read_header(reader(STANDARD_HEADER, STANDARD)) == header


def test_reference_header_bytes():
    assert written(REFERENCE, syntax.write_header, HEADER) == REFERENCE_HEADER
    assert syntax.read_header(reader(REFERENCE_HEADER, REFERENCE)) == HEADER
    with pytest.raises(ValueError, match="colour"):
        written(REFERENCE, syntax.write_header, SegmentHeader(size=0, times=(), colors_prediction=1))


def test_detect_and_bad_start_codes():
    assert detect(b"xx" + STANDARD_HEADER, 2, "x.famc") is STANDARD
    assert detect(REFERENCE_HEADER, 0, "x.famc") is REFERENCE
    with pytest.raises(ParseError, match="start code") as error:
        detect(b"\x00\x00\x01\xf1", 0, "x.famc")
    assert error.value.offset == 0
    with pytest.raises(ParseError, match="start code"):
        syntax.read_header(reader(STANDARD_HEADER, REFERENCE))


def test_reference_frame_count_includes_the_static_mesh():
    data = REFERENCE_HEADER[:11] + b"\x00\x00\x00\x00"
    with pytest.raises(ParseError, match="numberOfFrames is 0") as error:
        syntax.read_header(reader(data, REFERENCE))
    assert error.value.offset == 11


@pytest.mark.parametrize("dialect, data", [(STANDARD, STANDARD_HEADER), (REFERENCE, REFERENCE_HEADER)])
def test_truncated_headers(dialect, data):
    for cut in range(len(data)):
        with pytest.raises(ParseError, match="truncated") as error:
            syntax.read_header(reader(data[:cut], dialect))
        assert error.value.offset <= cut
    huge = data[:-12] + (b"\xff\xff\xff\xff" if dialect is STANDARD else b"\xff\xff\xff\xff")
    with pytest.raises(ParseError, match="timeFrame"):  # a huge count is refused before allocating
        syntax.read_header(reader(huge, dialect))


def test_info_table_bytes_and_round_trip():
    info = InfoTable(8, (1.0, 2.0, 0.5), (0.0, -1.0, 0.0), (10, 6))
    expected = (
        b"\x08" + b"\x3f\x80\x00\x00\x40\x00\x00\x00\x3f\x00\x00\x00"
        b"\x00\x00\x00\x00\xbf\x80\x00\x00\x00\x00\x00\x00" + b"\x02\x00\x00\x00\x0a\x00\x00\x00\x06"
    )
    assert written(STANDARD, syntax.write_info_table, info) == expected
    assert syntax.read_info_table(reader(expected, STANDARD)) == info
    data = written(REFERENCE, syntax.write_info_table, info)
    assert data[1:5] == b"\x00\x00\x80\x3f" and syntax.read_info_table(reader(data, REFERENCE)) == info
    with pytest.raises(ParseError, match="numberOfCoefficientsPerLayer\\[1\\]"):
        syntax.read_info_table(reader(expected[:-2], STANDARD))


def vx3_round_trip(dialect, values, delta=0.25):
    data = written(dialect, lambda w: (w.u8(7, "before"), syntax.write_vx3(w, values, delta), w.u8(9, "after")))
    r = reader(data + b"junk", dialect)
    assert r.u8("before") == 7
    got, got_delta = syntax.read_vx3(r, *values.shape[:2])
    assert got_delta == delta and r.u8("after") == 9  # the sub-stream ends exactly where it should
    np.testing.assert_array_equal(got, values)
    return data


def smooth(rng, vectors, frames):
    phase = np.cumsum(rng.normal(size=(vectors, 1, 3)), axis=0) * 0.05
    decay = np.exp(-np.arange(frames) / 5.0)[None, :, None]
    return np.round(800 * np.cos(phase + np.arange(frames)[None, :, None] * 0.2) * decay).astype(np.int64)


@DIALECTS
@pytest.mark.parametrize("shape", [(1, 1), (1, 2), (2, 2), (3, 3), (1, 64), (17, 5), (200, 64), (4, 0), (0, 3)])
def test_vx3_round_trips(dialect, shape):
    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    sparse = rng.integers(-30, 30, shape + (3,)) * (rng.random(shape + (3,)) < 0.3)
    for values in (sparse, smooth(rng, *shape), np.zeros(shape + (3,), np.int64)):
        vx3_round_trip(dialect, values)
    vx3_round_trip(dialect, rng.integers(-(1 << 20), 1 << 20, shape + (3,)))


def test_vx3_prediction_pays_off_on_smooth_data():
    rng = np.random.default_rng(1)
    values = smooth(rng, 200, 64)
    predicted = vx3_round_trip(STANDARD, values)
    pred, _ = syntax._choose_predictors(values)
    assert pred[1:].mean() > 0.5
    shuffled = values[rng.permutation(200)]  # neighbours no longer alike
    assert len(predicted) < 0.8 * len(vx3_round_trip(STANDARD, shuffled))


def test_vx3_parameters_and_alignment():
    values = np.zeros((2, 3, 3), np.int64)
    values[0, 0, 0] = 100  # above the 16 unary bins: EGk matters
    standard = written(STANDARD, syntax.write_vx3, values, 2.0)
    reference = written(REFERENCE, syntax.write_vx3, values, 2.0)
    assert standard[:4] == b"\x40\x00\x00\x00" and reference[:4] == b"\x00\x00\x00\x40"
    assert standard[4] & 0x0F == 0  # EGk-1 (3 bits), cutOff-1 (1 bit), 4 zero bits to the byte boundary
    assert len(standard) == len(reference) + 1 or standard[5:] != reference[4:]


def test_vx3_last_significant_inference_differs_by_dialect():
    # significant at F-2 and F-1: the standard's text codes the bin at F-1, the reference infers it
    values = np.zeros((1, 2, 3), np.int64)
    values[0, :, 0] = (3, 4)
    standard = vx3_round_trip(STANDARD, values)
    reference = vx3_round_trip(REFERENCE, values)
    assert standard[5:] != reference[4:]


def test_vx3_predictor_before_the_first_vector_is_refused():
    # hand-built: 2 vectors, 1 frame, nothing significant, vector 1 predicted from 2 back
    enc = Encoder()
    cbp = Context(64)
    for _ in range(6):
        enc.symbol(0, cbp)
    for _ in range(4):
        enc.bypass(0)  # EGk-1 and cutOff-1, in the reference dialect after the significance map
    skip, pred, dim = Context(64), Context(64), Context(64)
    enc.symbol(0, skip)
    enc.unary_exp_golomb(2, pred)
    enc.unary_exp_golomb(0, dim)
    enc.symbol(1, skip)
    enc.symbol(1, skip)
    enc.final(1)
    data = b"\x00\x00\x80\x3f" + enc.finish()
    with pytest.raises(ParseError, match="before the first"):
        syntax.read_vx3(reader(data, REFERENCE), 2, 1, "affine transforms")


@DIALECTS
def test_quantised_tables(dialect):
    rng = np.random.default_rng(3)
    real = rng.normal(size=(8, 20, 3)) * (1.0, 10.0, 0.0)
    table = syntax.quantize(real, np.abs(real).max() / 4095)
    assert np.all(np.abs(table.real() - real) <= table.step() / 2 + 1e-12)
    data = written(dialect, syntax.write_affine_transforms, table)
    got = syntax.read_affine_transforms(reader(data, dialect), 2, 20)
    assert got.info == table.info and got.delta == np.float32(table.delta)
    np.testing.assert_array_equal(got.values, table.values)
    translation = syntax.quantize(real[:1], 0.05)
    data = written(dialect, syntax.write_global_translation, translation)
    np.testing.assert_array_equal(syntax.read_global_translation(reader(data, dialect), 20).real(), translation.real())


@DIALECTS
@pytest.mark.parametrize("clusters", [1, 2, 5, 64])
def test_partition_round_trips(dialect, clusters):
    rng = np.random.default_rng(clusters)
    labels = np.repeat(rng.integers(0, clusters, 40), rng.integers(1, 9, 40))
    labels[:clusters] = np.arange(clusters)
    data = written(dialect, syntax.write_partition, clusters, labels) + b"after"
    r = reader(data, dialect)
    got_clusters, got = syntax.read_partition(r, len(labels))
    assert got_clusters == clusters and r.take(5, "after") == b"after"
    np.testing.assert_array_equal(got, labels)


def test_one_cluster_label_bits_differ_by_dialect():
    labels = np.zeros(10, np.int64)
    standard = written(STANDARD, syntax.write_partition, 1, labels)
    reference = written(REFERENCE, syntax.write_partition, 1, labels)
    assert standard[8:] != reference[8:]  # 0 label bits vs the reference's 1


def test_partition_counts_are_checked():
    data = written(STANDARD, syntax.write_partition, 3, np.array([0, 1, 2, 2]))
    with pytest.raises(ParseError, match="numberOfClusters 3 is not in 1..2") as error:
        syntax.read_partition(reader(data, STANDARD), 2)
    assert error.value.offset == 0
    with pytest.raises(ParseError, match="passes the end") as error:
        syntax.read_partition(reader(data[:-1], STANDARD), 4)
    assert error.value.offset == 4
    with pytest.raises(ParseError, match="partition: a run of"):
        syntax.read_partition(reader(data, STANDARD), 3)


@DIALECTS
def test_vertex_info_round_trip(dialect):
    labels = np.array([3, 3, 0, 1, 1, 1, 2, 3])
    data = written(dialect, syntax.write_vertex_info, labels, 4)
    np.testing.assert_array_equal(syntax.read_normal_predictors(reader(data, dialect), len(labels)), labels)


def sample_weights(rng, vertices, clusters, bits):
    labels = np.sort(rng.integers(0, clusters, vertices))
    adjacency = []
    for k in range(clusters):
        others = [j for j in range(clusters) if j != k]
        adjacency.append([k] + sorted(rng.choice(others, rng.integers(0, clusters), replace=False).tolist()))
    width = max(len(a) for a in adjacency)
    retained = rng.random(vertices) < 0.6
    slots = syntax._slots(adjacency, labels) & retained[:, None]
    values = np.where(slots, rng.integers(0, 1 << bits, (vertices, width)), 0)
    return labels, Weights(bits, -0.5, 1.5, retained, adjacency, values)


@DIALECTS
@pytest.mark.parametrize("clusters, bits", [(1, 8), (2, 1), (4, 10), (9, 16)])
def test_weights_round_trip(dialect, clusters, bits):
    rng = np.random.default_rng(clusters * bits)
    labels, weights = sample_weights(rng, 60, clusters, bits)
    data = written(dialect, syntax.write_weights, weights, labels) + b"!"
    r = reader(data, dialect)
    got = syntax.read_weights(r, labels, clusters)
    assert r.take(1, "after") == b"!"
    assert (got.bits, got.minimum, got.maximum, got.adjacency) == (bits, -0.5, 1.5, weights.adjacency)
    np.testing.assert_array_equal(got.filter, weights.filter)
    np.testing.assert_array_equal(got.values, weights.values)
    real = got.real(labels)
    step = 2.0 / ((1 << bits) - 1)
    v = int(np.flatnonzero(weights.filter)[0])
    assert real[v, 0] == pytest.approx(-0.5 + weights.values[v, 0] * step)
    assert np.all(real[~weights.filter, 0] == 1.0) and np.all(real[~weights.filter, 1:] == 0.0)


def test_weight_bits_are_bounded():
    data = b"\x21" + bytes(20)
    with pytest.raises(ParseError, match="numberOfQuantizationBits 33"):
        syntax.read_weights(reader(data, STANDARD), np.zeros(3, np.int64), 1)


def segment(dialect):
    """A header and a whole skinning model, for truncation and corruption tests."""
    rng = np.random.default_rng(11)
    labels, weights = sample_weights(rng, 30, 3, 6)
    writer = BitWriter(dialect)
    syntax.write_header(writer, SegmentHeader(size=0, times=tuple(range(0, 400, 40))))
    syntax.write_global_translation(writer, syntax.quantize(rng.normal(size=(1, 10, 3)), 0.01))
    syntax.write_partition(writer, 3, labels)
    syntax.write_affine_transforms(writer, syntax.quantize(rng.normal(size=(12, 10, 3)), 0.01))
    syntax.write_weights(writer, weights, labels)
    return writer.getvalue()


def read_segment(data, dialect):
    r = reader(data, dialect)
    header = syntax.read_header(r)
    syntax.read_global_translation(r, header.frames)
    clusters, labels = syntax.read_partition(r, 30)
    syntax.read_affine_transforms(r, clusters, header.frames)
    syntax.read_weights(r, labels, clusters)
    return r.offset


@DIALECTS
def test_truncated_segments_raise_parse_errors_with_offsets(dialect):
    data = segment(dialect)
    assert read_segment(data, dialect) == len(data)
    for cut in range(len(data)):
        with pytest.raises(ParseError) as error:
            read_segment(data[:cut], dialect)
        assert error.value.offset is not None and error.value.offset <= cut


@DIALECTS
def test_corrupt_segments_raise_only_parse_errors(dialect):
    data = segment(dialect)
    rnd = random.Random(7)
    for _ in range(300):
        corrupt = bytearray(data)
        for _ in range(rnd.randint(1, 4)):
            corrupt[rnd.randrange(4, len(corrupt))] ^= 1 << rnd.randrange(8)
        try:
            read_segment(bytes(corrupt), dialect)
        except ParseError as error:
            assert error.offset is not None
