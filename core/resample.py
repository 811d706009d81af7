"""Resampling a Motion in time: to a frame rate or to given times, from regular or variable source
timestamps, trimmed or looped. Rotations by slerp or a quaternion spline, translations linearly or
by a cubic; every step vectorised over frames and joints. Markers (`resample_markers`) the same
way, positions as translations, gaps kept."""

import warnings

import numpy as np
from numpy.typing import ArrayLike

from . import rotations
from .frame_rate import stands_for
from .markers import Analog
from .motion import Motion

_COINCIDENT = 1e-9  # seconds: an output time this close to a source frame takes that frame as it is


def resample(
    motion: Motion,
    fps: float | None = None,
    times: ArrayLike | None = None,
    *,
    source_times: ArrayLike | None = None,
    start: float | None = None,
    end: float | None = None,
    loop: bool = False,
    rotation: str = "slerp",
    translation: str = "linear",
) -> Motion:
    """A new Motion sampled at `times`, or every 1 / `fps` seconds from `start` to `end`.

    An output time that coincides with a source frame (within 1e-9 s) takes that frame's values
    exactly as they are; in between, each joint's Euler angles stay on the branch of its nearest
    source frame, so curves keep the source's continuity.

    Parameters
    ----------
    motion : Motion
        The source, with at least one frame.
    fps : float, optional
        Output frame rate (default: the source's; with `times`, their mean rate).
    times : array_like, shape (N,), optional
        Output times in seconds on the source's clock: frame f at f / motion.standard_fps (the rate
        a printed Frame Time such as 0.008333 stands for: 120, not 120.000048), or at
        ``source_times[f]``.
    source_times : array_like, shape (F,), optional
        Increasing time of every source frame, for takes with variable timestamps.
    start, end : float, optional
        Trimming: first and last output time (default: the first and last source frame); only with
        a regular output (no `times`).
    loop : bool, optional
        The take repeats with a period of its length plus one mean frame step, so that its last
        frame blends into its first; times wrap around (so `end` may lie beyond the take: a 1 s
        cycle played for 10 s). Without it (default), times beyond either end hold the first or
        last frame. Translations repeat as they are: a loop of a walk jumps back.
    rotation : {"slerp", "spline"}, optional
        Slerp between neighbouring frames (default), or a Catmull-Rom spline through the keys built
        from slerps (Barry-Goldman, correct for uneven keys), with no kinks at the keys.
    translation : {"linear", "cubic"}, optional
        Linear (default), or the same spline on translations (and HTR scales).

    Returns
    -------
    Motion
        Of the same skeleton and Euler orders.

    Raises
    ------
    ValueError
        If an option is out of range, the motion has no frames, or `times` is given with `start`
        or `end`.

    Examples
    --------
    >>> import numpy as np
    >>> from mocap_io.core import Motion, Skeleton, resample
    >>> skeleton = Skeleton(["root"], [-1], [[0, 0, 0]])
    >>> euler = np.zeros((3, 1, 3))
    >>> euler[:, 0, 2] = [0.0, 0.5, 1.0]  # turning about Z
    >>> motion = Motion(skeleton, 30, euler, ["XYZ"], np.arange(3.0)[:, None, None] * [1, 0, 0])
    >>> faster = resample(motion, 60)
    >>> faster
    <Motion 1 joints x 5 frames at 60 fps>
    >>> faster.euler[:, 0, 2].round(6), faster.translations[:, 0, 0]
    (array([0.  , 0.25, 0.5 , 0.75, 1.  ]), array([0. , 0.5, 1. , 1.5, 2. ]))
    >>> resample(motion, times=[0.01, 0.05]).translations[:, 0, 0].round(6)
    array([0.3, 1.5])
    """
    if rotation not in ("slerp", "spline"):
        raise ValueError(f"rotation must be 'slerp' or 'spline', not {rotation!r}")
    if translation not in ("linear", "cubic"):
        raise ValueError(f"translation must be 'linear' or 'cubic', not {translation!r}")
    frames = motion.frame_count
    if frames == 0:
        raise ValueError("cannot resample a motion without frames")
    keys = _source_times(motion, source_times)
    out_times, out_fps = _output_times(motion.standard_fps, keys, fps, times, start, end)
    if frames == 1:  # nothing to interpolate: every output frame is the only frame
        index = np.zeros(len(out_times), dtype=np.intp)
        return _motion(motion, out_fps, motion.euler[index], motion.translations[index], _take(motion.scales, index))
    plan = _Plan(keys, out_times, loop)
    exact, interpolate = plan.exact, plan.interpolate
    nearest = np.where(plan.fraction < 0.5, plan.low, plan.high)

    quaternions = np.stack(
        [rotations.euler_to_quat(motion.euler[:, j], o) for j, o in enumerate(motion.euler_orders)], axis=1
    )
    turned = interpolate(quaternions, rotation == "spline", _slerp)
    euler = np.stack([rotations.quat_to_euler(turned[:, j], o) for j, o in enumerate(motion.euler_orders)], axis=1)
    euler = rotations.euler_nearest(euler, motion.euler[nearest])
    cubic = translation == "cubic"
    moved = interpolate(motion.translations, cubic, _lerp)
    hit = exact >= 0
    euler[hit] = motion.euler[exact[hit]]
    moved[hit] = motion.translations[exact[hit]]
    scales = None
    if motion.scales is not None:
        scales = interpolate(motion.scales[..., None], cubic, _lerp)[..., 0]
        scales[hit] = motion.scales[exact[hit]]
    keep_text = stands_for(motion.frame_time_text, out_fps)
    return _motion(motion, out_fps, euler, moved, scales, motion.frame_time_text if keep_text else None)


