"""FAMC streams: segments back to back (`scan`), each decoded on its own (`decode_segment`) from
the static mesh, and encoded (`encode_segment`) to a target error.

A segment is the standard's header and skinning model (syntax.py), then the residual errors in
this project's own syntax (the standard's text stops before it), announced by RESIDUAL_TAG:
an info table and a V x F x 3 table (the standard's coder) of the residuals of every vertex, as
their orthonormal DCT over the segment's frames (transformType 1) or quantised in time and
lifted by the integer LeGall 5/3 wavelet (transformType 0).
"""

from dataclasses import dataclass

import numpy as np

from ...errors import ParseError
from . import syntax
from .bits import BitReader, BitWriter
from .skinning import (
    affine_from_points,
    anchor_points,
    cluster_adjacency,
    cluster_by_motion,
    fit_affine,
    points_from_affine,
    predict,
    skinning_weights,
)
from .transforms import dct, idct, lift, unlift

RESIDUAL_TAG = b"MIO1"  # our residual syntax, version 1 (where FAMCAllResidualErrors begins)
TRANSFORMS = {"lift": 0, "dct": 1}  # transformType of the residuals; 2-4 (layered) are not decoded
MAX_VALUES = 1 << 25  # vertices x frames of one segment: the decoder's arrays stay below a GiB
WEIGHT_BITS = 12
_MARGIN = 0.999  # of the target error, against rounding in the decoder's sums


@dataclass(frozen=True)
class Segment:
    """Where a segment is (`offset` of its start code) and which frames of the stream it holds."""

    first: int
    offset: int
    header: syntax.SegmentHeader

    @property
    def frames(self):
        return range(self.first, self.first + self.header.frames)


def scan(path, data, dialect, vertices):
    """The segments of a stream: every header read and checked, nothing decoded."""
    segments, at, first = [], 0, 0
    while at < len(data):
        reader = BitReader(data, at, dialect, path)
        header = syntax.read_header(reader)
        if not reader.offset - at <= header.size <= len(data) - at:
            raise ParseError(
                path,
                f"animationSegmentSize {header.size} does not fit the segment (its header alone is "
                f"{reader.offset - at} bytes, {len(data) - at} bytes are left)",
                offset=at,
            )
        problem = _unsupported(header, vertices)
        if problem:
            raise ParseError(path, f"segment {len(segments)}: {problem}", offset=at)
        segments.append(Segment(first, at, header))
        first += header.frames
        at += header.size
    return segments


def _unsupported(header, vertices):
    if header.static_mesh_decoding_type != 0:
        return f"staticMeshDecodingType {header.static_mesh_decoding_type} is reserved (0: the mesh is the .obj)"
    if header.animated_fields != 1:
        return f"animatedFields {header.animated_fields}: only vertex coordinates (1) are decoded"
    if header.transform_type not in TRANSFORMS.values():
        return f"transformType {header.transform_type}: only Lift (0) and DCT (1) residuals are decoded"
    if header.interpolation_needed:
        return "interpolationNeeded is set: the standard does not say how to interpolate"
    if header.frames * max(vertices, 1) > MAX_VALUES:
        return f"{header.frames} frames x {vertices} vertices is beyond {MAX_VALUES} values per segment"
    return None


def decode_segment(source, segment):
    """(F, V, 3) positions of one segment of `source` (a FamcSource: data, dialect, rest, path)."""
    header = segment.header
    end = segment.offset + header.size
    reader = BitReader(source.data, segment.offset, source.dialect, source.path, end=end)
    syntax.read_header(reader)
    prediction = _read_model(reader, source.rest, header.frames)
    at = reader.offset
    if reader.take(len(RESIDUAL_TAG), "residual syntax tag") != RESIDUAL_TAG:
        raise reader.error(f"expected our residual syntax {RESIDUAL_TAG.decode()} (see docs/famc.md)", at)
    table = syntax.read_table(reader, len(source.rest), header.frames, "residual errors")
    if reader.offset != end:
        raise reader.error(f"{end - reader.offset} bytes left in the segment after its residual errors")
    positions = prediction + _residuals(table, header.transform_type)
    if not np.isfinite(positions).all():
        raise ParseError(source.path, "the decoded positions are not finite", offset=segment.offset)
    return positions


def _read_model(reader, rest, frames):
    """The skinning model's prediction (F, V, 3) (translation included) read from `reader`."""
    translation = idct(_finite(reader, syntax.read_global_translation(reader, frames).real()[0]))
    clusters, labels = syntax.read_partition(reader, len(rest))
    table = _finite(reader, syntax.read_affine_transforms(reader, clusters, frames).real())
    points = idct(table.transpose(1, 0, 2)).reshape(frames, clusters, 4, 3).transpose(1, 0, 2, 3)
    transforms = affine_from_points(anchor_points(rest, labels, clusters), points)
    at = reader.offset
    weights = syntax.read_weights(reader, labels, clusters)
    if not np.isfinite([weights.minimum, weights.maximum]).all():
        raise reader.error("the weight range is not finite", at)
    return predict(rest, labels, weights.adjacency, weights.real(labels), transforms) + translation[:, None]


def _finite(reader, values):
    if not np.isfinite(values).all():
        raise reader.error("a quantisation range before this point is not finite")
    return values


def _residuals(table, transform_type):
    """(F, V, 3) residual errors of a decoded residual table."""
    if transform_type == TRANSFORMS["dct"]:
        return idct(table.real().transpose(1, 0, 2))
    step = np.float64(table.info.maximum) / ((1 << table.info.bits) - 1)
    return unlift(table.values.transpose(1, 0, 2)) * step


