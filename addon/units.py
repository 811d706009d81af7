"""Axes, units and frame rates: the conversions between file conventions and a Blender scene."""

import math

import numpy as np
from bpy_extras.io_utils import axis_conversion

AXES = [(a, a, f"{a} axis") for a in ("X", "Y", "Z", "-X", "-Y", "-Z")]
_UNITS = (("metres", 1.0), ("centimetres", 0.01), ("millimetres", 0.001), ("inches", 0.0254),
          ("decimetres", 0.1))
_HUMAN_HEIGHT = 1.7  # metres: what "auto" aims a skeleton's height at


def axis_matrix(forward, up):
    """3x3 numpy matrix taking file coordinates (given forward/up axes) to Blender's (-Y forward, Z up)."""
    return np.array(axis_conversion(from_forward=forward, from_up=up), dtype=float)


def guess_scale(height):
    """(scale, unit name): the unit that makes a figure of `height` file units closest to 1.7 m."""
    if not height > 0:
        return 1.0, "metres"
    name, scale = min(_UNITS, key=lambda unit: abs(math.log(height * unit[1] / _HUMAN_HEIGHT)))
    return scale, name


# rates that producers round when they print Frame Time (NTSC rates both exact and truncated)
_STANDARD_RATES = sorted(set(range(1, 1001)) | {n * 1000 / 1001 for n in (24, 30, 48, 60, 120, 240)}
                         | {23.976, 29.97, 47.952, 59.94, 119.88, 239.76})


def snap_rate(fps, tolerance=2e-5):
    """The standard rate whose period, printed with fewer digits, gives this rate's Frame Time.

    BVH writers print Frame Time rounded (0.033333 for 30 fps, .0083333 for 120): 1 / Frame Time
    is then 30.0003 or 120.0005. A rate within `tolerance` (relative) of a standard one snaps to
    it; anything else is kept exact.
    """
    best = min(_STANDARD_RATES, key=lambda rate: abs(rate - fps))
    return best if abs(best - fps) <= tolerance * fps else fps


def scene_rate(fps):
    """(render.fps, render.fps_base) that give exactly `fps` frames per second."""
    whole = min(max(int(round(fps)), 1), 32767)
    return whole, whole / fps