def resample_markers(markers, fps=None, *, start=None, end=None, loop=False, translation="linear"):
    """New Markers sampled every 1 / `fps` seconds (default: the source's rate) from `start` to
    `end` (seconds on the markers' clock, see Markers.times; default: the first and last frame),
    as `resample` samples a Motion: positions linearly between frames, or ("cubic") by the same
    Catmull-Rom spline; `loop` as there.

    An output time within 1e-9 s of a frame takes that frame as it is (positions, residual, camera
    mask; C3D's float32 stays float32). In between, a marker is missing where a frame the
    interpolation uses misses it (cubic: where an outer frame misses it, the linear value is kept),
    and a seen one has residual 0 (C3D's "interpolated") and camera mask 0. Analog channels keep
    their rate and their samples (the output frames' span of them, held at the ends) when that rate
    is a whole multiple of the new one; else they are left out with a warning. Events keep their
    times; `first_frame` becomes the first output time counted in the new frames (rounded).
    """
    if translation not in ("linear", "cubic"):
        raise ValueError(f"translation must be 'linear' or 'cubic', not {translation!r}")
    frames = markers.frame_count
    if frames == 0:
        raise ValueError("cannot resample markers without frames")
    keys = markers.times()
    out_times, out_fps = _output_times(markers.rate, keys, fps, None, start, end)
    source = markers.positions
    if frames == 1:
        exact = np.zeros(len(out_times), dtype=np.intp)
        moved = source[exact].astype(float)
    else:
        plan = _Plan(keys, out_times, loop)
        exact, values = plan.exact, source.astype(float)
        moved = plan.interpolate(values, False, _lerp)
        if translation == "cubic":
            smooth = plan.interpolate(values, True, _lerp)
            moved = np.where(np.isnan(smooth), moved, smooth)
    hit = exact >= 0
    positions = moved.astype(source.dtype)
    positions[hit] = source[exact[hit]]
    seen = ~np.isnan(positions).any(axis=2)
    residuals = camera_masks = None
    if markers.residuals is not None:
        residuals = np.where(seen, 0, np.nan).astype(markers.residuals.dtype)
        residuals[hit] = markers.residuals[exact[hit]]
    if markers.camera_masks is not None:
        camera_masks = np.zeros(seen.shape, np.uint8)
        camera_masks[hit] = markers.camera_masks[exact[hit]]
    metadata = dict(markers.metadata)
    if "start_time" in metadata:  # TRC: the first row's time
        metadata["start_time"] = metadata["start_time"] + out_times[0] - keys[0]
    return markers.replace(
        positions=positions,
        rate=out_fps,
        first_frame=1 + int(np.rint(out_times[0] * out_fps)),
        residuals=residuals,
        camera_masks=camera_masks,
        analog=_resampled_analog(markers.analog, keys[0], out_times, out_fps, loop),
        metadata=metadata,
    )


def _resampled_analog(analog, first, times, fps, loop):
    """The analog channels' samples over the output frames at `times` (their rate kept), or None
    (with a warning) when that rate is not a whole multiple of `fps`."""
    if analog is None:
        return None
    ratio = analog.rate / fps
    if abs(ratio - round(ratio)) > 1e-6 * ratio or round(ratio) < 1:
        warnings.warn(
            f"analog channels at {analog.rate:g} Hz left out: not a whole multiple of {fps:g} fps", stacklevel=3
        )
        return None
    count = len(analog.values)
    place = (times[0] - first) * analog.rate + np.arange(len(times) * round(ratio))
    place = np.mod(place, count) if loop else np.clip(place, 0, count - 1)
    whole = np.abs(place - np.rint(place)) <= 1e-6
    low = np.minimum(np.floor(place).astype(np.intp), count - 1)
    high = (low + 1) % count if loop else np.minimum(low + 1, count - 1)
    weight = (place - low)[:, None]
    values = analog.values[low] * (1 - weight) + analog.values[high] * weight
    values[whole] = analog.values[np.rint(place[whole]).astype(np.intp) % count]
    return Analog(values.astype(analog.values.dtype), analog.rate, analog.names, analog.units, analog.descriptions)


