"""Resampling a Motion in time: to a frame rate or to given times, from regular or variable source
timestamps, trimmed or looped. Rotations by slerp or a quaternion spline, translations linearly or
by a cubic; every step vectorised over frames and joints."""

import numpy as np

from . import rotations
from .frame_rate import stands_for
from .motion import Motion

_COINCIDENT = 1e-9  # seconds: an output time this close to a source frame takes that frame as it is


def resample(
    motion,
    fps=None,
    times=None,
    *,
    source_times=None,
    start=None,
    end=None,
    loop=False,
    rotation="slerp",
    translation="linear",
):
    """A new Motion sampled at `times` or every 1 / `fps` seconds from `start` to `end`.

    fps           output frame rate (default: the source's; with `times`, their mean rate)
    times         output times in seconds on the source's clock: frame f at f / motion.standard_fps
                  (the rate a printed Frame Time such as 0.008333 stands for: 120, not 120.000048),
                  or at source_times[f]
    source_times  (F,) increasing time of every source frame, for takes with variable timestamps
    start, end    trimming: first and last output time (default: the first and last source frame);
                  only with a regular output (no `times`)
    loop          the take repeats with a period of its length plus one mean frame step, so that its
                  last frame blends into its first; times wrap around (so `end` may lie beyond the
                  take: a 1 s cycle played for 10 s). Without it, times beyond either end hold the
                  first or last frame. Translations repeat as they are: a loop of a walk jumps back.
    rotation      "slerp" (default), or "spline": a Catmull-Rom spline through the keys built from
                  slerps (Barry-Goldman, correct for uneven keys), with no kinks at the keys
    translation   "linear" (default), or "cubic": the same spline on translations (and HTR scales)

    An output time that coincides with a source frame (within 1e-9 s) takes that frame's values
    exactly as they are; in between, each joint's Euler angles stay on the branch of its nearest
    source frame, so curves keep the source's continuity.
    """
    if rotation not in ("slerp", "spline"):
        raise ValueError(f"rotation must be 'slerp' or 'spline', not {rotation!r}")
    if translation not in ("linear", "cubic"):
        raise ValueError(f"translation must be 'linear' or 'cubic', not {translation!r}")
    frames = motion.frame_count
    if frames == 0:
        raise ValueError("cannot resample a motion without frames")
    keys = _source_times(motion, source_times)
    out_times, out_fps = _output_times(motion, keys, fps, times, start, end)
    if frames == 1:  # nothing to interpolate: every output frame is the only frame
        index = np.zeros(len(out_times), dtype=np.intp)
        return _motion(motion, out_fps, motion.euler[index], motion.translations[index], _take(motion.scales, index))
    key_index, key_time, query = _extended_keys(keys, out_times, loop)
    segment = np.clip(np.searchsorted(key_time, query, side="right") - 1, 1, len(key_time) - 3)
    low, high = key_index[segment], key_index[segment + 1]
    fraction = (query - key_time[segment]) / (key_time[segment + 1] - key_time[segment])
    exact = np.where(
        np.abs(query - key_time[segment]) <= _COINCIDENT,
        low,
        np.where(np.abs(key_time[segment + 1] - query) <= _COINCIDENT, high, -1),
    )
    nearest = np.where(fraction < 0.5, low, high)

    def interpolate(values, smooth, mix):
        if not smooth:
            return mix(values[low], values[high], fraction)
        return _catmull_rom([values[key_index[segment + k]] for k in (-1, 0, 1, 2)], key_time, segment, query, mix)

    quaternions = np.stack(
        [rotations.euler_to_quat(motion.euler[:, j], o) for j, o in enumerate(motion.euler_orders)], axis=1
    )
    turned = interpolate(quaternions, rotation == "spline", _slerp)
    euler = np.stack([rotations.quat_to_euler(turned[:, j], o) for j, o in enumerate(motion.euler_orders)], axis=1)
    euler = rotations.euler_nearest(euler, motion.euler[nearest])
    cubic = translation == "cubic"
    moved = interpolate(motion.translations, cubic, _lerp)
    scales = None if motion.scales is None else interpolate(motion.scales[..., None], cubic, _lerp)[..., 0]
    hit = exact >= 0
    euler[hit] = motion.euler[exact[hit]]
    moved[hit] = motion.translations[exact[hit]]
    if scales is not None:
        scales[hit] = motion.scales[exact[hit]]
    keep_text = stands_for(motion.frame_time_text, out_fps)
    return _motion(motion, out_fps, euler, moved, scales, motion.frame_time_text if keep_text else None)


def _source_times(motion, source_times):
    if source_times is None:
        return np.arange(motion.frame_count) / motion.standard_fps
    keys = np.asarray(source_times, dtype=float)
    if keys.shape != (motion.frame_count,):
        raise ValueError(f"source_times has shape {keys.shape}, the motion {motion.frame_count} frames")
    if not np.isfinite(keys).all() or np.any(np.diff(keys) <= 0):
        raise ValueError("source_times must be finite and strictly increasing")
    return keys


def _output_times(motion, keys, fps, times, start, end):
    """Output times (N,) and frame rate."""
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
            fps = (len(times) - 1) / span if len(times) > 1 and span > 0 else motion.standard_fps
        return times, float(fps)
    fps = motion.standard_fps if fps is None else float(fps)
    start = keys[0] if start is None else float(start)
    end = keys[-1] if end is None else float(end)
    if not start <= end or not np.isfinite([start, end]).all():
        raise ValueError(f"start ({start}) must be finite and not after end ({end})")
    count = int(np.floor((end - start) * fps + 1e-6)) + 1
    return start + np.arange(count) / fps, fps


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
