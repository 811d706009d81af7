"""What the independent C3D readers make of a file: ezc3d (the field's C++ reader, run in a child
process because it crashes on some files) and the `c3d` PyPI package (pure Python).

Each returns None when the library is not installed or cannot read the file, else a dict of
positions (F, M, 3) with NaN where the library marks a point invalid, residuals (F, M) (negative:
invalid), camera masks (F, M) as bits (bit c: camera c + 1) and analog values (S, C).
"""

import importlib.util
import pathlib
import subprocess
import sys
import tempfile
import warnings

import numpy as np

_EZC3D_CHILD = """
import sys, numpy as np, ezc3d
c = ezc3d.c3d(sys.argv[1])
data = c["data"]
points = data["points"][:3].transpose(2, 1, 0)
meta = data["meta_points"]
masks = meta["camera_masks"].transpose(2, 1, 0).astype(np.int64)
np.savez(
    sys.argv[2],
    positions=points,
    residuals=meta["residuals"][0].T,
    cameras=(masks << np.arange(masks.shape[-1])).sum(-1),
    analog=data["analogs"][0].T,
)
"""


def installed(name):
    return importlib.util.find_spec(name) is not None


def ezc3d_read(path):
    if not installed("ezc3d"):
        return None
    with tempfile.TemporaryDirectory() as folder:
        out = pathlib.Path(folder) / "out.npz"
        done = subprocess.run(
            [sys.executable, "-c", _EZC3D_CHILD, str(path), str(out)], capture_output=True, timeout=120
        )
        if done.returncode:
            return None
        with np.load(out) as arrays:
            return dict(arrays)


def c3d_read(path):
    if not installed("c3d"):
        return None
    import c3d

    try:
        with open(path, "rb") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frames = list(c3d.Reader(f).read_frames())
    except Exception:  # any failure of the peer means: it cannot read this file
        return None
    points = np.array([p for _, p, _ in frames], dtype=float).reshape(len(frames), -1, 5)
    analog = [a for _, _, a in frames]
    invalid = points[..., 3] < 0
    return {
        "positions": np.where(invalid[..., None], np.nan, points[..., :3]),
        "residuals": points[..., 3],
        "cameras": np.where(invalid, 0, points[..., 4]).astype(np.int64),
        "analog": np.concatenate([a.T for a in analog]) if analog and np.size(analog[0]) else None,
    }
