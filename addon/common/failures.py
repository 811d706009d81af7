"""How a failed import reaches the user: one message naming the file and, when known, the place
(line, byte offset, joint and frame), never a traceback."""

import re
import traceback

from ...core import ParseError
from ...core.errors import one_line


class InFile:
    """Context manager: an exception raised inside records `path` (the file being imported) as its
    `import_file`, unless an inner block recorded one first. The exception itself propagates
    unchanged. `path` may be changed inside, e.g. per file of a loop."""

    def __init__(self, path=None):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if isinstance(error, Exception) and self.path is not None and not hasattr(error, "import_file"):
            try:
                setattr(error, "import_file", str(self.path))  # noqa: B010 - an attribute Exception does not declare
            except AttributeError:  # an exception type without a __dict__
                pass
        return False


# the core's hints name its Python arguments; the report names the options an artist sees
_ARTIST_WORDS = (
    (re.compile(r"strict=False (read|follow)s"), r"turn Strict off to \1"),
    (re.compile(r"fill_missing=True takes"), "Fill Missing Bones takes"),
    (re.compile(r'pass skeleton="x\.asf"'), "import the .asf with the .amc files"),
    (re.compile(r"pass skeleton=$"), "import the right .asf with the .amc files"),
    (re.compile(r"pass obj=\.\.\."), "name it in the OBJ option"),
    (re.compile(r"encode with grouping='components'"), "export with Groups: Connected Parts"),
)


def artist_words(text):
    """`text` (a core message) with its hints in the add-on's terms: the option to change, not the
    Python argument ("turn Strict off to read the rows present", not "strict=False reads ...")."""
    for pattern, words in _ARTIST_WORDS:
        text = pattern.sub(words, text)
    return text


def message(error, fallback=""):
    """One line for the report (see one_line): the file (the error's own, its `import_file`, else
    `fallback`), the place when the error knows it, and what went wrong, in an artist's words."""
    return artist_words(one_line(_message(error, fallback)))


def _message(error, fallback):
    path = getattr(error, "import_file", None) or fallback
    if isinstance(error, ParseError):
        return str(error)  # names its own file (an .obj beside a .memg, say) and the place
    if isinstance(error, OSError):
        return f"{error.filename or path}: {error.strerror or error}"
    if isinstance(error, MemoryError):
        what = "not enough memory for what the file declares"
    elif isinstance(error, RecursionError):
        what = "nested too deeply to read"
    elif isinstance(error, ValueError):
        what = str(error)
    else:  # a bug of ours: the user gets one line, the console the traceback
        traceback.print_exception(error)
        what = f"unexpected {type(error).__name__}: {error}"
    return f"{path}: {what}" if path and not what.startswith(f"{path}: ") else what
