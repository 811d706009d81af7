"""Mesh-ensemble reader: the binary (.memg) decoded against its .obj, bounds-checked before
anything is allocated; U and Q read in the storage order the animation shows to be right."""

import os
import warnings

import numpy as np

from ...errors import LARGEST, FileNote, ParseError, beyond, check_rate, first_beyond
from ...inputs import read_input
from ...mesh import GroupBasis, MeshAnimation
from ...numtext import ranges
from ..obj import read_obj_beside

LAYOUTS = ("column", "row")
_EDGE_SAMPLE = 64  # edges of one vertex looked at per group when scoring a layout


class MemgAnimation(MeshAnimation):
    """A factored MeshAnimation as a .memg file was read (`layout`, `layout_scores`,
    `byte_swapped`) or encoded (`max_error`); None where it does not apply."""

    layout: str | None = None  # "column" or "row": how U and Q were read
    layout_scores: dict[str, float] | None = None  # how rough each reading was (lower is smoother)
    byte_swapped: bool | None = None  # the file was big-endian
    max_error: float | None = None  # the largest distance of a decoded vertex from the one encoded


def read_memg(path: str | os.PathLike, *, obj: str | os.PathLike | None = None, layout: str = "auto") -> MemgAnimation:
    """Read a .memg file and its .obj (default: same name, .obj) into a factored MemgAnimation.

    layout  "column", "row" or "auto"; the result's `layout` says what was used and
            `layout_scores` how rough each reading was (lower is smoother)
    """
    if layout not in ("auto",) + LAYOUTS:
        raise ValueError(f"layout must be 'auto', 'column' or 'row', not {layout!r}")
    mesh = read_obj_beside(path, obj)
    data = read_input(path)
    stream = _Stream(path, data)
    (fps,) = stream.counts(1, "frame rate")
    if fps <= 0:
        raise ParseError(path, f"frame rate: expected a positive integer, found {fps}", offset=4)
    check_rate(path, fps, "frame rate", offset=4)
    frames, steps = stream.counts(2, "local frame count and timestep count")
    if frames < 0 or steps < 0:
        raise ParseError(path, f"negative local frame ({frames}) or timestep ({steps}) count", offset=8)
    if frames == 0 and steps:  # every timestep must be held by bytes of the file
        raise ParseError(path, f"{steps} timesteps but no local frames: the timesteps hold no data", offset=8)
    at = stream.offset
    affines = stream.doubles(12 * frames * steps, f"{frames} x {steps} local frame transforms")
    _require_invertible(path, affines.reshape(steps * frames, 3, 4), frames, at)
    transforms = np.zeros((steps, frames, 4, 4))
    transforms[..., :3, :] = affines.reshape(steps, frames, 3, 4)
    transforms[..., 3, 3] = 1.0
    transforms = transforms.transpose(1, 0, 2, 3)
    raw, seen = [], set()
    largest = _largest_parts(affines.reshape(steps, frames, 3, 4))  # once: per group it would be quadratic
    while not stream.done:
        at = stream.offset
        raw.append(_read_group(stream, mesh, frames, steps, seen))
        _check_reach(path, raw[-1], largest, at)
    if stream.swapped:
        what = "big-endian file (endian flag byte-swapped); read with swapped bytes"
        warnings.warn(f"{path}: {what}", FileNote, stacklevel=2)
    with np.errstate(over="ignore", invalid="ignore"):  # huge (finite) values score as NaN: column-major
        scores = {name: _roughness(mesh, transforms, raw, name) for name in LAYOUTS} if layout == "auto" else {}
    if layout == "auto":
        layout = "row" if scores["row"] < 0.5 * scores["column"] else "column"
    groups = [_group(g, layout) for g in raw]
    animation = MemgAnimation(mesh, fps, groups=groups, transforms=transforms)
    animation.layout, animation.layout_scores, animation.byte_swapped = layout, scores, stream.swapped
    return animation


