"""The one error type every reader raises for bad input, the two kinds of message a reader gives
for input it reads (FileWarning, FileNote), the checks that find non-finite numbers and arrays
larger than a file can make, and one-line messages."""

import numpy as np

_ESCAPED = {c: f"\\x{c:02x}" for c in range(32)}  # a NUL would cut a Blender report, a line break split it


def one_line(text):
    """`text` with its control characters (a broken file's bytes in a name, say) escaped: a message
    stays one line wherever it is shown (a terminal, Blender's report)."""
    return text.translate(_ESCAPED)


class ParseError(ValueError):
    """Bad input: the message names the file, the line or byte offset, and what was expected.

    ``path``, ``line`` (1-based) and ``offset`` (byte offset) are kept as attributes so that
    callers (the Blender operators) can show them; either location may be None.
    """

    def __init__(self, path, what, *, line=None, offset=None):
        self.path = str(path)
        self.line = line
        self.offset = offset
        self.what = what
        where = self.path
        if line is not None:
            where += f", line {line}"
        if offset is not None:
            where += f", byte {offset}"
        super().__init__(one_line(f"{where}: {what}"))


class FileWarning(UserWarning):
    """Something in a file is odd and the reader read past it (dropped, cut or chose between what
    the file says against itself): shown to the user as a warning. Readers warn with this category
    (or a subclass); any other warning a reader raises counts as one too."""


class FileNote(UserWarning):
    """What a reader did with a file that is sound (decoded it byte-swapped, kept an entry it does
    not know for the writer): shown to the user as information, not as a warning."""


class FrameCountWarning(FileWarning):
    """A reader kept another number of frames than the file declares (a lenient read of a short or
    long table, a C3D data section that ends early): `declared` and `kept` say how many, so that a
    caller can tell what the reading cost without parsing the message."""

    def __init__(self, message, *, declared, kept):
        super().__init__(message)
        self.declared = int(declared)
        self.kept = int(kept)


# The arrays a file may make are bounded by its size (a few bytes can stand for many values):
MEMORY_PER_BYTE = 100
MEMORY_FLOOR = 64 << 20
# A Motion's frame holds two float64 triples per joint (angles, translation): a reader of a
# hierarchy whose rows of few channels stand for many joints bounds frames x joints by it.
BYTES_PER_JOINT_FRAME = 48


def memory_allowed(size):
    """The most bytes of arrays that counts read from a file of `size` bytes may make:
    MEMORY_PER_BYTE x `size` + MEMORY_FLOOR (see check_memory)."""
    return MEMORY_FLOOR + MEMORY_PER_BYTE * size


def check_memory(path, need, size, what, *, line=None, offset=None, why=""):
    """Raise ParseError at `line` or byte `offset` unless `need` bytes of arrays, made from counts
    read in a file of `size` bytes, are at most memory_allowed(`size`): checked before allocating.
    Every reader bounds what a count it reads would make here.

    The message reads "{what} would take N MiB from a file of M MiB (at most ...){why}".
    """
    if need > memory_allowed(size):
        raise ParseError(
            path,
            f"{what} would take {need / 2**20:.0f} MiB from a file of {size / 2**20:.1f} MiB "
            f"(at most {MEMORY_PER_BYTE} x the file size + {MEMORY_FLOOR >> 20} MiB){why}",
            line=line,
            offset=offset,
        )


def first_nonfinite(values):
    """Index tuple of the first NaN or infinity in `values` (C order), or None when all are finite.

    One vectorised pass on good data; the search for the place runs only when there is one.
    """
    values = np.asarray(values)
    if np.isfinite(values).all():
        return None
    return tuple(int(i) for i in np.unravel_index(np.argmin(np.isfinite(values)), values.shape))


def require_finite(values, place):
    """Raise ValueError naming `place(*index)` of the first NaN or infinity in `values`: writers
    refuse such data before they open the output (a reader would reject the file)."""
    bad = first_nonfinite(values)
    if bad is not None:
        raise ValueError(f"{place(*bad)} is {np.asarray(values)[bad]}: cannot write non-finite numbers")


# The largest magnitude a reader accepts for any number it returns or computes from a file (a
# coordinate, length, scale, factor, or their products). No quantity of a capture comes near it (1e15
# mm is a million km); its square, or its sum over a million joints, still fits float32 (Blender's
# numbers, at most 3.4e38): what the model computes from numbers within it stays finite. A value
# beyond it is refused where it is read, not overflowed later.
LARGEST = 1e15
# Frame and sample rates (Hz) that a capture can have: a reader refuses any other (check_rate).
RATES = (1e-3, 1e6)


def first_beyond(values, bound=LARGEST):
    """Index tuple of the first value of `values` (C order) that is NaN, infinite or larger than
    `bound` in magnitude, or None. Two passes (max, min) on good data, no temporary array."""
    values = np.asarray(values)
    if not values.size or (values.max() <= bound and values.min() >= -bound):  # NaN fails both
        return None
    with np.errstate(invalid="ignore"):
        inside = np.abs(values) <= bound
    return tuple(int(i) for i in np.unravel_index(np.argmin(inside), values.shape))


def beyond(what, value, bound=LARGEST):
    """The message of a number `value` that is not finite or larger than `bound` in magnitude."""
    return f"{what} is {value:g}: expected a finite number of magnitude at most {bound:g}"


def check_bound(path, values, what, *, line=None, offset=None, bound=LARGEST):
    """Raise ParseError at `line` or byte `offset` unless every number of `values` (a number or an
    array) is finite and at most `bound` in magnitude; `what` names the number (a text, or for an
    array a function of the first bad value's index tuple). Returns `values`."""
    bad = first_beyond(values, bound)
    if bad is not None:
        name = what(*bad) if callable(what) else what
        raise ParseError(path, beyond(name, np.asarray(values)[bad].item(), bound), line=line, offset=offset)
    return values


def rate_problem(rate, what):
    """None when `rate` (Hz) is one a capture can have (RATES), else the message saying so: `what`
    names where the rate comes from ("DataRate", "Frame Time 1e-09")."""
    low, high = RATES
    if low <= rate <= high:
        return None
    return f"{what} gives a rate of {rate:g} Hz: expected {low:g} to {high:g} Hz"


def check_rate(path, rate, what, *, line=None, offset=None):
    """`rate` (a float, Hz) when it lies within RATES, else ParseError at `line` or byte `offset`
    naming `what` (the field it comes from). Every reader of a rate checks it here."""
    problem = rate_problem(rate, what)
    if problem is not None:
        raise ParseError(path, problem, line=line, offset=offset)
    return float(rate)


def require_bounded(values, place, bound=LARGEST):
    """`require_finite`, and no magnitude beyond `bound` (LARGEST: what every reader accepts, well
    inside float32): a writer refuses a number its reader would refuse, or its file would hold as
    infinity, naming `place(*index)` and the value."""
    require_finite(values, place)
    bad = first_beyond(values, bound)
    if bad is not None:
        raise ValueError(f"{beyond(place(*bad), np.asarray(values)[bad].item(), bound)} (what readers accept)")


def require_rate(rate, what):
    """Raise ValueError unless `rate` (Hz) lies within RATES, as readers require (see rate_problem)."""
    problem = rate_problem(rate, what)
    if problem is not None:
        raise ValueError(problem)
