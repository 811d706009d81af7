"""PC2 point caches ("POINTCACHE2"): vertex positions per sample, float32, as Blender's Mesh Cache
modifier reads them."""

import numpy as np

from ..atomic import atomic_write
from ..errors import ParseError, first_nonfinite, require_finite

_MAGIC = b"POINTCACHE2\0"
_HEADER = np.dtype(
    [("magic", "S12"), ("version", "<i4"), ("points", "<i4"), ("start", "<f4"), ("sampling", "<f4"), ("samples", "<i4")]
)


def read_pc2(path):
    """(positions (samples, points, 3) float32, start frame, sampling step) of a PC2 file."""
    with open(path, "rb") as f:
        data = f.read()
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
    if not (np.isfinite(sampling) and sampling > 0):
        raise ParseError(path, f"sampling step {sampling}: expected a positive finite number", offset=24)
    positions = np.frombuffer(data, "<f4", count=points * samples * 3, offset=_HEADER.itemsize).reshape(
        samples, points, 3
    )
    bad = first_nonfinite(positions)
    if bad is not None:
        sample, point, axis = bad
        raise ParseError(
            path,
            f"sample {sample}, point {point}: coordinate {'xyz'[axis]} is {positions[bad]}",
            offset=_HEADER.itemsize + 4 * int(np.ravel_multi_index(bad, positions.shape)),
        )
    return positions, start, sampling


def write_pc2(path, positions, start=0.0, sampling=1.0):
    """Write positions (samples, points, 3) as a PC2 file (float32), atomically."""
    with np.errstate(over="ignore"):  # beyond float32: refused as infinite
        positions = np.asarray(positions, dtype="<f4")
    require_finite(positions, lambda sample, point, axis: f"sample {sample}, point {point}, {'xyz'[axis]} (float32)")
    if not (np.isfinite(start) and np.isfinite(sampling) and sampling > 0):
        raise ValueError(f"start {start} and sampling {sampling}: expected finite numbers, a positive sampling")
    header = np.array([(_MAGIC, 1, positions.shape[1], start, sampling, positions.shape[0])], _HEADER)
    with atomic_write(path) as f:
        f.write(header.tobytes())
        f.write(np.ascontiguousarray(positions).tobytes())
