"""The one error type every reader raises for bad input, the checks that find non-finite numbers
and arrays larger than a file can make, and one-line messages."""

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


class FrameCountWarning(UserWarning):
    """A reader kept another number of frames than the file declares (a lenient read of a short or
    long table, a C3D data section that ends early): `declared` and `kept` say how many, so that a
    caller can tell what the reading cost without parsing the message."""

    def __init__(self, message, *, declared, kept):
        super().__init__(message)
        self.declared = int(declared)
        self.kept = int(kept)


# The arrays a text file may make are bounded by its size (a few bytes can stand for many values):
MEMORY_PER_BYTE = 100
MEMORY_FLOOR = 64 << 20


def check_memory(path, need, size, what, *, line=None, why=""):
    """Raise ParseError unless `need` bytes of arrays, made from counts read in a file of `size`
    bytes, are at most MEMORY_PER_BYTE x `size` + MEMORY_FLOOR: checked before allocating.

    The message reads "{what} would take N MiB from a file of M MiB (at most ...){why}".
    """
    if need > MEMORY_FLOOR + MEMORY_PER_BYTE * size:
        raise ParseError(
            path,
            f"{what} would take {need / 2**20:.0f} MiB from a file of {size / 2**20:.1f} MiB "
            f"(at most {MEMORY_PER_BYTE} x the file size + {MEMORY_FLOOR >> 20} MiB){why}",
            line=line,
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
