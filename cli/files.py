"""Reading and writing files for the commands: what each command can read and write (checked before
any work), the options each format takes, '-' for standard input or output (through a temporary
file: the readers and writers work on paths), and the core's words turned into the command line's
(`in_our_words`: a reader's `strict=False` is `--lenient` here)."""

import contextlib
import inspect
import os
import re
import shutil
import sys
import tempfile
import warnings

from ..core import formats
from ..core.errors import one_line
from ..core.markers import Markers, joint_markers
from ..core.mesh import Mesh, MeshAnimation
from ..core.motion import Motion
from .errors import CannotConvert, UsageError

STDIO = "-"
_SHOWN = {}  # temporary path -> the name to show for it in messages ("<stdin>", "<stdout>")
KINDS = {Motion: "motion", Markers: "markers", Mesh: "mesh", MeshAnimation: "mesh animation"}
PLURAL = {Motion: "motions", Markers: "markers", Mesh: "meshes", MeshAnimation: "mesh animations"}
EVERY_KIND = tuple(KINDS)

# The reader and writer keywords that options set: keyword -> (the option, what it takes). The core's
# messages name keywords ("strict=False reads the rows present", 'pass skeleton="x.asf"'); in_our_words
# puts the options in their place.
OPTIONS = {
    "strict": ("--strict", None),  # strict=False is --lenient
    "fps": ("--input-fps", "FPS"),
    "skeleton": ("--skeleton", "ASF"),
    "obj": ("--obj", "OBJ"),
    "precision": ("--precision", "N"),
    "rotation_order": ("--rotation-order", "ORDER"),
    "position_joints": ("--position-joints", "root|all"),
    "tolerance": ("--tolerance", "TOLERANCE"),
    "grouping": ("--grouping", "groups|components"),
}
_ONLY = {"skeleton": (".amc",)}  # a reading option that a reader takes for some of its extensions only
_KEYWORD = re.compile(r"\b(pass )?\b(" + "|".join(OPTIONS) + r")=(True|False|\"[^\"]*\"|'[^']*'|\.\.\.|[\w.+-]+)?")


def in_our_words(text):
    """`text` (a message of the core's) with the keywords it names as this command's options:
    `strict=False` -> `--lenient`, `pass skeleton="x.asf"` -> `give --skeleton x.asf`, `obj=...` ->
    `--obj OBJ`."""

    def option(match):
        give, keyword, value = match.groups()
        flag, takes = OPTIONS[keyword]
        if keyword == "strict":
            words = "--lenient" if value == "False" else flag
        else:
            words = flag + " " + (value.strip("\"'") if value and value != "..." else takes)
        return ("give " if give else "") + words

    return _KEYWORD.sub(option, text)


def shown(text):
    """`text` (a message) as the command shows it: on one line (see core.errors.one_line), with
    temporary paths replaced by the names the user gave and the core's keywords by options."""
    for temporary, name in _SHOWN.items():
        text = text.replace(temporary, name)
    return one_line(in_our_words(text))


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
        "grouping": args.grouping,
    }


def _extension(path, given, what):
    if path != STDIO:
        return os.path.splitext(path)[1].lower()
    if not given:
        raise UsageError(f"{what} '-' needs its format: --{'from' if what == 'input' else 'to'} EXT (bvh, htr, ...)")
    return "." + given.lower().lstrip(".")


def _name(path, what):
    return path if path != STDIO else f"<std{'in' if what == 'input' else 'out'}>"


def kind_of(data):
    """The kind (model class) of `data`, also where a format returns a subclass of one (FamcAnimation)."""
    return next(kind for kind in EVERY_KIND if isinstance(data, kind))


def _listed(kinds):
    return " and ".join(PLURAL[k] for k in kinds)


def check_input(path, fmt, command, kinds=EVERY_KIND):
    """The kind of data (model class) `path` ('-': standard input in format `fmt`) holds, by its
    extension, checked before any reading: a folder or an extension `command` cannot read is a
    UsageError (listing what it reads), another kind of data than `kinds` is CannotConvert."""
    ext = _extension(path, fmt, "input")
    if path != STDIO and os.path.isdir(path) and not formats.is_sequence(path):
        raise UsageError(f"{path}: is a folder, not a file (batch converts the files of a folder)")
    kind = formats.reads(path if path != STDIO else "x" + ext)
    name = _name(path, "input")
    if kind is None:
        readable = ", ".join(e for e in formats.extensions("read") if formats.reads("x" + e) in kinds)
        raise UsageError(f"{name}: cannot read '{ext or 'no extension'}' files ({command} reads {readable})")
    if kind not in kinds:
        raise CannotConvert(f"{name}: {ext} files hold {PLURAL[kind]}; {command} works on {_listed(kinds)}")
    return kind


def conversion(kind, path):
    """How data of `kind` goes to the file `path`: "as is" (its writer takes it), "joint paths"
    (a motion as markers), or None."""
    holds = formats.writes(path)
    if kind in holds:
        return "as is"
    if kind is Motion and Markers in holds:
        return "joint paths"
    return None


def writable(kinds):
    """The extensions a file of one of `kinds` can be written to (see `conversion`)."""
    return [e for e in formats.extensions("write") if any(conversion(k, "x" + e) for k in kinds)]