def _info(real, step):
    """(InfoTable, the step it stands for) quantising `real` with about `step`: the fewest bits
    whose levels hold its values, maximum = step x levels (float32: the step is what it gives)."""
    largest = float(np.abs(real).max()) if np.size(real) else 0.0
    bits = min(31, max(1, int(np.ceil(np.log2(largest / step + 1.5)))))
    levels = (1 << bits) - 1
    maximum = float(np.float32(step * levels))
    return syntax.InfoTable(bits, (maximum,) * 3), maximum / levels


def quantize_step(real, step):
    """A QuantizedTable of `real` (V, F, 3) with about the quantisation step `step` (see _info)."""
    info, step = _info(real, step)
    levels = (1 << info.bits) - 1
    q = np.clip(np.round(np.asarray(real) / step), -levels, levels).astype(np.int64)
    return syntax.QuantizedTable(info, q, 1 / step)


def encode_segment(rest, positions, times, edges, limit, *, clusters, transform, dialect):
    """(bytes of one segment, its decoded positions (F, V, 3)) for `positions` (F, V, 3) predicted
    from `rest` (the static mesh as read back), every vertex within `limit` of its position."""
    frames = len(positions)
    model = BitWriter(dialect)
    translation = positions.mean(axis=1)
    syntax.write_global_translation(model, quantize_step(dct(translation)[None], limit / 8))
    moved = positions - translation[:, None]
    labels = cluster_by_motion(rest, moved, min(clusters, len(rest)))
    count = int(labels.max()) + 1
    syntax.write_partition(model, count, labels)
    anchors = anchor_points(rest, labels, count)
    points = points_from_affine(anchors, fit_affine(rest, moved, labels, count))  # (K, F, 4, 3)
    table = quantize_step(dct(points.transpose(1, 0, 2, 3).reshape(frames, 4 * count, 3)).transpose(1, 0, 2), limit / 4)
    syntax.write_affine_transforms(model, table)
    decoded = idct(table.real().transpose(1, 0, 2)).reshape(frames, count, 4, 3).transpose(1, 0, 2, 3)
    adjacency = cluster_adjacency(labels, edges)
    weights, chosen = skinning_weights(rest, moved, labels, adjacency, affine_from_points(anchors, decoded))
    syntax.write_weights(model, _quantized_weights(weights, chosen, labels, adjacency), labels)
    model = model.getvalue()
    prediction = _read_model(BitReader(model, 0, dialect, "<encoder>"), rest, frames)  # as the decoder will
    table = _residual_table(positions - prediction, limit * _MARGIN, transform)
    body = BitWriter(dialect)
    body.put(model)
    body.put(RESIDUAL_TAG)
    syntax.write_table(body, table, "residual errors")
    header = syntax.SegmentHeader(0, tuple(times), transform_type=TRANSFORMS[transform])
    size = len(_header_bytes(header, dialect)) + len(body.getvalue())
    header.size = size
    data = _header_bytes(header, dialect) + body.getvalue()
    return data, prediction + _residuals(table, header.transform_type)


def _header_bytes(header, dialect):
    writer = BitWriter(dialect)
    syntax.write_header(writer, header)
    return writer.getvalue()


def _quantized_weights(weights, chosen, labels, adjacency):
    """syntax.Weights of the chosen vertices' weights on WEIGHT_BITS bits over their range."""
    if not chosen.any():
        return syntax.Weights(0, 0.0, 0.0, chosen, adjacency, np.zeros(weights.shape, np.int64))
    sizes = np.array([len(a) for a in adjacency])
    used = weights[(np.arange(weights.shape[1])[None, :] < sizes[labels][:, None]) & chosen[:, None]]
    low, high = float(np.float32(used.min())), float(np.float32(used.max()))
    if high <= low:
        high = float(np.nextafter(np.float32(low), np.float32(np.inf)))
    levels = (1 << WEIGHT_BITS) - 1
    values = np.clip(np.round((weights - low) / ((high - low) / levels)), 0, levels).astype(np.int64)
    values[~chosen] = 0
    return syntax.Weights(WEIGHT_BITS, low, high, chosen, adjacency, values)


def _residual_table(residual, limit, transform):
    """The residuals' table: for DCT the coarsest step (searched) keeping every vertex within
    `limit`; for Lift the step that bounds every coordinate's error by half of it."""
    if transform == "lift":
        info, step = _info(residual, 2 * limit / np.sqrt(3))
        return syntax.QuantizedTable(
            info, lift(np.round(residual / step).astype(np.int64)).transpose(1, 0, 2), 1 / step
        )
    coefficients = dct(residual).transpose(1, 0, 2)

    def error(step):
        table = quantize_step(coefficients, step)
        return table, np.linalg.norm(idct(table.real().transpose(1, 0, 2)) - residual, axis=-1).max(initial=0.0)

    # an error of step/2 per coefficient moves a coordinate by at most step sqrt(F) / 2: `low` meets it
    low, high = 2 * limit / np.sqrt(3 * len(residual)), 4 * limit
    best, worst = error(low)
    if worst > limit:
        raise ValueError(f"a target error of {limit:.3g} is below what 31 quantisation bits can reach here")
    for _ in range(12):
        middle = np.sqrt(low * high)
        table, worst = error(middle)
        if worst <= limit:
            low, best = middle, table
        else:
            high = middle
    return best
