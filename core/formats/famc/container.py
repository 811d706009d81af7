"""A .famc file and the .obj of its static mesh beside it (`read_famc`, `write_famc`, behind
core.read / core.write); frames are decoded on demand, a segment at a time (`FamcSource`)."""

import io
from functools import partial

import numpy as np

from ...atomic import atomic_writes
from ...errors import ParseError, check_rate, require_bounded, require_rate
from ...frame_rate import standard_rate
from ...inputs import read_input
from ...mesh import MeshAnimation, diagonal
from ..obj import obj_beside, obj_vertices, parse_obj, read_obj_beside, write_obj_to
from .bits import DIALECTS, detect
from .model import MAX_FRAMES, MAX_VALUES
from .stream import TRANSFORMS, decode_segment, encode_segment, scan

DEFAULT_FPS = 24.0  # the rate of a single frame, whose time says nothing about it


def read_famc(path, *, obj=None):
    """A FamcAnimation of a .famc file and its static mesh (`obj`, default: the .obj of the same
    name beside it) whose positions are decoded when asked for, a segment at a time; its
    `byte_order` is "standard" or "reference" (see docs/famc.md)."""
    mesh = read_obj_beside(path, obj)
    data = read_input(path)
    dialect = detect(data, 0, path)
    source = FamcSource(path, data, dialect, mesh.vertices, scan(path, data, dialect, len(mesh.vertices)))
    animation = FamcAnimation(mesh, _rate(path, source.segments), source=source)
    animation.byte_order = dialect.name
    return animation


def _rate(path, segments):
    """The frame rate the segments' times (whole milliseconds) stand for."""
    times = [t for s in segments for t in s.header.times]
    steps = np.diff(times)
    if (steps <= 0).any():
        frame = int(np.argmax(steps <= 0)) + 1
        segment = next(s for s in segments if frame in s.frames)
        raise ParseError(path, f"timeFrame of frame {frame} is not after the one before", offset=segment.offset)
    if len(times) < 2:
        return DEFAULT_FPS
    span, count = times[-1] - times[0], len(times) - 1
    rate = standard_rate(span / count / 1000, (span - 1) / count / 1000, (span + 1) / count / 1000)
    rate = float(rate) if rate is not None else 1000 * count / span
    return check_rate(path, rate, f"timeFrame ({count} frame steps in {span} ms)", offset=segments[-1].offset)


class FamcAnimation(MeshAnimation):
    """A MeshAnimation as a .famc file was read (`byte_order`) or written (`max_error`,
    `bits_per_vertex_frame`, `limit`); None where it does not apply."""

    byte_order: str | None = None  # "standard" or "reference"
    max_error: float | None = None  # the largest vertex distance, in the animation's units
    bits_per_vertex_frame: float | None = None
    limit: float | None = None  # the target error, in the animation's units


class FamcSource:
    """The frames of a stream, decoded a segment at a time (the last one decoded is kept)."""

    def __init__(self, path, data, dialect, rest, segments):
        self.path, self.data, self.dialect, self.rest, self.segments = path, data, dialect, rest, segments
        self._firsts = np.array([s.first for s in segments])
        self._kept: tuple[int, np.ndarray] | None = None  # (segment, its decoded frames)

    @property
    def frame_count(self):
        return self.segments[-1].frames.stop if self.segments else 0

    def positions(self, index):
        out = np.empty((len(index),) + self.rest.shape)
        which = np.searchsorted(self._firsts, index, side="right") - 1
        for k in np.unique(which):
            if self._kept is None or self._kept[0] != k:
                self._kept = (k, decode_segment(self, self.segments[k]))
            chosen = which == k
            out[chosen] = self._kept[1][index[chosen] - self.segments[k].first]
        return out


