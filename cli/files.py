"""Reading and writing files for the commands: the options each format takes, and '-' for standard
input or output (through a temporary file: the readers and writers work on paths)."""

import contextlib
import inspect
import os
import shutil
import sys
import tempfile
import warnings

from ..core import formats
from ..core.errors import one_line

STDIO = "-"
_SHOWN = {}  # temporary path -> the name to show for it in messages ("<stdin>", "<stdout>")


def shown(text):
    """`text` (a message) on one line (see core.errors.one_line), with temporary paths replaced by
    the names the user gave."""
    for temporary, name in _SHOWN.items():
        text = text.replace(temporary, name)
    return one_line(text)


def accepted(function, options):
    """The `options` (None values dropped) that `function` takes as keywords, and the names of the others."""
    parameters = inspect.signature(function).parameters
    given = {key: value for key, value in options.items() if value is not None}
    return {k: v for k, v in given.items() if k in parameters}, sorted(k for k in given if k not in parameters)


def read_options(args):
    """Reader keywords from the reading options (each format takes the ones it knows)."""
    return {
        "strict": args.strict,
        "fps": args.input_fps,
        "skeleton": args.skeleton,
        "obj": args.obj,
    }


def write_options(args):
    """Writer keywords from the writing options."""
    return {
        "precision": args.precision,
        "rotation_order": args.rotation_order,
        "position_joints": args.position_joints,
        "tolerance": args.tolerance,
    }


def _extension(path, given, what):
    if path != STDIO:
        return os.path.splitext(path)[1]
    if not given:
        raise ValueError(f"{what} '-' needs its format: --{'from' if what == 'input' else 'to'} EXT (bvh, htr, ...)")
    return "." + given.lower().lstrip(".")


def read(path, options, fmt=None):
    """Read `path` ('-': standard input in format `fmt`) with the reader options it takes."""
    if path != STDIO:
        return _read(path, options)
    ext = _extension(path, fmt, "input")
    formats.reader("x" + ext)  # an unknown format fails before stdin is read
    data = sys.stdin.buffer.read()
    with _temporary(ext, "<stdin>") as temporary:
        with open(temporary, "wb") as f:
            f.write(data)
        return _read(temporary, options)


def _read(path, options):
    function = formats.reader(path)
    chosen, _ = accepted(function, options)
    return function(path, **chosen)


def write(data, path, options, fmt=None):
    """Write `data` to `path` ('-': standard output, format `fmt`) with the writer options it takes;
    the options it does not take are named in a warning."""
    ext = _extension(path, fmt, "output")
    target = path if path != STDIO else "x" + ext
    holds = formats.writes(target)
    if holds and not isinstance(data, holds):
        kinds = ", ".join(k.__name__ for k in holds)
        raise CannotConvert(f"{path}: {ext} files hold {kinds}, not {type(data).__name__}")
    function = formats.writer(target)
    chosen, ignored = accepted(function, options)
    if ignored:
        shown_names = ", ".join("--" + name.replace("_", "-") for name in ignored)
        warnings.warn(f"{shown_names} does not apply to {ext} files: ignored", stacklevel=2)
    if path != STDIO:
        return function(data, path, **chosen)
    with _temporary(ext, "<stdout>") as temporary:
        result = function(data, temporary, **chosen)
        folder = os.path.dirname(temporary)
        if len(os.listdir(folder)) != 1:
            raise CannotConvert(f"{ext} writes more than one file: it cannot go to standard output")
        with open(temporary, "rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
        sys.stdout.flush()
        return result


class CannotConvert(ValueError):
    """The data cannot go where it was asked to (a format that holds another kind of data)."""


@contextlib.contextmanager
def _temporary(ext, name):
    """A path with extension `ext` in a fresh temporary folder (removed afterwards), shown as `name`
    in messages (see `shown`)."""
    with tempfile.TemporaryDirectory(prefix="mocap-io-") as folder:
        path = os.path.join(folder, "data" + ext)
        _SHOWN[path] = name
        yield path
