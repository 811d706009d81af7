"""FAMC syntax elements (ISO/IEC 14496-16 Amd.2, 5.10.5-5.10.14), read and written bit-exactly in
both dialects (see `bits`).

Each `read_*` takes a BitReader and leaves it just after the element; each `write_*` is its twin
on a BitWriter. Counts read from the stream are checked before anything is allocated from them:
a caller passes the vertex and frame counts it trusts (it bounds V x F).

Where the dialects differ (the standard's text vs what the reference software does):

=====================  ==========================================  ==========================================
element                STANDARD (ISO/IEC 14496-16 Amd 2, 5.10)     REFERENCE (the reference software)
=====================  ==========================================  ==========================================
segment header         5.10.5 field order and bit widths;          u32 start code, u32 segment size, u8 static
                       numberOfFrames = decoded frames, a time     mesh decoding type, u8 mask (bit 0..3 fields,
                       per frame                                   4-6 transform, 7 interpolation), u8 normals
                                                                   prediction, u32 frames + 1 (frame 0 is the
                                                                   static mesh), a time per decoded frame; no
                                                                   colour or other-attribute strategies (0)
Vx3 EGk and cutOff     u(3) EGk-1, u(1) cutOff-1 after delta, then bypass bins after the significance map,
                       4 zero bits to the byte boundary before     LSB first (its ResidualDecoder::xReadPar)
                       the arithmetic sub-stream
Vx3 significance map   the pseudo-code literally: its `else if     after a "not last" at F-2 the bin at F-1 is
                       (k + 2 == F)` is the else of `if (sig &&    not coded (it must be significant): the
                       k + 1 < F)`, so its assignment is           reference's SigLastDecoder
                       overwritten by the next iteration's bin:
                       the bin at F-1 is always coded
partition labels       (K-1).bit_length() bypass bits (0 for one   the same, but 1 bit for one cluster (its
                       cluster: the log(nC-1) of 5.10.12.1 is      DecodePartition)
                       undefined there)
=====================  ==========================================  ==========================================

Also decided here (the standard's text silent or self-contradictory; the reference decides):
- animatedFields: bit value 1 = coordinates (the syntax's `animatedFields & 1`), 2 normals, 4
  colours, 8 other; a set bit means animated (Table AMD2.2 reads the other way round).
- Vx3: `pred`/`predDim` are per component (the inverse-prediction pseudo-code drops the [c]) and
  prediction covers min(predDim, F) coefficients (predDim can reach F + 3).
- Weights: the cluster adjacency of cluster k is k itself followed by its decoded neighbours, and
  a retained vertex has one weight per entry of its own cluster's adjacency (the reference's
  DecompressWeights); the weight bit-planes use a context initialised with 2, as the reference
  does (our copy of 5.10.14.2 stops before step (c)); weights un-quantise as min + q (max - min) /
  (2^bits - 1) (the reference's 2^(bits-1) is a bug).
- Tables (global translation, affine transforms) un-quantise per dimension as q max / (2^bits - 1),
  the reference's DCTEncoder::Unquantize: its quantiser is symmetric (max = largest |value|) and
  writes min = 0, which neither side uses; the Vx3 `delta` (reciprocal step) is carried and
  written as the reciprocal step of the widest dimension, but the reference has no such field
  and the un-quantisation does not use it. One Vx3 holds the whole table: the InfoTable's layer
  counts are carried, not used to split it (the reference codes one sub-stream per layer).
- Normal predictors (FAMCVertexInfoDecoder(4, V)) follow the standard (5.10.7) in both dialects:
  the reference codes them differently (u32 size, then 2 - unary/Exp-Golomb per normal).
"""

from dataclasses import dataclass

import numpy as np

from ...errors import beyond, first_beyond
from .bits import REFERENCE, STANDARD, START_CODE
from .cabac import Context, Decoder, Encoder