def write_famc(
    animation,
    path,
    *,
    obj=None,
    tolerance=1e-3,
    relative=True,
    segment=None,
    clusters=None,
    transform="dct",
    byte_order="standard",
    progress=None,
):
    """Encode a MeshAnimation as a .famc file plus its static mesh as an .obj (default: same name,
    .obj), both replaced together or neither; returns what was written (a dense FamcAnimation of
    the decoded frames) with `max_error` (the largest vertex distance, in the animation's units),
    `bits_per_vertex_frame` and `limit` (the target error in those units).

    tolerance   the largest allowed vertex distance; with relative=True a fraction of the bounding-box
                diagonal of the whole sequence
    segment     frames per segment (each decodes on its own); default: about 2^16 vertex-frames,
                64 to 256 frames (small meshes gain from longer segments, large ones do not)
    clusters    motion clusters of the skinning model (default: from sqrt(vertices) / 2 doubling
                while the segment gets shorter)
    transform   "dct" or "lift": how the residual errors are coded (transformType 1 or 0)
    byte_order  "standard" (00 00 01 F0 ...) or "reference" (the reference software's little-endian)
    progress    None, or called with (fraction done, text) after each segment
    """
    if transform not in TRANSFORMS:
        raise ValueError(f"transform must be one of {sorted(TRANSFORMS)}, not {transform!r}")
    dialect = {d.name: d for d in DIALECTS}.get(byte_order)
    if dialect is None:
        raise ValueError(f"byte_order must be 'standard' or 'reference', not {byte_order!r}")
    require_rate(animation.fps, "the frame rate")
    vertices = max(len(animation.mesh.vertices), 1)
    if segment is None:
        segment = min(int(np.clip(2**16 // vertices, 64, 256)), max(1, MAX_VALUES // vertices))
    if not (1 <= segment <= MAX_FRAMES and segment * vertices <= MAX_VALUES and tolerance > 0):
        raise ValueError(
            f"segment must be 1 to {MAX_FRAMES} frames of at most {MAX_VALUES} vertex-frames ({segment} frames of "
            f"{vertices} vertices) and tolerance positive ({tolerance})"
        )
    positions = np.asarray(animation.positions(), dtype=float)
    if not len(positions):
        raise ValueError("the animation has no frames to write")
    require_bounded(positions, lambda frame, vertex, axis: f"frame {frame}, vertex {vertex}, {'xyz'[axis]}")
    size = diagonal(positions)
    limit = tolerance * size if relative and size > 0 else tolerance
    obj = obj_beside(path, obj)
    mesh_text = io.BytesIO()
    write_obj_to(mesh_text, animation.mesh, obj_vertices(animation.mesh))
    rest = parse_obj(mesh_text.getvalue(), obj).vertices  # the static mesh as the decoder reads it
    edges = animation.mesh.edges()
    times = np.round(np.arange(len(positions)) * 1000 / animation.fps).astype(np.int64)
    if times[-1] >= 1 << 32 or (np.diff(times) <= 0).any():
        raise ValueError(
            f"{len(positions)} frames at {animation.fps:g} fps do not fit the stream's clock (whole milliseconds, "
            "32 bits): each frame needs a later millisecond than the one before"
        )
    counts = [clusters] if clusters else _cluster_counts(len(rest))
    parts, decoded = [], np.empty_like(positions)
    for start in range(0, len(positions), segment):
        chunk = slice(start, start + segment)
        encode = partial(
            encode_segment, rest, positions[chunk], times[chunk], edges, limit, transform=transform, dialect=dialect
        )
        data, decoded[chunk] = _shortest(encode, counts)
        parts.append(data)
        if progress is not None:
            progress(min(start + segment, len(positions)) / len(positions), f"{len(parts)} segments encoded")
    with atomic_writes([path, obj]) as (famc_file, obj_file):  # both files, or neither
        obj_file.write(mesh_text.getvalue())
        for part in parts:
            famc_file.write(part)
    written = FamcAnimation(animation.mesh, animation.fps, decoded)
    written.max_error = float(np.linalg.norm(decoded - positions, axis=-1).max())
    written.bits_per_vertex_frame = 8 * sum(map(len, parts)) / positions.shape[0] / max(positions.shape[1], 1)
    written.limit = limit
    return written


def _cluster_counts(vertices):
    """Cluster counts to try, fewest first: sqrt(vertices) / 2 doubling up to a quarter of the vertices."""
    count = max(1, round(np.sqrt(vertices) / 2))
    counts = [count]
    while counts[-1] * 2 <= max(1, vertices // 4):
        counts.append(counts[-1] * 2)
    return counts


def _shortest(encode, counts):
    """encode(clusters=count) for the counts in order while the bytes get fewer; the shortest
    (bytes, decoded)."""
    best = encode(clusters=counts[0])
    for count in counts[1:]:
        tried = encode(clusters=count)
        if len(tried[0]) >= len(best[0]):
            break
        best = tried
    return best
