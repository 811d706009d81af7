"""Axes, units and frame rates: the conversions between file conventions and a Blender scene."""

import math
from fractions import Fraction

import numpy as np
from bpy_extras.io_utils import axis_conversion

from ...core.frame_rate import standard_rate

AXES = [(a, a, f"{a} axis") for a in ("X", "Y", "Z", "-X", "-Y", "-Z")]
LENGTHS = {"mm": 0.001, "cm": 0.01, "m": 1.0, "in": 0.0254}  # metres per unit, as files name them
# the options' identifiers: Blender's UPPER_CASE ("MM" is the unit files write "mm")
LENGTH_ITEMS = [
    ("MM", "Millimetres", "Millimetres (mm)"),
    ("CM", "Centimetres", "Centimetres (cm)"),
    ("M", "Metres", "Metres (m)"),
    ("IN", "Inches", "Inches (in)"),
]
# the units motion files are written in, the most common first; "CMU ASF units" are the CMU
# database's ASF length unit (1/0.45 inch), which the cgspeed BVH conversions of it keep
UNITS = (
    ("centimetres", 0.01),
    ("metres", 1.0),
    ("millimetres", 0.001),
    ("inches", 0.0254),
    ("CMU ASF units (1/0.45 inch)", 0.0254 / 0.45),
)
MAX_FRAME = 1048574  # Blender's MAXFRAME
HUMAN_HEIGHTS = (1.0, 2.3)  # metres: a plausible size for a figure
_HUMAN_HEIGHT = 1.7  # metres: what a figure's size is compared with when no unit is plausible


def length_unit(units):
    """The unit symbol as files write it ("mm", a key of LENGTHS) of an option value: "MM" or, as
    scripts of earlier versions pass it, "mm". ValueError for anything else."""
    unit = str(units).lower()
    if unit not in LENGTHS:
        raise ValueError(f"units must be one of {', '.join(u.upper() for u in LENGTHS)}, not {units!r}")
    return unit


def as_typed(value):
    """A float property's value as the user typed it: the shortest decimal that reads back as the
    same single-precision number (Blender keeps 0.02 as 0.0199999995529651)."""
    return float(str(np.float32(value)))


def axis_matrix(forward, up):
    """3x3 numpy matrix taking file coordinates (given forward/up axes) to Blender's (-Y forward, Z up)."""
    return np.array(axis_conversion(from_forward=forward, from_up=up), dtype=float)


def guess_scale(size):
    """(scale, unit name, reason) for a figure `size` file units large (its largest extent in the
    first frame: a height or an arm span, whatever the up axis): the first of UNITS that
    makes it a plausible human size (HUMAN_HEIGHTS), else the unit that brings it nearest 1.7 m."""
    if not size > 0:
        return 1.0, "metres", "the figure has no size"
    plausible = [(name, scale) for name, scale in UNITS if HUMAN_HEIGHTS[0] <= size * scale <= HUMAN_HEIGHTS[1]]
    name, scale = (
        plausible[0] if plausible else min(UNITS, key=lambda unit: abs(math.log(size * unit[1] / _HUMAN_HEIGHT)))
    )
    kind = "a human size" if plausible else f"no unit gives {HUMAN_HEIGHTS[0]:g}-{HUMAN_HEIGHTS[1]:g} m; the nearest"
    return scale, name, f"the figure measures {size:.4g} units in its first frame: {size * scale:.3g} m, {kind}"


def scene_fps(scene, likely=()):
    """The scene's frame rate (a Fraction): the first of the rates `likely` (say, an imported
    file's) and then the standard rates that render.fps / render.fps_base gives with fps_base
    rounded to single precision, as Blender keeps it (30 / 1.001 is 30000/1001); else that
    ratio exactly."""
    fps, base = scene.render.fps, Fraction(scene.render.fps_base)
    period, band = base / fps, base / fps / 2**23
    rate = next((rate for rate in likely if abs(1 / rate - period) <= band), None)
    if rate is None:
        rate = standard_rate(period, period - band, period + band)
    return fps / base if rate is None else rate


def scene_rate(rate):
    """(render.fps, render.fps_base) that give `rate` frames per second (a Fraction or float).

    Raises ValueError for a rate no Blender scene can play (fps 1..32767, base 1e-5..1e6)."""
    if not (isinstance(rate, Fraction) or math.isfinite(rate)) or not 1e-6 <= rate <= 32767e5:
        shown = f"{float(rate):.4g}" if abs(rate) < 1e300 else "over 1e300"
        raise ValueError(f"{shown} fps cannot be a Blender scene's frame rate (1e-6 to 3.3e9)")
    whole = min(max(round(rate), 1), 32767)
    return whole, float(whole / Fraction(rate))


def key_frames(frame_start, count, file_rate, rate):
    """Scene frames (count,) of the frames of a file at `file_rate` in a scene at `rate` (both
    Fractions): frame_start + i * rate / file_rate, exact where that is a whole frame.

    Raises ValueError when they fall outside the frames Blender has (+-1048574)."""
    step = rate / file_rate
    last = frame_start + (count - 1) * step
    if count and not -MAX_FRAME <= last <= MAX_FRAME:
        raise ValueError(
            f"{count} frames at {float(file_rate):.4g} fps would end on frame {float(last):.4g}, "
            f"beyond Blender's last frame {MAX_FRAME}"
        )
    if max(step.numerator, step.denominator) < 2**21:  # i * numerator is exact: one rounding
        return frame_start + np.arange(count) * step.numerator / step.denominator
    return frame_start + np.arange(count) * float(step)