PRED_QUANT_BITS = 2
WEIGHT_CONTEXT = 2  # initial state of the weight bit-plane context (the reference's)
MAX_WEIGHT_BITS = 32
MAX_SLOTS = 1 << 23  # vertices x the longest cluster adjacency: the weight arrays stay bounded
_DTYPE = {STANDARD: ">u4", REFERENCE: "<u4"}


# ---------------------------------------------------------------- segment header (5.10.5)


@dataclass
class SegmentHeader:
    """One segment's header, the same meaning in both dialects."""

    size: int  # animationSegmentSize: bytes of the segment
    times: tuple  # rendering time (ms) of each decoded frame; len(times) = decoded frames
    animated_fields: int = 1  # 1 coordinates, 2 normals, 4 colours, 8 other attributes
    transform_type: int = 1  # 0 lift, 1 DCT, 2 LD, 3 lift + LD, 4 DCT + LD
    interpolation_needed: bool = False
    normals_prediction: int = 0  # 0 delta, 1 skinning, 2 tangential skinning, 3 adaptive
    colors_prediction: int = 0
    other_prediction: int = 0
    static_mesh_decoding_type: int = 0

    @property
    def frames(self):
        return len(self.times)


def read_header(reader):
    at = reader.offset
    if reader.u32("startCode") != START_CODE:
        raise reader.error("expected the segment start code 00 00 01 F0", at)
    if reader.dialect is STANDARD:
        decoding_type = reader.u8("staticMeshDecodingType")
        size = reader.u32("animationSegmentSize")
        fields, transform, interpolation = (
            reader.u(4, "animatedFields"),
            reader.u(3, "transformType"),
            reader.u(1, "interpolationNeeded"),
        )
        normals, colors, other = (
            reader.u(2, "normalsPredictionStrategy"),
            reader.u(2, "colorsPredictionStrategy"),
            reader.u(4, "otherAttributesPredictionStrategy"),
        )
        frames = reader.u32("numberOfFrames")
    else:
        size = reader.u32("animationSegmentSize")
        decoding_type = reader.u8("staticMeshDecodingType")
        mask = reader.u8("animated fields mask")
        fields, transform, interpolation = mask & 15, (mask >> 4) & 7, mask >> 7
        at = reader.offset
        normals, colors, other = reader.u8("normalsPredictionStrategy"), 0, 0
        if normals > 3:
            raise reader.error(f"normalsPredictionStrategy {normals} is not 0-3", at)
        at = reader.offset
        frames = reader.u32("numberOfFrames") - 1
        if frames < 0:
            raise reader.error("numberOfFrames is 0: the static mesh (frame 0) is counted in", at)
    raw = reader.take(4 * frames, f"timeFrame[{frames}]")  # checked against the data before it is sliced
    times = tuple(np.frombuffer(raw, _DTYPE[reader.dialect]).tolist())
    return SegmentHeader(size, times, fields, transform, bool(interpolation), normals, colors, other, decoding_type)


def write_header(writer, header):
    writer.u32(START_CODE, "startCode")
    if writer.dialect is STANDARD:
        writer.u8(header.static_mesh_decoding_type, "staticMeshDecodingType")
        writer.u32(header.size, "animationSegmentSize")
        writer.u(header.animated_fields, 4, "animatedFields")
        writer.u(header.transform_type, 3, "transformType")
        writer.u(int(header.interpolation_needed), 1, "interpolationNeeded")
        writer.u(header.normals_prediction, 2, "normalsPredictionStrategy")
        writer.u(header.colors_prediction, 2, "colorsPredictionStrategy")
        writer.u(header.other_prediction, 4, "otherAttributesPredictionStrategy")
        writer.u32(header.frames, "numberOfFrames")
    else:
        if header.colors_prediction or header.other_prediction:
            raise ValueError("the reference dialect has no colour or other-attribute prediction strategy (must be 0)")
        writer.u32(header.size, "animationSegmentSize")
        writer.u8(header.static_mesh_decoding_type, "staticMeshDecodingType")
        for value, bits, name in (
            (header.animated_fields, 4, "animatedFields"),
            (header.transform_type, 3, "transformType"),
        ):
            if not 0 <= value < 1 << bits:
                raise ValueError(f"{name} = {value} does not fit {bits} unsigned bits")
        mask = header.animated_fields | header.transform_type << 4 | int(header.interpolation_needed) << 7
        writer.u8(mask, "animated fields mask")
        if not 0 <= header.normals_prediction <= 3:
            raise ValueError(f"normalsPredictionStrategy = {header.normals_prediction} is not 0-3")
        writer.u8(header.normals_prediction, "normalsPredictionStrategy")
        writer.u32(header.frames + 1, "numberOfFrames")
    for f, time in enumerate(header.times):
        writer.u32(time, f"timeFrame[{f}]")


