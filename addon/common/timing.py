"""Which frames an export writes, and at what rate. By default an object's own take: the frames
and the rate it was imported at (its record, see file_record), or its keys at the scene's rate;
the scene's range and rate are choices. A take imported at its own rate into a scene that runs
at another (Keep Scene Rate, or a later import that changed the scene) is sampled at its own
frames, between scene frames where they fall there, and written at its own rate: a file never
loses frames or time because another take set the scene."""

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import compat, file_record
from .units import scene_fps

RANGES = ("TAKE", "SCENE", "CUSTOM")
RATES = ("TAKE", "SCENE")
RANGE_ITEMS = [
    ("TAKE", "Take", "The object's own take: the frames it was imported with, else its keys"),
    ("SCENE", "Scene Range", "The scene's start to end frame"),
    ("CUSTOM", "Custom", "From Start to End"),
]
RATE_ITEMS = [
    (
        "TAKE",
        "Take's Rate",
        "The rate the take was imported at, sampled at its own frames (between scene frames where the scene "
        "runs at another rate); else the scene's",
    ),
    ("SCENE", "Scene Rate", "Every scene frame of the range, at the scene's rate"),
]


@dataclass
class Take:
    """An object's own frames: scene frames `first` to `last`, `step` (a Fraction) scene frames
    apart, at `rate` (a Fraction) frames per second, or None when only its keys are known."""

    first: float
    last: float
    step: Fraction = Fraction(1)
    rate: Fraction | None = None

    @property
    def count(self):
        return math.floor((self.last - self.first) / self.step + 1e-6) + 1


def recorded_take(owner):
    """The take remembered on `owner` by file_record.take_facts (a marker file's parent, a point
    cloud, an animated mesh), or None."""
    facts = file_record.recall(owner)
    try:
        first, count = float(facts["frame_start"]), int(facts["frames"])
        rate, step = Fraction(facts["rate"]), Fraction(facts.get("frame_step", "1"))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    if count < 1 or rate <= 0 or step <= 0 or not math.isfinite(first):
        return None
    return Take(first, first + (count - 1) * float(step), step, rate)


def action_take(obj):
    """The take of the action assigned to `obj`: its frame range (the manual one, else its first
    to its last key) with the rate and frame spacing it was imported at (file_record.remember_take),
    or None without an action or keys."""
    action = compat.assignment(obj)[0]
    if action is None:
        return None
    if action.use_frame_range:
        first, last = float(action.frame_start), float(action.frame_end)
    else:
        span = keyed_span([obj])
        if span is None:
            return None
        first, last = span
    facts = file_record.recall(action)
    try:
        rate, step = Fraction(facts["rate"]), Fraction(facts.get("frame_step", "1"))
        if rate <= 0 or step <= 0:
            raise ValueError
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return Take(first, last)
    return Take(first, last, step, rate)


def keyed_span(objects):
    """(first, last) scene frame keyed in the actions of `objects`, or None without keys."""
    ends = []
    for obj in objects:
        for curve in compat.action_fcurves(obj):
            if len(curve.keyframe_points):
                keys = compat.key_arrays(curve)[0]
                ends += [keys.min(), keys.max()]
    return (min(ends), max(ends)) if ends else None


def export_frames(scene, take, frame_range="TAKE", frame_rate="TAKE", frame_start=None, frame_end=None):
    """(scene frames (F,) float, rate (a Fraction)) that an export writes.

    take         the object's Take, or None (the scene's range and rate)
    frame_range  "TAKE" (the take's frames; the scene's without a take), "SCENE" (the scene's
                 start to end) or "CUSTOM" (frame_start to frame_end); frame_start and frame_end,
                 when given, replace either end of any range
    frame_rate   "TAKE" (the take's rate, at its own frame spacing: the frames first, first +
                 step, ...; the scene's rate and every scene frame without a recorded rate) or
                 "SCENE" (every scene frame, at the scene's rate)
    ValueError when the range holds no frame.
    """
    if frame_range not in RANGES:
        raise ValueError(f"frame_range must be one of {', '.join(RANGES)}, not {frame_range!r}")
    if frame_rate not in RATES:
        raise ValueError(f"frame_rate must be one of {', '.join(RATES)}, not {frame_rate!r}")
    if frame_range == "TAKE" and take is not None:
        first, last = take.first, take.last
    else:
        first, last = float(scene.frame_start), float(scene.frame_end)
    first = first if frame_start is None else float(frame_start)
    last = last if frame_end is None else float(frame_end)
    if frame_rate == "TAKE" and take is not None and take.rate is not None:
        rate, step = take.rate, take.step
    else:
        rate = scene_fps(scene, (take.rate,) if take is not None and take.rate is not None else ())
        step = Fraction(1)
        if first != round(first):  # every scene frame: the whole ones
            first = float(math.ceil(first))
    count = Take(first, last, step).count if last >= first else 0
    if count < 1:
        raise ValueError(f"the frame range {first:g}-{last:g} is empty")
    if max(step.numerator, step.denominator) < 2**21:  # i * numerator is exact: one rounding
        frames = first + np.arange(count) * step.numerator / step.denominator
    else:
        frames = first + np.arange(count) * float(step)
    return frames, rate


def rate_text(rate):
    """A rate as the reports write it: 120, 29.97, 23.976."""
    return f"{float(rate):.6g}"
