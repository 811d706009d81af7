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

from ...errors import ParseError, beyond, first_beyond
from . import model, syntax
from .bits import BitReader, BitWriter
from .transforms import dct, idct, lift, unlift

RESIDUAL_TAG = b"MIO1"  # our residual syntax, version 1 (where FAMCAllResidualErrors begins)
TRANSFORMS = {"lift": 0, "dct": 1}  # transformType of the residuals; 2-4 (layered) are not decoded
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
    if header.frames > model.MAX_FRAMES or header.frames * max(vertices, 1) > model.MAX_VALUES:
        return (
            f"{header.frames} frames x {vertices} vertices is beyond {model.MAX_FRAMES} frames or "
            f"{model.MAX_VALUES} values per segment"
        )
    return None


def decode_segment(source, segment):
    """(F, V, 3) positions of one segment of `source` (a FamcSource: data, dialect, rest, path)."""
    header = segment.header
    end = segment.offset + header.size
    reader = BitReader(source.data, segment.offset, source.dialect, source.path, end=end)
    syntax.read_header(reader)
    skinning = model.read_model(reader, len(source.rest), header.frames, header.normals_prediction)
    prediction = model.prediction(skinning, source.rest)
    at = reader.offset
    if reader.take(len(RESIDUAL_TAG), "residual syntax tag") != RESIDUAL_TAG:
        raise reader.error(f"expected our residual syntax {RESIDUAL_TAG.decode()} (see docs/famc.md)", at)
    table = syntax.read_table(reader, len(source.rest), header.frames, "residual errors")
    if reader.offset != end:
        raise reader.error(f"{end - reader.offset} bytes left in the segment after its residual errors")
    with np.errstate(over="ignore", invalid="ignore"):  # refused below
        positions = prediction + _residuals(table, header.transform_type)
    bad = first_beyond(positions)
    if bad is not None:  # products of the model's numbers, each bounded as read
        what = f"the decoded position {'xyz'[bad[2]]} of vertex {bad[1]} at frame {segment.first + bad[0]}"
        raise ParseError(source.path, beyond(what, positions[bad]), offset=segment.offset)
    return positions


def _residuals(table, transform_type):
    """(F, V, 3) residual errors of a decoded residual table."""
    if transform_type == TRANSFORMS["dct"]:
        return idct(table.real().transpose(1, 0, 2))
    return unlift(table.values.transpose(1, 0, 2)) * table.step()


def encode_segment(rest, positions, times, edges, limit, *, clusters, transform, dialect):
    """(bytes of one segment, its decoded positions (F, V, 3)) for `positions` (F, V, 3) predicted
    from `rest` (the static mesh as read back), every vertex within `limit` of its position."""
    fitted, transforms = model.fit_model(rest, positions, edges, limit, clusters)
    prediction = model.prediction(fitted, rest, transforms)  # what the decoder computes from the same numbers
    table, residuals = _residual_table(positions - prediction, limit * _MARGIN, transform)
    body = BitWriter(dialect)
    model.write_model(body, fitted)
    body.put(RESIDUAL_TAG)
    syntax.write_table(body, table, "residual errors")
    body = body.getvalue()
    header = syntax.SegmentHeader(0, tuple(times), transform_type=TRANSFORMS[transform])
    header.size = len(_header_bytes(header, dialect)) + len(body)  # the header's length does not depend on it
    return _header_bytes(header, dialect) + body, prediction + residuals


def _header_bytes(header, dialect):
    writer = BitWriter(dialect)
    syntax.write_header(writer, header)
    return writer.getvalue()


def _residual_table(residual, limit, transform):
    """(the residuals' table, the residuals the decoder gets from it): for DCT the coarsest step
    (searched) keeping every vertex within `limit`; for Lift the step that bounds every coordinate's
    error by half of it."""
    if transform == "lift":
        table = syntax.quantize(residual, 2 * limit / np.sqrt(3))  # in time: each coordinate within step / 2
        table = syntax.QuantizedTable(table.info, lift(table.values).transpose(1, 0, 2), table.delta)
        return table, _residuals(table, TRANSFORMS["lift"])
    coefficients = dct(residual).transpose(1, 0, 2)

    def error(step):
        table = syntax.quantize(coefficients, step)
        decoded = _residuals(table, TRANSFORMS["dct"])
        return (table, decoded), np.linalg.norm(decoded - residual, axis=-1).max(initial=0.0)

    # an error of step/2 per coefficient moves a coordinate by at most step sqrt(F) / 2: `low` meets
    # it with room for the float32 rounding of the step
    low, high = limit / np.sqrt(3 * len(residual)), 4 * limit
    best, worst = error(low)
    if worst > limit:
        raise ValueError(f"a target error of {limit:.3g} is below what 31 quantisation bits can reach here")
    for _ in range(7):  # the bracket spans a factor of 4 sqrt(3F): 7 halvings of its log leave a few per cent
        middle = np.sqrt(low * high)
        tried, worst = error(middle)
        if worst <= limit:
            low, best = middle, tried
        else:
            high = middle
    return best