class _Stream:
    """Bounds-checked reads: every count is checked against the bytes left before allocating."""

    def __init__(self, path, data):
        self.path, self.data, self.offset = path, data, 0
        if len(data) < 4:
            raise ParseError(path, f"file too short for the endian flag ({len(data)} bytes)", offset=0)
        flag = data[:4]
        if int.from_bytes(flag, "little") == 1:
            self.order = "<"
        elif int.from_bytes(flag, "big") == 1:
            self.order = ">"
        else:
            raise ParseError(path, f"endian flag: expected 1, found bytes {flag.hex()}", offset=0)
        self.swapped = self.order == ">"
        self.offset = 4

    @property
    def done(self):
        return self.offset >= len(self.data)

    def _take(self, count, size, dtype, field):
        need = count * size
        left = len(self.data) - self.offset
        if count < 0 or need > left:
            raise ParseError(
                self.path,
                f"{field}: needs {need} bytes, only {left} left (truncated or corrupted count)",
                offset=self.offset,
            )
        values = np.frombuffer(self.data, dtype=self.order + dtype, count=count, offset=self.offset)
        self.offset += need
        return values.astype(dtype[0] + str(size))

    def ints(self, count, field):
        return self._take(count, 4, "i4", field)

    def counts(self, count, field):
        """`count` integers as Python ints (products of counts must not overflow int32)."""
        return [int(x) for x in self.ints(count, field)]

    def doubles(self, count, field):
        """`count` reals, each finite and at most errors.LARGEST in magnitude."""
        values = self._take(count, 8, "f8", field)
        bad = first_beyond(values)
        if bad is not None:
            at = self.offset - 8 * (count - bad[0])
            raise ParseError(self.path, beyond(f"{field}: value {bad[0] + 1}", values[bad]), offset=at)
        return values


def first_singular(transforms: np.ndarray) -> tuple[int, float] | None:
    """(flat index, determinant) of the first transform (..., 3+, 3+) whose 3x3 part is singular
    (all zero, flat) or whose determinant overflows; None when all are invertible."""
    with np.errstate(over="ignore", invalid="ignore"):
        determinants = np.linalg.det(transforms[..., :3, :3]).ravel() if transforms.size else np.ones(0)
    bad = np.flatnonzero(~(np.abs(determinants) > 0) | ~np.isfinite(determinants))
    return (int(bad[0]), float(determinants[bad[0]])) if len(bad) else None


def _require_invertible(path, affines, frames, start):
    """Refuse a local frame transform whose 3x3 part is singular (all zero, flat) or overflows."""
    singular = first_singular(affines)
    if singular is not None:
        index, determinant = singular
        step, frame = divmod(index, frames)
        raise ParseError(
            path,
            f"transform of local frame {frame} at timestep {step} is singular "
            f"(determinant {determinant:g}): it cannot place a group",
            offset=start + 96 * index,
        )


def _read_group(stream, mesh, frames, steps, seen):
    start = stream.offset
    (length,) = stream.counts(1, "group name length")
    if length <= 0:
        raise ParseError(stream.path, f"group name length: expected a positive count, found {length}", offset=start)
    name_bytes = stream._take(length, 1, "u1", "group name").tobytes()
    name = name_bytes.decode("utf-8", errors="replace").rstrip("\0")
    if name in seen:
        raise ParseError(stream.path, f"group {name[:80]!r} appears twice", offset=start + 4)
    seen.add(name)
    if name not in mesh.groups:
        raise ParseError(
            stream.path,
            f"group {name!r} is not a group of the .obj ({', '.join(sorted(mesh.groups)) or 'it has none'})",
            offset=start + 4,
        )
    at = stream.offset
    (count,) = stream.counts(1, f"vertex count of group {name!r}")
    mapping = stream.ints(count, f"vertex mapping of group {name!r}")
    bad = np.flatnonzero((mapping < 1) | (mapping > len(mesh.vertices)))
    if len(bad):
        raise ParseError(
            stream.path,
            f"vertex mapping of group {name!r}: index {mapping[bad[0]]} is not an .obj "
            f"vertex (1..{len(mesh.vertices)})",
            offset=at + 4 + 4 * bad[0],
        )
    mean = stream.doubles(3 * count, f"mean pose of group {name!r}")
    at = stream.offset
    (parent,) = stream.counts(1, f"parent frame of group {name!r}")
    if not 0 <= parent < frames:
        raise ParseError(
            stream.path, f"parent frame of group {name!r}: {parent} is not one of the {frames} local frames", offset=at
        )
    at = stream.offset
    rows, columns = stream.counts(2, f"U size of group {name!r}")
    if rows != 3 * count:
        raise ParseError(stream.path, f"U of group {name!r}: {rows} rows, expected 3 x {count} vertices", offset=at)
    basis = stream.doubles(rows * columns, f"U of group {name!r}")
    at = stream.offset
    q_rows, q_columns = stream.counts(2, f"Q size of group {name!r}")
    if q_rows != columns:
        raise ParseError(stream.path, f"Q of group {name!r}: {q_rows} rows, but U has {columns} columns", offset=at)
    if q_columns != steps:
        raise ParseError(
            stream.path, f"Q of group {name!r}: {q_columns} columns, expected {steps} timesteps", offset=at + 4
        )
    coefficients = stream.doubles(q_rows * q_columns, f"Q of group {name!r}")
    return name, mapping - 1, mean, parent, basis, coefficients, columns, steps


