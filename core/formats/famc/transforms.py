"""Temporal transforms of an FAMC segment, along axis 0 (frames): the orthonormal DCT the standard
codes cluster trajectories with, and the integer LeGall 5/3 lifting wavelet ("Lift") for residuals.

Both keep any trailing shape: an array (F, ...) is transformed column by column.
"""

from functools import lru_cache

import numpy as np


@lru_cache(maxsize=4)  # a coder meets one segment length and a shorter last one; 4 bases of 3,000 frames: 288 MB
def _dct_basis(frames):
    """The (F, F) orthonormal DCT-II matrix C (rows are basis vectors): dct = C @ x, idct = C.T @ c."""
    k = np.arange(frames)[:, None]
    n = np.arange(frames)[None, :]
    turns = (2 * n + 1) * k % (4 * frames)  # the angle reduced exactly, in integers: no rounding growing with F
    basis = np.sqrt(2.0 / frames) * np.cos(np.pi * turns / (2 * frames))
    basis[0] /= np.sqrt(2.0)
    basis.flags.writeable = False
    return basis


def _frames(x):
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or not len(x):
        raise ValueError(f"expected an array of at least one frame along axis 0, got shape {x.shape}")
    return x


def _along_frames(matrix, x):
    return (matrix @ x.reshape(len(x), -1)).reshape(x.shape)


def dct(x):
    """Orthonormal DCT-II of `x` (F, ...) along axis 0 (scipy's dct(norm="ortho"))."""
    x = _frames(x)
    return _along_frames(_dct_basis(len(x)), x)


def idct(c):
    """Inverse of `dct`: the orthonormal DCT-III along axis 0."""
    c = _frames(c)
    return _along_frames(_dct_basis(len(c)).T, c)


def _levels(frames, levels):
    """Levels to use: all that halve a low band of two or more frames, at most `levels`."""
    most = (frames - 1).bit_length()
    return most if levels is None else min(int(levels), most)


def _integers(q):
    q = np.asarray(q)
    if q.ndim == 0 or not len(q) or not np.issubdtype(q.dtype, np.integer):
        raise ValueError(f"expected an integer array of at least one frame along axis 0, got {q.dtype} {q.shape}")
    return q.astype(np.int64)


def _neighbours(band, count):
    """`band`'s samples i-1 and i for i < count, mirrored at both ends (whole-sample symmetric extension)."""
    left = np.concatenate([band[:1], band[: count - 1]])
    right = band[:count] if len(band) >= count else np.concatenate([band, band[-1:]])
    return left, right


def _prediction(even, count):
    """The 5/3 prediction of the first `count` odd samples: the mean of the even samples either side
    (the last one mirrored when the signal ends on an odd sample)."""
    after = even[1:] if len(even) > count else np.concatenate([even[1:], even[-1:]])
    return (even[:count] + after) >> 1


def _split_step(x):
    """One analysis level: (low, high) of `x` (n >= 2 frames); low has ceil(n/2) frames."""
    even, odd = x[0::2], x[1::2]
    high = odd - _prediction(even, len(odd))
    before, at = _neighbours(high, len(even))
    return even + ((before + at + 2) >> 2), high


def _merge_step(low, high):
    """Inverse of `_split_step`."""
    before, at = _neighbours(high, len(low))
    even = low - ((before + at + 2) >> 2)
    x = np.empty((len(low) + len(high),) + low.shape[1:], dtype=np.int64)
    x[0::2] = even
    x[1::2] = high + _prediction(even, len(high))
    return x


def lift(q, levels=None):
    """Integer LeGall 5/3 wavelet of `q` (F, ...) along axis 0, `levels` levels (default: all).

    int64 coefficients in Mallat order [low, high of the coarsest level, ..., high of the first
    level]; exactly inverted by `unlift` with the same `levels`, for any F >= 1.
    """
    x = _integers(q)
    low_length = len(x)
    for _ in range(_levels(len(x), levels)):
        low, high = _split_step(x[:low_length])
        x[: len(low)], x[len(low) : low_length] = low, high
        low_length = len(low)
    return x


def unlift(c, levels=None):
    """Inverse of `lift`: the int64 samples whose coefficients are `c` (F, ...)."""
    x = _integers(c)
    lengths = [len(x)]
    for _ in range(_levels(len(x), levels)):
        lengths.append((lengths[-1] + 1) // 2)
    for length, low_length in zip(lengths[-2::-1], lengths[:0:-1]):
        x[:length] = _merge_step(x[:low_length], x[low_length:length])
    return x
