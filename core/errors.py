"""The one error type every reader raises for bad input."""


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
        super().__init__(f"{where}: {what}")