# ---------------------------------------------------------------- info table (5.10.9)


@dataclass
class InfoTable:
    bits: int  # numberOfQuantizationBits
    maximum: tuple  # maxValueD1..D3
    minimum: tuple = (0.0, 0.0, 0.0)  # minValueD1..D3
    layers: tuple = ()  # numberOfCoefficientsPerLayer, one per decomposed layer


def read_info_table(reader):
    bits = reader.u8("numberOfQuantizationBits")
    maximum = tuple(reader.f32(f"maxValueD{d}") for d in (1, 2, 3))
    minimum = tuple(reader.f32(f"minValueD{d}") for d in (1, 2, 3))
    count = reader.u8("numberOfDecomposedLayers")
    layers = tuple(reader.u32(f"numberOfCoefficientsPerLayer[{layer}]") for layer in range(count))
    return InfoTable(bits, maximum, minimum, layers)


def write_info_table(writer, info):
    writer.u8(info.bits, "numberOfQuantizationBits")
    for d, value in enumerate(info.maximum, 1):
        writer.f32(value, f"maxValueD{d}")
    for d, value in enumerate(info.minimum, 1):
        writer.f32(value, f"minValueD{d}")
    writer.u8(len(info.layers), "numberOfDecomposedLayers")
    for layer, count in enumerate(info.layers):
        writer.u32(count, f"numberOfCoefficientsPerLayer[{layer}]")


# ---------------------------------------------------------------- V x F x 3 integer tables (5.10.10)