def _largest_parts(affines):
    """(2, k): the largest magnitude of each local frame's 3x3 part and of its translation over
    all timesteps, from the (n, k, 3, 4) transforms."""
    if not affines.size:
        return np.zeros((2, affines.shape[1]))
    magnitudes = np.abs(affines)
    return np.stack([magnitudes[..., :3].max(axis=(0, 2, 3)), magnitudes[..., 3].max(axis=(0, 2))])


def _check_reach(path, raw, largest_parts, at):
    """Refuse a group (read from byte `at`) whose positions, TW (p + U Q), could reach beyond
    errors.LARGEST: each factor is bounded as read, the products and sums over the rank are not.
    `largest_parts`: _largest_parts of the transforms."""
    name, _, mean, parent, basis, coefficients, rank, _ = raw
    turn, move = largest_parts[:, parent]
    p, u, q = (np.abs(a).max() if a.size else 0.0 for a in (mean, basis, coefficients))
    reach = 3 * turn * (p + rank * u * q) + move
    if not reach <= LARGEST:
        what = f"group {name[:80]!r}: its positions TW (p + U Q) could reach"
        raise ParseError(path, beyond(what, reach) + " (a product of the values read)", offset=at)


def _group(raw, layout):
    name, vertices, mean, parent, basis, coefficients, rank, steps = raw
    rows = 3 * len(vertices)
    if layout == "row":
        u, q = basis.reshape(rows, rank), coefficients.reshape(rank, steps)
    else:
        u, q = basis.reshape(rank, rows).T, coefficients.reshape(steps, rank).T
    return GroupBasis(name, vertices, mean, u.T.reshape(rank, len(vertices), 3), q, parent)


def _roughness(mesh, transforms, raw, layout, sample=64):
    """How rough the animation decoded with `layout` is: mean squared frame-to-frame motion over the
    motion's spread, plus the relative variation of edge lengths, on a sample of frames."""
    edges = mesh.edges()  # sorted: each vertex's edges to higher vertices are a run
    runs = np.searchsorted(edges[:, 0], np.arange(len(mesh.vertices) + 1))
    position = np.full(len(mesh.vertices), -1)  # of the vertices in a group's rows, -1 elsewhere
    total = 0.0
    steps = raw[0][-1] if raw else 0  # every group has them all
    frames = np.unique(np.linspace(0, steps - 1, min(steps, sample)).astype(int))
    frames = np.unique(np.concatenate([frames, np.minimum(frames + 1, steps - 1)]))
    for g in raw:
        group = _group(g, layout)
        if steps < 2 or group.rank == 0:
            continue
        local = group.local_positions(frames)
        spread = np.mean((local - local.mean(axis=0)) ** 2) + 1e-300
        step = np.mean(np.diff(local, axis=0) ** 2)
        position[group.vertices] = np.arange(len(group.vertices))
        inside = _edges_within(edges, runs, position, np.unique(group.vertices))
        lengths = np.linalg.norm(local[:, position[inside[:, 0]]] - local[:, position[inside[:, 1]]], axis=-1)
        position[group.vertices] = -1
        stretch = np.mean(np.std(lengths, axis=0) / (np.mean(lengths, axis=0) + 1e-300)) if len(inside) else 0.0
        total += step / spread + stretch
    return total


def _edges_within(edges, runs, position, vertices):
    """The edges (sorted) with both ends among `vertices` (sorted, unique; `position` >= 0 there),
    found from each vertex's run of edges to higher vertices: time in the group's size, not the
    mesh's. At most _EDGE_SAMPLE edges of a vertex are looked at (all of them in any ordinary mesh;
    a sample at a hub that many groups share, which would make the time quadratic)."""
    starts = runs[vertices]
    found = edges[ranges(starts, np.minimum(runs[vertices + 1], starts + _EDGE_SAMPLE))]
    return found[position[found[:, 1]] >= 0]