def check_output(path, fmt, command, kinds=EVERY_KIND, extensions=None):
    """Check, before any work, that `command` can write `path` ('-': standard output in format
    `fmt`): not a folder and a known extension (`extensions`, default every format's; else a
    UsageError listing the ones that hold `kinds`), and for a single kind a format that holds it
    (else CannotConvert: markers to .bvh)."""
    ext = _extension(path, fmt, "output")
    name = _name(path, "output")
    if path != STDIO and os.path.isdir(path):
        raise UsageError(f"{path}: is a folder: name the file to write in it")
    if ext not in (formats.extensions("write") if extensions is None else extensions):
        known = ", ".join(writable(kinds) if extensions is None else extensions)
        raise UsageError(f"{name}: cannot write '{ext or 'no extension'}' files ({command} writes {known})")
    target = path if path != STDIO else "x" + ext
    if len(kinds) == 1 and not conversion(kinds[0], target):
        raise CannotConvert(_wrong_kind(name, ext, kinds[0], target))
    return ext


def _wrong_kind(name, ext, kind, target):
    holds = _listed([k for k in formats.writes(target) if k in PLURAL])
    return f"{name}: {ext} files hold {holds}, not {PLURAL[kind]} ({PLURAL[kind]} go to {', '.join(writable([kind]))})"


def fitted(data, path, name=None):
    """`data` as the file `path` holds it: as it is, a motion's joint paths as markers, else CannotConvert."""
    kind = kind_of(data)
    how = conversion(kind, path)
    if how is None:
        ext = os.path.splitext(str(path))[1].lower()
        raise CannotConvert(_wrong_kind(name or path, ext, kind, path))
    if how == "joint paths":
        from .info import length_unit

        unit = length_unit(data)
        return joint_markers(data, units=unit["length"] if unit and unit["scale"] == 1 else "")
    return data


def read(path, options, fmt=None):
    """Read `path` ('-': standard input in format `fmt`) with the reader options it takes."""
    if path != STDIO:
        check_input(path, fmt, "mocap-io")
        return _read(path, options)
    ext = _extension(path, fmt, "input")
    check_input(path, fmt, "mocap-io")  # an unknown format fails before stdin is read
    data = sys.stdin.buffer.read()
    with _temporary(ext, "<stdin>") as temporary:
        with open(temporary, "wb") as f:
            f.write(data)
        return _read(temporary, options)


def _read(path, options):
    function = formats.reader(path)
    ext = os.path.splitext(str(path))[1].lower()
    options = {k: v for k, v in options.items() if ext in _ONLY.get(k, (ext,))}
    if ext == ".amc" and options.get("skeleton") is None:
        from ..core.formats.asf import find_asf

        try:
            options["skeleton"] = find_asf(path)
        except ValueError as error:  # several .asf files could be its skeleton: --skeleton says which
            raise UsageError(str(error)) from None
    chosen, _ = accepted(function, options)
    return function(path, **chosen)


def make_folder(path):
    """Create the folder `path` goes in (a sequence's, 'seq/cloth_####.obj') if it does not exist."""
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)


def write(data, path, options, fmt=None):
    """Write `data` to `path` ('-': standard output, format `fmt`; the folder is created) with the
    writer options it takes; the options it does not take are named in a warning. A motion written
    to a markers format (.c3d, .trc) is its joints' paths. Returns the data written."""
    ext = _extension(path, fmt, "output")
    target = path if path != STDIO else "x" + ext
    data = fitted(data, target, _name(path, "output"))
    function = formats.writer(target)
    chosen, ignored = accepted(function, options)
    if ignored:
        shown_names = ", ".join(OPTIONS[name][0] for name in ignored)
        warnings.warn(f"{shown_names} does not apply to {ext} files: ignored", stacklevel=2)
    if path != STDIO:
        make_folder(path)
        function(data, path, **chosen)
        return data
    with _temporary(ext, "<stdout>") as temporary:
        function(data, temporary, **chosen)
        folder = os.path.dirname(temporary)
        if len(os.listdir(folder)) != 1:
            raise CannotConvert(f"{ext} writes more than one file: it cannot go to standard output")
        with open(temporary, "rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
        sys.stdout.flush()
        return data


def describe(data):
    """What `data` holds in a few words: '471 frames at 120 fps, 31 joints'."""
    if isinstance(data, Mesh):
        return f"{len(data.vertices)} vertices, {len(data.face_sizes)} faces"
    rate = data.rate if isinstance(data, Markers) else data.fps
    timing = f"{data.frame_count} frames at {rate:.6g} fps"
    if isinstance(data, Motion):
        return f"{timing}, {data.skeleton.joint_count} joints"
    if isinstance(data, Markers):
        return f"{timing}, {data.marker_count} markers"
    return f"{timing}, {len(data.mesh.vertices)} vertices"


@contextlib.contextmanager
def _temporary(ext, name):
    """A path with extension `ext` in a fresh temporary folder (removed afterwards), shown as `name`
    in messages (see `shown`)."""
    with tempfile.TemporaryDirectory(prefix="mocap-io-") as folder:
        path = os.path.join(folder, "data" + ext)
        _SHOWN[path] = name
        yield path