def _source_times(motion, source_times):
    if source_times is None:
        return np.arange(motion.frame_count) / motion.standard_fps
    keys = np.asarray(source_times, dtype=float)
    if keys.shape != (motion.frame_count,):
        raise ValueError(f"source_times has shape {keys.shape}, the motion {motion.frame_count} frames")
    if not np.isfinite(keys).all() or np.any(np.diff(keys) <= 0):
        raise ValueError("source_times must be finite and strictly increasing")
    return keys


def _output_times(rate, keys, fps, times, start, end):
    """Output times (N,) and frame rate (`rate`: the source's, the default)."""
    if fps is not None and not 0 < fps < np.inf:
        raise ValueError(f"fps must be positive and finite, not {fps}")
    if times is not None:
        if start is not None or end is not None:
            raise ValueError("start and end trim a regular output: give them or times, not both")
        times = np.asarray(times, dtype=float).reshape(-1)
        if not len(times) or not np.isfinite(times).all():
            raise ValueError("times must be finite, and there must be at least one")
        if fps is None:
            span = times[-1] - times[0]
            fps = (len(times) - 1) / span if len(times) > 1 and span > 0 else rate
        return times, float(fps)
    fps = rate if fps is None else float(fps)
    start = keys[0] if start is None else float(start)
    end = keys[-1] if end is None else float(end)
    if not start <= end or not np.isfinite([start, end]).all():
        raise ValueError(f"start ({start}) must be finite and not after end ({end})")
    count = int(np.floor((end - start) * fps + 1e-6)) + 1
    return start + np.arange(count) / fps, fps


class _Plan:
    """Where output times fall among the source's keys: each time's segment (its keys `low` and
    `high`, and `fraction` of the way between), the key it coincides with (`exact`, within 1e-9 s;
    -1 elsewhere), and `interpolate(values, smooth, mix)`: values (F, ...) at the output times,
    mixed by `mix` between the segment's keys, or (smooth) by the Catmull-Rom spline through its
    neighbours."""

    def __init__(self, keys, times, loop):
        self.index, self.time, self.query = _extended_keys(keys, times, loop)
        self.segment = np.clip(np.searchsorted(self.time, self.query, side="right") - 1, 1, len(self.time) - 3)
        self.low, self.high = self.index[self.segment], self.index[self.segment + 1]
        before, after = self.time[self.segment], self.time[self.segment + 1]
        self.fraction = (self.query - before) / (after - before)
        near_low, near_high = np.abs(self.query - before) <= _COINCIDENT, np.abs(after - self.query) <= _COINCIDENT
        self.exact = np.where(near_low, self.low, np.where(near_high, self.high, -1))

    def interpolate(self, values, smooth, mix):
        if not smooth:
            return mix(values[self.low], values[self.high], self.fraction)
        around = [values[self.index[self.segment + k]] for k in (-1, 0, 1, 2)]
        return _catmull_rom(around, self.time, self.segment, self.query, mix)


def _extended_keys(keys, times, loop):
    """Source frame indices and times with one key before and two after (the spline's neighbours),
    and the output times moved into the keys' range (wrapped when looping, held otherwise)."""
    frames = len(keys)
    inner = np.arange(frames)
    if loop:
        period = (keys[-1] - keys[0]) * frames / (frames - 1)
        index = np.concatenate([[frames - 1], inner, [0, 1]])
        time = np.concatenate([[keys[-1] - period], keys, keys[:2] + period])
        return index, time, keys[0] + np.mod(times - keys[0], period)
    first, last = keys[1] - keys[0], keys[-1] - keys[-2]
    index = np.concatenate([[0], inner, [frames - 1, frames - 1]])
    time = np.concatenate([[keys[0] - first], keys, keys[-1] + [last, 2 * last]])
    return index, time, np.clip(times, keys[0], keys[-1])


def _catmull_rom(values, key_time, segment, query, mix):
    """The Catmull-Rom spline through four keys around each query (Barry and Goldman's pyramid of
    interpolations, written with `mix`: linear for vectors, slerp for quaternions)."""
    t = [key_time[segment + k] for k in (-1, 0, 1, 2)]

    def weight(a, b):
        return (query - t[a]) / (t[b] - t[a])

    first = [mix(values[k], values[k + 1], weight(k, k + 1)) for k in range(3)]
    second = [mix(first[k], first[k + 1], weight(k, k + 2)) for k in range(2)]
    return mix(second[0], second[1], weight(1, 2))


def _lerp(a, b, weight):
    return a + (b - a) * weight[:, None, None]


def _slerp(a, b, weight):
    return rotations.slerp(a, b, weight[:, None])


def _take(values, index):
    return None if values is None else values[index]


def _motion(motion, fps, euler, translations, scales, frame_time_text=None):
    return Motion(
        motion.skeleton, fps, euler, motion.euler_orders, translations, scales, frame_time_text=frame_time_text
    )