def _cells(frames):
    """Significance and last contexts by coefficient: 64 cells of ceil(F / 64) coefficients."""
    sig, last = [Context(64) for _ in range(64)], [Context(64) for _ in range(64)]
    cell = max(1, (frames + 63) // 64)
    return [sig[k // cell] for k in range(frames)], [last[k // cell] for k in range(frames)]


def read_vx3(reader, vectors, frames, element="table"):
    """FAMCCabacVx3Decoder2(V, F): returns (values (V, F, 3) int64 after inverse prediction, delta)."""
    delta = reader.f32(f"{element} delta")
    standard = reader.dialect is STANDARD
    if standard:
        egk = reader.u(3, f"{element} EGk") + 1
        cutoff = reader.u(1, f"{element} cutOff") + 1
        reader.align()
    dec = Decoder(reader.data, reader.offset, reader.end, reader.path, element)
    symbol, bypass = dec.symbol, dec.bypass
    # significance map, in (v, c, k) order: flat indices into (V, 3, F)
    cbp = Context(64)
    sig, last = _cells(frames)
    positions = []
    append = positions.append
    for row in range(vectors * 3):
        if symbol(cbp):
            base = row * frames
            for k in range(frames):
                if symbol(sig[k]):
                    append(base + k)
                    if k + 1 < frames:
                        if symbol(last[k]):
                            break
                        if not standard and k + 2 == frames:
                            append(base + k + 1)
                            break
    if not standard:
        egk = sum(bypass() << i for i in range(3)) + 1
        cutoff = bypass() + 1
    # absolute values: unary (16 bins, contexts min(i, cutOff-1)), then 17 + Exp-Golomb(EGk)
    unary = _unary_contexts(cutoff)
    levels = []
    for _ in positions:
        i = 0
        while i < 16 and symbol(unary[i]):
            i += 1
        levels.append(i + 1 if i < 16 else 17 + dec.exp_golomb_bypass(egk))
    signs = [bypass() for _ in positions]
    predictions = _read_predictors(dec, vectors, frames)
    if not dec.final():
        raise dec.error("the final bin is 0: the sub-stream does not end where it should")
    reader.offset = dec.end
    flat = np.zeros(vectors * 3 * frames, np.int64)
    flat[np.asarray(positions, np.int64)] = np.asarray(levels, np.int64) * (1 - 2 * np.asarray(signs, np.int64))
    values = flat.reshape(vectors, 3, frames)
    for v, c, p, d in predictions:  # inverse prediction, in vertex order
        if p > v:
            raise dec.error(f"vector {v} is predicted from {p} vectors back, before the first", dec.end)
        values[v, c, :d] += values[v - p, c, :d]
    return np.ascontiguousarray(values.transpose(0, 2, 1)), delta


def _unary_contexts(cutoff):
    """The context of each of the 16 unary bins of an absolute value: bin i uses min(i, cutOff - 1)."""
    contexts = [Context(64) for _ in range(cutoff)]
    return [contexts[min(i, cutoff - 1)] for i in range(16)]


def _read_predictors(dec, vectors, frames):
    """The predictor syntax: (v, c, pred, coefficients predicted) for every predicted component."""
    symbol = dec.symbol
    skip, pred_ctx, dim_ctx = Context(64), Context(64), Context(64)
    last_pred, last_dim, previous = [0, 0, 0], [0, 0, 0], [1, 1, 1]
    widest = _largest_pred_dim(frames)
    out = []
    for v in range(1, vectors):
        for c in range(3):
            if symbol(skip):
                p = last_pred[c]
                d = last_dim[c] if p else 0
            else:
                p = dec.unary_exp_golomb(pred_ctx, 2)
                d = 0
                if p:
                    r = dec.unary_exp_golomb(dim_ctx, 2) << PRED_QUANT_BITS
                    if r and (previous[c] + r > widest or (previous[c] - r >= 0 and dec.bypass())):
                        r = -r
                    d = previous[c] = previous[c] + r
            last_pred[c], last_dim[c] = p, d
            if p and d > 0:
                out.append((v, c, p, min(d, frames)))
    return out


def write_vx3(writer, values, delta, element="table"):
    """Twin of read_vx3: chooses predictors and EGk; cutOff 2 (two unary contexts: within 0.1% of the
    better of 1 and 2 on the benchmark's tables, at half the encoding time of trying both)."""
    values = np.asarray(values, np.int64)
    vectors, frames = values.shape[:2]
    pred, dims = _choose_predictors(values)
    span = np.minimum(dims, frames)[:, None, :] > np.arange(frames)[None, :, None]
    residual = values.copy()
    residual[1:] -= np.where(span[1:], values[:-1], 0)
    egk = _best_exp_golomb_order(np.abs(residual[residual != 0]))
    standard = writer.dialect is STANDARD
    cutoff = 2
    data = _encode_vx3(residual, pred, dims, egk, cutoff, standard)
    writer.f32(delta, f"{element} delta")
    if standard:
        writer.u(egk - 1, 3, f"{element} EGk")
        writer.u(cutoff - 1, 1, f"{element} cutOff")
        writer.align()
    writer.put(data)


def _largest_pred_dim(frames):
    """5.10.10.1's largestAllowedPredDim: a predDim step that would pass it is negative, unsigned."""
    return frames + (1 << PRED_QUANT_BITS) - 1


def _choose_predictors(values):
    """Per vector v >= 1 and component: predict from vector v-1 over the leading predDim
    coefficients (predDim on the 1 + 4j grid the syntax codes) when an estimate of the bits
    (about 2 + 2 log2(1 + |x|) per non-zero value) drops by more than the side information."""
    vectors, frames = values.shape[:2]
    pred = np.zeros((vectors, 3), np.int64)
    dims = np.zeros((vectors, 3), np.int64)
    if vectors < 2 or frames == 0:
        return pred, dims
    codes = 1 + (np.arange((frames + 2) // 4 + 1) << PRED_QUANT_BITS)  # coded predDim <= F + 3
    ends = np.minimum(codes, frames) - 1

    def bits(x):
        return np.where(x == 0, 0.5, 2.0 + 2.0 * np.log2(1.0 + np.abs(x)))

    plain = np.cumsum(bits(values[1:]), axis=1)
    diff = np.cumsum(bits(values[1:] - values[:-1]), axis=1)
    total = plain[:, -1]
    cost = diff[:, ends] + total[:, None] - plain[:, ends]
    best = np.argmin(cost, axis=1)
    use = np.take_along_axis(cost, best[:, None], axis=1)[:, 0] + 3.0 < total
    pred[1:] = use
    dims[1:] = np.where(use, codes[best], 0)
    return pred, dims


def _best_exp_golomb_order(levels):
    """The EGk in 1..8 with the fewest bypass bins for the levels above the 16 unary bins."""
    rest = levels[levels >= 17] - 17
    if not rest.size:
        return 1
    cost = [(np.floor(np.log2((rest >> k) + 1)) * 2 + 1 + k).sum() for k in range(1, 9)]
    return 1 + int(np.argmin(cost))


def _encode_vx3(residual, pred, dims, egk, cutoff, standard):
    """The arithmetic sub-stream of a Vx3 table (residuals after prediction)."""
    vectors, frames = residual.shape[:2]
    enc = Encoder()
    symbol, bypass = enc.symbol, enc.bypass
    rows = residual.transpose(0, 2, 1).reshape(vectors * 3, frames)
    nonzero = rows != 0
    ends = (frames - 1 - np.argmax(nonzero[:, ::-1], axis=1)).tolist() if frames else [0] * len(rows)
    cbp = Context(64)
    sig, last = _cells(frames)
    for flags, end, any_set in zip(nonzero.tolist(), ends, nonzero.any(axis=1).tolist()):
        symbol(any_set, cbp)
        if not any_set:
            continue
        for k in range(end + 1):
            s = flags[k]
            symbol(s, sig[k])
            if s and k + 1 < frames:
                symbol(k == end, last[k])
                if k == end or (not standard and k + 2 == frames):
                    break
    if not standard:
        for i in range(3):
            bypass(((egk - 1) >> i) & 1)
        bypass(cutoff - 1)
    levels = rows[nonzero]
    unary = _unary_contexts(cutoff)
    for level in np.abs(levels).tolist():
        run = level - 1
        for i in range(min(run, 16)):
            symbol(1, unary[i])
        if run < 16:
            symbol(0, unary[run])
        else:
            enc.exp_golomb_bypass(level - 17, egk)
    for negative in (levels < 0).tolist():
        bypass(negative)
    _write_predictors(enc, pred.tolist(), dims.tolist(), frames)
    enc.final(1)
    return enc.finish()


def _write_predictors(enc, pred, dims, frames):
    skip, pred_ctx, dim_ctx = Context(64), Context(64), Context(64)
    last_pred, last_dim, previous = [0, 0, 0], [0, 0, 0], [1, 1, 1]
    widest = _largest_pred_dim(frames)
    for v in range(1, len(pred)):
        for c in range(3):
            p, d = pred[v][c], dims[v][c] if pred[v][c] else 0
            same = p == last_pred[c] and (p == 0 or d == last_dim[c])
            enc.symbol(same, skip)
            if not same:
                enc.unary_exp_golomb(p, pred_ctx, 2)
                if p:
                    r = ((d - 1) >> PRED_QUANT_BITS) - ((previous[c] - 1) >> PRED_QUANT_BITS)
                    enc.unary_exp_golomb(abs(r), dim_ctx, 2)
                    step = abs(r) << PRED_QUANT_BITS
                    if r and previous[c] + step <= widest and previous[c] - step >= 0:
                        enc.bypass(r < 0)
                    previous[c] = d
            last_pred[c], last_dim[c] = p, d


# ---------------------------------------------------------------- quantised tables (5.10.8, 5.10.13)


@dataclass
class QuantizedTable:
    """An InfoTable and its Vx3 table: `real()` un-quantises (see the module notes)."""

    info: InfoTable
    values: np.ndarray  # (V, F, 3) int64
    delta: float = 1.0

    def step(self):
        """(3,) quantisation step per dimension: maximum / (2^bits - 1) (0 for 0 bits)."""
        levels = (1 << self.info.bits) - 1
        return np.asarray(self.info.maximum, np.float64) / levels if levels else np.zeros(3)

    def real(self):
        return self.values * self.step()


def quantize(real, step):
    """A QuantizedTable of `real` (V, F, 3) with about the quantisation step `step` (the fewest bits
    whose levels hold its values; maximum = step x levels as float32, so the step is what that gives)."""
    largest = float(np.abs(real).max()) if np.size(real) else 0.0
    if not np.isfinite(np.float32(largest + step)):
        raise ValueError(f"values up to {largest:.3g} are beyond the float32 range of the stream's tables")
    bits = max(1, int(np.ceil(np.log2(largest / step + 1.5))))
    if bits > 31:
        raise ValueError(
            f"a quantisation step of {step:.3g} is below what 31 bits can reach for values up to {largest:.3g}"
        )
    levels = (1 << bits) - 1
    maximum = float(np.float32(step * levels))
    step = maximum / levels
    q = np.clip(np.round(np.asarray(real) / step), -levels, levels).astype(np.int64)
    return QuantizedTable(InfoTable(bits, (maximum,) * 3), q, 1 / step)


def read_table(reader, vectors, frames, element="table"):
    at = reader.offset
    info = read_info_table(reader)
    bad = first_beyond(info.maximum)
    if bad is not None:  # the values are at most the range: bounded with it
        raise reader.error(
            beyond(f"{element}: maxValueD{bad[0] + 1} (the quantisation range)", info.maximum[bad[0]]), at
        )
    values, delta = read_vx3(reader, vectors, frames, element)
    return QuantizedTable(info, values, delta)


def write_table(writer, table, element="table"):
    write_info_table(writer, table.info)
    write_vx3(writer, table.values, table.delta, element)


def read_global_translation(reader, frames):
    """FAMCGlobalTranslationDecoder: InfoTable + Vx3(1, F)."""
    return read_table(reader, 1, frames, "global translation")


def read_affine_transforms(reader, clusters, frames):
    """FAMCAffineTransformsDecoder: InfoTable + Vx3(4 K, F), four point trajectories per cluster."""
    return read_table(reader, 4 * clusters, frames, "affine transforms")


def write_global_translation(writer, table):
    write_table(writer, table, "global translation")


def write_affine_transforms(writer, table):
    write_table(writer, table, "affine transforms")


# ---------------------------------------------------------------- vertex info and partition (5.10.11-12)


def _label_bits(kinds, dialect, partition):
    if partition and dialect is REFERENCE:
        return max(1, (kinds - 1).bit_length())
    return (kinds - 1).bit_length()


def _decode_runs(dec, kinds, vertices, nbits):
    bypass = dec.bypass
    ctx = Context(61)
    labels = np.empty(vertices, np.int64)
    v = 0
    while v < vertices:
        label = 0
        for _ in range(nbits):
            label = (label << 1) | bypass()
        if label >= kinds:
            raise dec.error(f"label {label} at vertex {v} is not below {kinds}")
        run = dec.unary_exp_golomb(ctx, 2) + 1
        if v + run > vertices:
            raise dec.error(f"a run of {run} from vertex {v} passes the {vertices} vertices")
        labels[v : v + run] = label
        v += run
    if not dec.final():
        raise dec.error("the final bin is 0: the sub-stream does not end where it should")
    return labels


def _encode_runs(labels, nbits):
    labels = np.asarray(labels, np.int64)
    enc = Encoder()
    ctx = Context(61)
    starts = np.flatnonzero(np.diff(labels, prepend=-1))
    lengths = np.diff(starts, append=len(labels))
    for label, length in zip(labels[starts].tolist(), lengths.tolist()):
        for i in range(nbits - 1, -1, -1):
            enc.bypass((label >> i) & 1)
        enc.unary_exp_golomb(length - 1, ctx, 2)
    enc.final(1)
    return enc.finish()


def _check_labels(labels, kinds):
    labels = np.asarray(labels)
    if labels.size and (labels.min() < 0 or labels.max() >= kinds):
        raise ValueError(f"labels must be in 0..{kinds - 1}")


def read_vertex_info(reader, kinds, vertices, element="vertex info"):
    """FAMCVertexInfoDecoder(nC, nV): a label in 0..nC-1 per vertex (runs of equal labels)."""
    dec = Decoder(reader.data, reader.offset, reader.end, reader.path, element)
    labels = _decode_runs(dec, kinds, vertices, _label_bits(kinds, reader.dialect, False))
    reader.offset = dec.end
    return labels


def write_vertex_info(writer, labels, kinds):
    _check_labels(labels, kinds)
    writer.put(_encode_runs(labels, _label_bits(kinds, writer.dialect, False)))


def read_normal_predictors(reader, vertices):
    """FAMCVertexInfoDecoder(4, V), present when normalsPredictionStrategy is 3."""
    return read_vertex_info(reader, 4, vertices, "normals predictors")


def _sub_stream(reader, name):
    """A u32 size and the bounds of the sub-stream it announces, checked against the data."""
    size = reader.u32(name)
    start = reader.offset
    if size > reader.end - start:
        raise reader.error(f"{name} {size} passes the end of the data ({reader.end - start} bytes left)", start - 4)
    return start, start + size


def read_partition(reader, vertices):
    """FAMCAnimationPartitionDecoder: (number of clusters, a cluster per vertex)."""
    at = reader.offset
    clusters = reader.u32("numberOfClusters")
    if not 1 <= clusters <= vertices:
        raise reader.error(f"numberOfClusters {clusters} is not in 1..{vertices} (the vertex count)", at)
    start, end = _sub_stream(reader, "compressedPartitionBufferSize")
    dec = Decoder(reader.data, start, end, reader.path, "partition")
    labels = _decode_runs(dec, clusters, vertices, _label_bits(clusters, reader.dialect, True))
    reader.offset = end
    return clusters, labels


def write_partition(writer, clusters, labels):
    _check_labels(labels, clusters)
    data = _encode_runs(labels, _label_bits(clusters, writer.dialect, True))
    writer.u32(clusters, "numberOfClusters")
    writer.u32(len(data), "compressedPartitionBufferSize")
    writer.put(data)


# ---------------------------------------------------------------- animation weights (5.10.14)


@dataclass
class Weights:
    """Decoded animation weights. `adjacency[k]` is cluster k followed by its neighbours; row v
    of `values` holds retained vertex v's quantised weights over adjacency[labels[v]] (zero
    padded; zero rows for vertices that follow their own cluster only)."""

    bits: int
    minimum: float
    maximum: float
    filter: np.ndarray  # (V,) bool: the vertex has weights
    adjacency: list  # per cluster, an int array: the cluster itself, then its neighbours
    values: np.ndarray  # (V, max adjacency) int64

    def real(self, labels):
        """(V, max adjacency) weights over adjacency[labels[v]]: min + q (max - min) / (2^bits - 1)
        for retained vertices, (1, 0, ...) for the others, 0 in padding."""
        levels = (1 << self.bits) - 1
        step = (self.maximum - self.minimum) / levels if levels else 0.0
        real = np.zeros(self.values.shape)
        real[:, 0] = 1.0
        valid = _slots(self.adjacency, labels)
        real[self.filter] = np.where(valid[self.filter], self.minimum + self.values[self.filter] * step, 0.0)
        return real


def _slots(adjacency, labels):
    """(V, max adjacency) mask of the weights each vertex's cluster has."""
    sizes = np.array([len(a) for a in adjacency], np.int64)
    return np.arange(sizes.max())[None, :] < sizes[np.asarray(labels, np.int64)][:, None]


def read_weights(reader, labels, clusters):
    """FAMCAnimationWeightsDecoder for the partition `labels` of `clusters` clusters."""
    vertices = len(labels)
    at = reader.offset
    bits = reader.u8("numberOfQuantizationBits")
    if bits > MAX_WEIGHT_BITS:
        raise reader.error(f"numberOfQuantizationBits {bits} for weights is above {MAX_WEIGHT_BITS}", at)
    minimum = reader.f32("minWeights")
    maximum = reader.f32("maxWeights")
    if not np.isfinite([minimum, maximum]).all():
        raise reader.error("the weight range is not finite", at)
    start, end = _sub_stream(reader, "compressedWeightsBufferSize")
    dec = Decoder(reader.data, start, end, reader.path, "animation weights")
    symbol, bypass = dec.symbol, dec.bypass
    ctx = Context(61)
    retained = np.array([symbol(ctx) for _ in range(vertices)], bool)
    ctx = Context(61)
    nbits = (clusters - 1).bit_length()
    adjacency = []
    for k in range(clusters):
        count = dec.unary_exp_golomb(ctx, 2)
        if count > clusters - 1:
            raise dec.error(f"cluster {k} has {count} neighbours, more than the other {clusters - 1} clusters")
        neighbours, seen = [k], {k}
        for _ in range(count):
            index = 0
            for _ in range(nbits):
                index = (index << 1) | bypass()
            if index >= clusters or index in seen:
                raise dec.error(f"neighbour {index} of cluster {k} is not a cluster below {clusters} listed once")
            neighbours.append(index)
            seen.add(index)
        adjacency.append(neighbours)
    width = max(map(len, adjacency))
    if vertices * width > MAX_SLOTS:
        raise dec.error(f"{vertices} vertices x {width} neighbouring clusters is beyond {MAX_SLOTS} weights")
    slots = _slots(adjacency, labels) & retained[:, None]
    ctx = Context(WEIGHT_CONTEXT)
    total = int(slots.sum())
    q = np.zeros(total, np.int64)
    for _ in range(bits):  # bit-planes, most significant first
        q = (q << 1) | np.array([symbol(ctx) for _ in range(total)], np.int64)
    if not dec.final():
        raise dec.error("the final bin is 0: the sub-stream does not end where it should")
    reader.offset = end
    values = np.zeros(slots.shape, np.int64)
    values[slots] = q
    return Weights(bits, minimum, maximum, retained, adjacency, values)


def write_weights(writer, weights, labels):
    slots = _slots(weights.adjacency, labels) & np.asarray(weights.filter, bool)[:, None]
    q = np.asarray(weights.values, np.int64)[slots]
    if q.size and (q.min() < 0 or q.max() >= 1 << weights.bits):
        raise ValueError(f"weights must be in 0..{(1 << weights.bits) - 1} for {weights.bits} bits")
    clusters = len(weights.adjacency)
    nbits = (clusters - 1).bit_length()
    enc = Encoder()
    ctx = Context(61)
    for flag in np.asarray(weights.filter, bool).tolist():
        enc.symbol(flag, ctx)
    ctx = Context(61)
    for k, neighbours in enumerate(weights.adjacency):
        if len(neighbours) == 0 or neighbours[0] != k:
            raise ValueError(f"adjacency[{k}] must start with the cluster itself")
        enc.unary_exp_golomb(len(neighbours) - 1, ctx, 2)
        for index in neighbours[1:]:
            for i in range(nbits - 1, -1, -1):
                enc.bypass((index >> i) & 1)
    ctx = Context(WEIGHT_CONTEXT)
    for plane in range(weights.bits - 1, -1, -1):
        for bit in ((q >> plane) & 1).tolist():
            enc.symbol(bit, ctx)
    enc.final(1)
    data = enc.finish()
    writer.u8(weights.bits, "numberOfQuantizationBits")
    writer.f32(weights.minimum, "minWeights")
    writer.f32(weights.maximum, "maxWeights")
    writer.u32(len(data), "compressedWeightsBufferSize")
    writer.put(data)
