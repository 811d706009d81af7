"""PC2 point caches ("POINTCACHE2"): vertex positions per sample, float32, as Blender's Mesh Cache
modifier reads them.

`read_pc2` / `write_pc2` handle the arrays; `read_pc2_animation` / `write_pc2_animation` (behind
core.read / core.write) a MeshAnimation, whose mesh comes from an .obj (a cache holds no faces).
"""

import contextlib

import numpy as np

from ..atomic import atomic_write
from ..errors import ParseError, beyond, check_bound, check_rate, first_beyond, require_bounded
from ..inputs import read_input
from ..mesh import MeshAnimation
from .obj import obj_beside, read_obj_beside

DEFAULT_FPS = 24.0  # a cache counts samples in scene frames and stores no rate: Blender's default scene rate

_MAGIC = b"POINTCACHE2\0"
_HEADER = np.dtype(
    [("magic", "S12"), ("version", "<i4"), ("points", "<i4"), ("start", "<f4"), ("sampling", "<f4"), ("samples", "<i4")]
)


def read_pc2(path):
    """(positions (samples, points, 3) float32, start frame, sampling step) of a PC2 file."""
    data = read_input(path)
    if len(data) < _HEADER.itemsize:
        raise ParseError(path, f"file too short for a PC2 header ({len(data)} of {_HEADER.itemsize} bytes)", offset=0)
    header = np.frombuffer(data, _HEADER, count=1)[0]
    if header["magic"] != _MAGIC.rstrip(b"\0"):
        raise ParseError(path, f"expected the PC2 signature 'POINTCACHE2', found {bytes(data[:12])!r}", offset=0)
    if header["version"] != 1:
        raise ParseError(path, f"PC2 version {header['version']}: only version 1 exists", offset=12)
    points, samples = int(header["points"]), int(header["samples"])
    need = points * samples * 12
    left = len(data) - _HEADER.itemsize
    if points < 0 or samples < 0 or need != left:
        raise ParseError(
            path,
            f"{samples} samples x {points} points need {need} bytes of data, the file has {left}",
            offset=_HEADER.itemsize,
        )
    start, sampling = float(header["start"]), float(header["sampling"])
    if not np.isfinite(start):
        raise ParseError(path, f"start frame {start}: expected a finite number", offset=20)
    check_bound(path, start, "start frame", offset=20)
    if not (np.isfinite(sampling) and sampling > 0):
        raise ParseError(path, f"sampling step {sampling}: expected a positive finite number", offset=24)
    check_rate(path, DEFAULT_FPS / sampling, f"sampling step {sampling:g} (at {DEFAULT_FPS:g} fps)", offset=24)
    positions = np.frombuffer(data, "<f4", count=points * samples * 3, offset=_HEADER.itemsize).reshape(
        samples, points, 3
    )
    bad = first_beyond(positions)
    if bad is not None:
        sample, point, axis = bad
        raise ParseError(
            path,
            beyond(f"sample {sample}, point {point}: coordinate {'xyz'[axis]}", positions[bad]),
            offset=_HEADER.itemsize + 4 * int(np.ravel_multi_index(bad, positions.shape)),
        )
    return positions, start, sampling


def write_pc2(path, positions, start=0.0, sampling=1.0):
    """Write positions (samples, points, 3) as a PC2 file (float32), atomically."""
    positions = np.asarray(positions)
    with pc2_blocks(path, len(positions), positions.shape[1], start, sampling) as write:
        write(positions)


@contextlib.contextmanager
def pc2_blocks(path, samples, points, start=0.0, sampling=1.0):
    """A PC2 file of `samples` samples of `points` points written a block at a time (for a long
    animation decoded as it is written), atomically: yields write(block (n, points, 3)); the file
    is replaced only once every sample has been written."""
    if not (np.isfinite(start) and np.isfinite(sampling) and sampling > 0):
        raise ValueError(f"start {start} and sampling {sampling}: expected finite numbers, a positive sampling")
    header = np.array([(_MAGIC, 1, points, start, sampling, samples)], _HEADER)
    written = 0

    def write(block):
        nonlocal written
        with np.errstate(over="ignore"):  # beyond float32: refused as infinite
            block = np.ascontiguousarray(block, dtype="<f4")
        if block.shape[1:] != (points, 3):
            raise ValueError(f"a block of {block.shape[1:]} for a cache of {points} points")
        require_bounded(
            block, lambda sample, point, axis: f"sample {written + sample}, point {point}, {'xyz'[axis]} (float32)"
        )
        f.write(block.tobytes())
        written += len(block)

    with atomic_write(path) as f:
        f.write(header.tobytes())
        yield write
        if written != samples:
            raise ValueError(f"{written} samples written to a cache of {samples}")


def read_pc2_animation(path, *, obj=None, fps=None):
    """A dense MeshAnimation of a PC2 cache on the mesh of `obj` (default: the .obj of the same name
    beside it), whose vertices are the cache's points in order. The cache counts samples in scene
    frames: the animation's rate is `fps` (default 24) / the cache's sampling step. The cache's start
    frame is kept as the animation's `first_frame`."""
    obj = obj_beside(path, obj)
    mesh = read_obj_beside(path, obj, " (a PC2 cache holds no faces)")
    positions, start, sampling = read_pc2(path)
    if positions.shape[1] != len(mesh.vertices):
        raise ParseError(path, f"{positions.shape[1]} points, but {obj} has {len(mesh.vertices)} vertices", offset=16)
    rate = (DEFAULT_FPS if fps is None else fps) / sampling
    check_rate(path, rate, f"{DEFAULT_FPS if fps is None else fps:g} fps / sampling step {sampling:g}", offset=24)
    return MeshAnimation(mesh, rate, positions.astype(float), first_frame=start)


def write_pc2_animation(animation, path, *, start=None):
    """Write a MeshAnimation's vertex positions (every frame, float32) as a PC2 cache, sampling step 1;
    `start` (default: the animation's `first_frame`, as read from a cache or an OBJ sequence, else 0) is the first
    sample's scene frame. Only the cache is written: Blender's Mesh Cache plays it on the mesh it
    modifies (write the mesh with core.write(animation.mesh, "x.obj") if needed)."""
    if start is None:
        start = 0.0 if animation.first_frame is None else animation.first_frame
    write_pc2(path, animation.positions(), start)
