"""Frame rates as files print them: the standard rate that a rounded frame period stands for.

Writers print the frame period rounded (BVH `Frame Time: 0.016667` for 60 fps, `.0083333` for
120, `0.0333667` for NTSC 29.97), cut off, or from a single-precision number (`0.008333334`):
1 / period is then 59.9988, 120.0005 or 119.99999. A printed period stands for a standard rate
when that rate's period, printed with as many decimals (rounded or cut off; from a single when
the text has no more digits than a single holds), gives the same text. Rates are exact
fractions: 30000/1001, not 29.97002997.
"""

import decimal
import math
from fractions import Fraction

_NTSC = [Fraction(n * 1000, 1001) for n in (24, 30, 48, 60, 120, 240)]
_NTSC_WRITTEN = [Fraction(text) for text in ("23.976", "29.97", "47.952", "59.94", "119.88", "239.76")]
_SINGLE = Fraction(1, 2**24)  # relative rounding of a single-precision number


def standard_rate(period, low, high):
    """The standard rate (a Fraction) whose period (seconds) lies in [low, high], or None. Of the
    kinds in order of preference (whole rates up to 1000 fps, NTSC rates n * 1000 / 1001, NTSC
    rates as usually written: 29.97), the first that has one; of that kind the nearest `period`."""
    wholes = [Fraction(n) for n in range(max(1, math.ceil(1 / high)), min(1000, math.floor(1 / low)) + 1)]
    for kind in (wholes, _NTSC, _NTSC_WRITTEN):
        fits = [rate for rate in kind if low <= 1 / rate <= high]
        if fits:
            return min(fits, key=lambda rate: abs(1 / rate - period))
    return None


def snap_rate(period_text):
    """The frame rate (a Fraction) that the printed period `period_text` (seconds) stands for: a
    standard rate when one fits the text, else exactly 1 / period. Several may fit a short text
    ("0.04" fits 20 to 28 fps): see standard_rate.

    Raises ValueError when the text is not a positive finite decimal number.
    """
    try:
        number = decimal.Decimal(period_text.strip())
        period = Fraction(number)
    except (decimal.InvalidOperation, ValueError, OverflowError, AttributeError):
        raise ValueError(f"a frame period must be a decimal number, not {period_text!r}") from None
    if period <= 0:
        raise ValueError(f"a frame period must be positive, not {period_text!r}")
    digits, exponent = number.as_tuple()[1:]
    unit = Fraction(10) ** int(exponent)  # of the last printed digit (an int: NaN and Infinity failed above)
    single = period * _SINGLE if len(digits) <= 9 else 0  # more digits than a single holds: a double
    rate = standard_rate(period, period - unit / 2 - single, period + unit + single)
    return 1 / period if rate is None else rate


def stands_for(period_text, fps):
    """Whether the printed period `period_text` (None: no text) still stands for `fps`: exactly
    1 / period, or the standard rate it was rounded from (see snap_rate). Writers print the text
    back while it does."""
    return period_text is not None and fps in (1.0 / float(period_text), float(snap_rate(period_text)))
