"""The `mocap-io` command (also `python -m mocap_io`): argument parsing, messages and exit codes. The
work is the core's; `batch` and `preview` live in modules of their own."""

import argparse
import errno
import json
import os
import sys
import traceback
import warnings

from ..core import formats
from ..core.errors import FileNote, ParseError
from ..core.markers import Markers
from ..core.motion import Motion
from . import files
from .errors import CannotConvert, MissingDependency, UsageError

OK = 0
FILES_FAILED = 1  # batch: some files failed (the report names them); the others are done
USAGE = 2  # bad arguments (argparse's own code)
BAD_INPUT = 3  # an input file is malformed
CANNOT = 4  # the data cannot go where asked (another kind of data, values the format cannot hold)
OS_ERROR = 5  # a file cannot be read or written (missing, permissions, disk full)
MISSING = 6  # an optional dependency is not installed
INTERNAL = 70  # a bug (EX_SOFTWARE): please report it with the --debug traceback
INTERRUPTED = 130  # Ctrl-C
BROKEN_PIPE = 141  # the reader of standard output went away (head -1): 128 + SIGPIPE, as Unix tools end

EXIT_CODES = f"""exit codes:
  {OK}    success
  {FILES_FAILED}    batch: some files failed (the report lists each with its message)
  {USAGE}    bad arguments (an extension the command cannot read or write, a folder for a file, ...)
  {BAD_INPUT}    an input file is malformed (the message names file, line or byte offset)
  {CANNOT}    the data cannot be written as asked (another kind of data, values the format cannot hold)
  {OS_ERROR}    a file cannot be read or written (missing, permissions, disk full)
  {MISSING}    an optional dependency is missing (Pillow for preview, Dask for --scheduler)
  {INTERNAL}   internal error (a bug: --debug shows the traceback)
  {INTERRUPTED}  interrupted
  {BROKEN_PIPE}  standard output closed early (| head): ends quietly"""


def main(argv=None):
    """Run the command line `argv` (default: sys.argv[1:]); returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return USAGE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if args.quiet else "default")
        warnings.showwarning = _show_warning
        try:
            return args.run(args)
        except KeyboardInterrupt:
            _error("interrupted")
            return INTERRUPTED
        except OSError as error:
            if error.errno != errno.EPIPE:
                return _failed(error, args.debug)
            if args.debug:
                traceback.print_exc(file=sys.stderr)
            _silence_stdout()  # `| head -1`: the reader has what it wanted
            return BROKEN_PIPE
        except Exception as error:  # every error becomes one message and an exit code
            return _failed(error, args.debug)


def _failed(error, debug):
    """Report `error` on standard error (with its traceback under --debug); its exit code."""
    code = _exit_code(error)
    if debug:
        traceback.print_exc(file=sys.stderr)
    _error(_message(error, code))
    return code


def _silence_stdout():
    """After a broken pipe: standard output to the null device, so that the final flush at exit
    raises nothing ("Exception ignored ... BrokenPipeError")."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no file descriptor (a test's captured stdout)
        pass


def _exit_code(error):
    if isinstance(error, ParseError):
        return BAD_INPUT
    if isinstance(error, MissingDependency):
        return MISSING
    if isinstance(error, UsageError):
        return USAGE
    if isinstance(error, OSError):
        return OS_ERROR
    if isinstance(error, (ValueError, MemoryError)):
        return CANNOT
    return INTERNAL


def _message(error, code):
    if code == INTERNAL:
        return f"internal error: {type(error).__name__}: {error} (run with --debug for the traceback, and report it)"
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error) or type(error).__name__


def _error(message):
    print(f"mocap-io: error: {files.shown(message)}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    kind = "note" if issubclass(category, FileNote) else "warning"  # a reader says which (core.errors)
    print(f"mocap-io: {kind}: {files.shown(str(message))}", file=sys.stderr)


def _parser():
    """The `mocap-io` parser: the global options, then one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="mocap-io",
        description="Motion-capture and animated-mesh files without Blender: inspect, convert, resample, "
        f"retarget, preview, render to RIB, convert whole folders. Reads {', '.join(formats.extensions('read'))}; "
        f"writes {', '.join(formats.extensions('write'))}.",
        epilog="Run 'mocap-io COMMAND --help' for each command's options and examples.\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.set_defaults(command=None, quiet=False, debug=False)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    from .cleanup import add_fill, add_filter  # it uses this package's helpers: imported once they exist

    for add in (
        _add_info,
        _add_convert,
        _add_resample,
        _add_retarget,
        _add_preview,
        _add_rib,
        add_fill,
        add_filter,
        _add_batch,
    ):
        add(commands)
    return parser


def _common_options():
    """The options of every command: --debug, --quiet."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show the traceback of an error")
    common.add_argument("-q", "--quiet", action="store_true", help="no warnings, no progress")
    return common


def _reading_options():
    """The options of the readers, every command's (each format takes the options it has)."""
    reading = argparse.ArgumentParser(add_help=False)
    group = reading.add_argument_group("reading (each format takes the options it has)")
    group.add_argument("--from", dest="from_format", metavar="EXT", help="format of an input given as '-' (stdin)")
    strict = group.add_mutually_exclusive_group()
    strict.add_argument("--strict", action="store_const", const=True, help="reject what lenient readers accept")
    strict.add_argument(
        "--lenient", dest="strict", action="store_const", const=False, help="read what a strict reader would reject"
    )
    group.add_argument("--input-fps", type=_positive, metavar="FPS", help="rate of AMC, PC2 and OBJ sequences")
    group.add_argument("--skeleton", metavar="ASF", help="the .asf of an .amc (default: the one beside it)")
    group.add_argument("--obj", metavar="OBJ", help="the mesh of a .memg, .famc or .pc2 (default: the .obj beside it)")
    return reading


def _writing_options():
    """The options of the writers, for the commands that write a format chosen by extension."""
    writing = argparse.ArgumentParser(add_help=False)
    group = writing.add_argument_group("writing (each format takes the options it has)")
    group.add_argument("--precision", type=int, metavar="N", help="decimals of text formats (default 6)")
    group.add_argument("--rotation-order", metavar="ORDER", help="BVH: one Euler order for every joint (ZXY, ...)")
    group.add_argument(
        "--position-joints", choices=("root", "all"), help="BVH: position channels on the root or every joint"
    )
    group.add_argument("--tolerance", type=_positive, help="MEMG, FAMC: encoding tolerance (relative, default 0.001)")
    group.add_argument(
        "--grouping",
        choices=("groups", "components"),
        help="MEMG: vertices moved together by the OBJ's groups (default) or by connected parts",
    )
    return writing


def _command(commands, name, run, summary, examples, *, writes=False):
    """The subparser of command `name`, run by `run(args)`: the common and reading options, with
    `writes` the writing ones and --to; its help the summary, the examples and the exit codes."""
    parents = [_common_options(), _reading_options()] + ([_writing_options()] if writes else [])
    sub = commands.add_parser(
        name,
        parents=parents,
        help=summary,
        description=summary,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples) + "\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.set_defaults(command=name, run=run, from_format=None, to_format=None)
    if writes and name != "batch":  # batch's --to lists the formats of a whole folder's outputs
        sub.add_argument("--to", dest="to_format", metavar="EXT", help="format of an output given as '-' (stdout)")
    return sub


def _add_info(commands):
    sub = _command(
        commands,
        "info",
        _info,
        "What a file holds: skeleton, frames, rate, duration, units, channel layout, bounds.",
        ["mocap-io info walk.bvh", "mocap-io info walk.bvh --json", "cat walk.bvh | mocap-io info - --from bvh"],
    )
    sub.add_argument("inputs", nargs="+", metavar="FILE", help="files to describe ('-': standard input)")
    sub.add_argument("--json", action="store_true", help="one JSON object per file, one per line")


def _add_convert(commands):
    sub = _command(
        commands,
        "convert",
        _convert,
        "Convert a file to another format (chosen by the output's extension).",
        [
            "mocap-io convert walk.bvh walk.htr",
            "mocap-io convert take.c3d take.trc",
            "mocap-io convert cloth.pc2 cloth.memg --tolerance 0.0005",
            "mocap-io convert cloth.memg 'frames/cloth_####.obj'   (one OBJ per frame; the folder is made)",
            "mocap-io convert walk.bvh walk.c3d   (the joints' paths as markers)",
            "mocap-io convert walk.bvh - --to htr > walk.htr",
        ],
        writes=True,
    )
    sub.add_argument("input", help="file to read ('-': standard input, with --from)")
    sub.add_argument("output", help="file to write ('-': standard output, with --to)")


def _add_resample(commands):
    sub = _command(
        commands,
        "resample",
        _resample,
        "Resample a motion (slerp or spline rotations) or markers (gaps kept) to another frame rate.",
        [
            "mocap-io resample in.bvh out.bvh --fps 30",
            "mocap-io resample in.bvh out.bvh --fps 60 --rotation spline",
            "mocap-io resample take.c3d take_50.c3d --fps 50",
        ],
        writes=True,
    )
    sub.add_argument("input")
    sub.add_argument("output")
    sub.add_argument("--fps", type=_positive, required=True, help="the output's frame rate")
    sub.add_argument("--start", type=float, metavar="SECONDS", help="first output time (default: the first frame)")
    sub.add_argument("--end", type=float, metavar="SECONDS", help="last output time (default: the last frame)")
    sub.add_argument("--loop", action="store_true", help="the take is a cycle: its end blends into its start")
    sub.add_argument("--rotation", choices=("slerp", "spline"), help="motions: slerp (default) or a quaternion spline")
    sub.add_argument(
        "--translation",
        choices=("linear", "cubic"),
        help="translations and marker positions: linear (default) or cubic",
    )


def _add_retarget(commands):
    sub = _command(
        commands,
        "retarget",
        _retarget,
        "Move another skeleton (the rest pose of TARGET, any motion file) like SOURCE.",
        [
            "mocap-io retarget walk.bvh rig.bvh walk_on_rig.bvh",
            "mocap-io retarget walk.bvh rig.htr out.htr --map walk_to_rig.json",
            "mocap-io retarget walk.bvh rig.bvh out.bvh --save-map walk_to_rig.json   (edit it, then use --map)",
            "mocap-io retarget walk.bvh rig.bvh out.bvh --preview check.png   (source and result side by side)",
        ],
        writes=True,
    )
    sub.add_argument("source", help="the motion")
    sub.add_argument("target", help="a file whose skeleton (rest pose) receives the motion")
    sub.add_argument("output")
    sub.add_argument("--map", metavar="JSON", help='a bone map preset {"source joint": "target joint", ...}')
    sub.add_argument("--save-map", metavar="JSON", help="write the bone map used (found or given) as a preset")
    sub.add_argument("--root-scale", default="legs", help="'legs' (default: by leg length ratio) or a number")
    sub.add_argument("--fix-feet", action="store_true", help="keep feet still where the source's feet stand")
    sub.add_argument(
        "--preview",
        metavar="PNG",
        help="also draw the source and the result at the same frames, side and front, with their floors "
        "(as 'preview SOURCE OUTPUT PNG --shared-view'; needs Pillow)",
    )


def _add_preview(commands):
    sub = _command(
        commands,
        "preview",
        _preview,
        "A picture of a file at a glance: PNG stick figures (wireframes for meshes) at evenly spaced frames in "
        "three views with joint-speed plots, or an animated GIF. Two motions: both side by side at the same "
        "times, from the side and the front, each above its floor.",
        [
            "mocap-io preview walk.bvh walk.png",
            "mocap-io preview walk.bvh walk.png --size 1600x1000 --poses 12",
            "mocap-io preview walk.bvh walk.gif",
            "mocap-io preview cloth.pc2 cloth.png",
            "mocap-io preview walk.bvh walk_on_rig.bvh check.png --shared-view   (a retarget and its source)",
        ],
    )
    sub.add_argument("inputs", nargs="+", metavar="INPUT", help="one file, or two motions to compare")
    sub.add_argument(
        "output", help="a .png, .jpg or .webp (the sheet) or a .gif (the motion playing); '-': PNG to stdout"
    )
    sub.add_argument("--size", type=_size, metavar="WxH", help="image size (default 1200x800; GIF 960x360)")
    sub.add_argument(
        "--poses", type=int, default=None, metavar="N", help="poses drawn per view (default 8; meshes 4; two inputs 6)"
    )
    sub.add_argument("--up", choices=("x", "y", "z", "-x", "-y", "-z"), help="the up axis (default: found)")
    sub.add_argument("--gif-fps", type=_positive, default=25.0, metavar="FPS", help="GIF: at most this many frames/s")
    sub.add_argument(
        "--shared-view",
        action="store_true",
        help="two inputs: see the second from the first's side and front (same up and facing; default: each its own)",
    )


def _add_rib(commands):
    sub = _command(
        commands,
        "rib",
        _rib,
        "Write RenderMan RIB: stick figures (spheres and cylinders), markers as spheres, meshes as "
        "PointsPolygons; one file of frames, or one file per frame (a '#' run in OUTPUT).",
        [
            "mocap-io rib walk.bvh walk.rib",
            "mocap-io rib walk.bvh 'rib/walk_####.rib' --frames 1-100 --step 2",
            "mocap-io rib cloth.pc2 cloth.rib --include lights.rib --motion-blur",
        ],
    )
    sub.add_argument("input")
    sub.add_argument("output", help="the .rib ('walk_####.rib': a file per frame; '-': standard output)")
    sub.add_argument("--frames", type=_range, metavar="FIRST-LAST", help="frames to write, from 1 (default: all)")
    sub.add_argument("--step", type=int, default=1, metavar="N", help="every Nth frame")
    sub.add_argument("--radius", type=_positive, help="joint sphere radius, file units (default: 1%% of the size)")
    sub.add_argument("--shader", default="plastic", help="surface shader (default plastic)")
    sub.add_argument("--include", action="append", default=[], metavar="RIB", help="archive read into each frame")
    sub.add_argument("--resolution", type=_size, default=(640, 480), metavar="WxH", help="image size (640x480)")
    sub.add_argument("--fov", type=_positive, default=40.0, metavar="DEGREES", help="field of view (40)")
    sub.add_argument("--motion-blur", action="store_true", help="move geometry to the next frame while open")
    sub.add_argument("--scene", help="##Scene name (default: the file name)")


def _add_batch(commands):
    sub = _command(
        commands,
        "batch",
        _batch,
        "Convert (--to) or describe (no --to) every file under SOURCE, on all cores or a Dask cluster; "
        "resumable (outputs newer than their inputs are kept); never stops at a bad file; a report at the end.",
        [
            "mocap-io batch mocap/ out/ --to htr --report report.json",
            "mocap-io batch mocap/ out/ --to bvh,trc,pc2,obj --report report.json --report report.csv",
            "mocap-io batch mocap/ --report summary.csv                 (describe every file)",
            "mocap-io batch /shared/mocap /shared/out --to htr --scheduler tcp://10.0.0.5:8786",
            "mocap-io batch takes/ clean/ --to c3d --fill auto --filter 6   (markers gap-filled, then filtered)",
        ],
        writes=True,
    )
    sub.add_argument("source", help="a folder (searched recursively) or a file")
    sub.add_argument("destination", nargs="?", help="output folder (the source's tree is mirrored)")
    sub.add_argument(
        "--to",
        dest="targets",
        type=_targets,
        metavar="EXT[,EXT...]",
        help="output formats: each file goes to the first that holds its kind of data (motion, markers, mesh)",
    )
    sub.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="PATH",
        type=_report,
        help="report (.json or .csv; '-': JSON on stdout; repeatable). Default: "
        "DESTINATION/mocap-io-report.json and .csv, or JSON on stdout without --to",
    )
    sub.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (all cores)")
    sub.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask distributed scheduler")
    sub.add_argument("--force", action="store_true", help="convert even where the output is newer than the input")
    from .cleanup import add_batch_options

    add_batch_options(sub)


def _version():
    try:
        from importlib.metadata import version

        return version("mocap_io")
    except Exception:  # not installed as a distribution
        return "unknown"


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def _size(text):
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT (1200x800), not {text!r}") from None
    if not (16 <= width <= 16384 and 16 <= height <= 16384):
        raise argparse.ArgumentTypeError(f"{text}: width and height must be 16 to 16384 pixels")
    return width, height


def _range(text):
    """FIRST-LAST (from 1, inclusive; either may be left out) as a (first, last) pair of ints or None."""
    first, dash, last = text.partition("-")
    try:
        pair = (int(first) if first else None, int(last) if last else None) if dash else (int(text), int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST (1-100, 10-, -50), not {text!r}") from None
    if any(v is not None and v < 1 for v in pair):
        raise argparse.ArgumentTypeError(f"{text}: frames count from 1")
    return pair


def _report(text):
    if text != "-" and os.path.splitext(text)[1].lower() not in (".json", ".csv"):
        raise argparse.ArgumentTypeError(f"{text}: a report is a .json or a .csv file (or '-')")
    return text


def _targets(text):
    targets = ["." + t.strip().lower().lstrip(".") for t in text.split(",") if t.strip()]
    unknown = [t for t in targets if t not in formats.extensions("write")]
    if unknown or not targets:
        raise argparse.ArgumentTypeError(
            f"cannot write {', '.join(unknown) or 'nothing'} (formats: {', '.join(formats.extensions('write'))})"
        )
    return targets


def _info(args):
    from .info import summary, table

    for path in args.inputs:
        files.check_input(path, args.from_format, "info")
    for path in args.inputs:
        data = files.read(path, files.read_options(args), args.from_format)
        info = summary(data, "<stdin>" if path == files.STDIO else path)
        if path == files.STDIO:
            info["format"] = args.from_format.lower().lstrip(".")
        if args.json:
            print(json.dumps(info, ensure_ascii=False))
        else:
            print(table(info), end="\n" if len(args.inputs) > 1 else "")
    return OK


def _wrote(args, read, written):
    """On a terminal, one line: what was written (frames, rate, joints)."""
    if args.output == files.STDIO or args.quiet or not sys.stdout.isatty():
        return
    notes = [f"{written.frame_count} files"] if formats.is_sequence(args.output) else []
    notes += ["the joints' paths"] if isinstance(read, Motion) and isinstance(written, Markers) else []
    print(f"wrote {args.output}: {files.describe(written)}" + (f" ({'; '.join(notes)})" if notes else ""))


def _convert(args):
    kind = files.check_input(args.input, args.from_format, "convert")
    files.check_output(args.output, args.to_format, "convert", (kind,))
    data = files.read(args.input, files.read_options(args), args.from_format)
    _wrote(args, data, files.write(data, args.output, files.write_options(args), args.to_format))
    return OK


def _motion(args, path):
    files.check_input(path, args.from_format, args.command, (Motion,))
    return files.read(path, files.read_options(args), args.from_format)


def _resample(args):
    from ..core import resample
    from ..core.resample import resample_markers

    kind = files.check_input(args.input, args.from_format, "resample", (Motion, Markers))
    files.check_output(args.output, args.to_format, "resample", (kind,))
    data = files.read(args.input, files.read_options(args), args.from_format)
    timing = {"start": args.start, "end": args.end, "loop": args.loop, "translation": args.translation or "linear"}
    if isinstance(data, Markers):
        if args.rotation is not None:
            warnings.warn("--rotation does not apply to markers: ignored", stacklevel=1)
        resampled = resample_markers(data, args.fps, **timing)
    else:
        resampled = resample(data, args.fps, rotation=args.rotation or "slerp", **timing)
    _wrote(args, resampled, files.write(resampled, args.output, files.write_options(args), args.to_format))
    return OK


def _retarget(args):
    from ..core import auto_map, retarget
    from ..core.bone_map import load_preset, save_preset

    files.check_output(args.output, args.to_format, "retarget", (Motion,))
    if args.preview is not None:
        _check_comparison_output(args.preview, args.output)
    source, target = _motion(args, args.source), _motion(args, args.target)
    bone_map = load_preset(args.map) if args.map else auto_map(source.skeleton, target.skeleton)
    if not bone_map:
        raise CannotConvert(f"no joints of {args.source} and {args.target} could be paired: give --map")
    root_scale = args.root_scale if args.root_scale == "legs" else _positive(args.root_scale)
    motion = retarget(source, target.skeleton, bone_map, root_scale=root_scale, fix_feet=args.fix_feet)
    if args.save_map:
        files.make_folder(args.save_map)
        save_preset(bone_map, args.save_map)
    _wrote(args, motion, files.write(motion, args.output, files.write_options(args), args.to_format))
    if args.preview is not None:
        from .preview import compare

        compare(
            source,
            motion,
            args.preview,
            labels=("source", "target"),
            names=(_shown(args.source), f"{_shown(args.output)} (on {_shown(args.target)})"),
            shared_view=True,
            title=f"retarget {args.source} onto {args.target}",
        )
    return OK


def _shown(path):
    """A file's name as a picture shows it: without its folder."""
    return "<stdin>" if path == files.STDIO else os.path.basename(path)


def _check_comparison_output(output, other=None):
    """Refuse, before any work, a comparison that cannot be written: not a still image, or no Pillow."""
    from .preview import _pillow, image_format

    if image_format(output, moving=False) is None:
        raise UsageError(f"{output}: two motions are compared in a still image (.png, .jpg, .webp), not a GIF")
    if output == files.STDIO and other == files.STDIO:
        raise UsageError("the motion and the preview cannot both go to standard output ('-')")
    _pillow()


def _preview(args):
    from .preview import compare, image_format, preview

    if len(args.inputs) > 2:
        raise UsageError(f"preview draws one file or compares two, not {len(args.inputs)}")
    if len(args.inputs) == 1:
        if args.shared_view:
            warnings.warn("--shared-view applies to two inputs: ignored", stacklevel=1)
        files.check_input(args.inputs[0], args.from_format, "preview")
        image_format(args.output)
        data = files.read(args.inputs[0], files.read_options(args), args.from_format)
        preview(
            data,
            args.output,
            size=args.size,
            poses=args.poses,
            up=args.up,
            gif_fps=args.gif_fps,
            title=args.inputs[0],
            progress=not args.quiet,
        )
        return OK
    if args.inputs.count(files.STDIO) > 1:
        raise UsageError("only one input can be standard input ('-')")
    for path in args.inputs:
        files.check_input(path, args.from_format, "preview of two files", (Motion,))
    _check_comparison_output(args.output)
    first, second = (files.read(path, files.read_options(args), args.from_format) for path in args.inputs)
    compare(
        first,
        second,
        args.output,
        labels=("first", "second"),
        names=tuple(_shown(path) for path in args.inputs),
        size=args.size,
        poses=args.poses,
        up=args.up,
        shared_view=args.shared_view,
        title=f"{args.inputs[0]} and {args.inputs[1]}",
    )
    return OK


def _rib(args):
    import numpy as np

    files.check_input(args.input, args.from_format, "rib")
    files.check_output(args.output, "rib", "rib", extensions=[".rib"])
    if args.step < 1:
        raise UsageError(f"--step must be 1 or more, not {args.step}")
    data = files.read(args.input, files.read_options(args), args.from_format)
    first, last = args.frames or (None, None)
    frames = np.arange(data.frame_count if hasattr(data, "frame_count") else 1)
    frames = frames[(first or 1) - 1 : last : args.step]
    options = {
        "frames": frames,
        "radius": args.radius,
        "shader": args.shader,
        "include": args.include,
        "resolution": args.resolution,
        "fov": args.fov,
        "motion_blur": args.motion_blur,
        "scene": args.scene,
    }
    files.write(data, args.output, options, "rib")
    return OK


def _batch(args):
    from .batch import command

    return command(args)


def run():
    """The console script `mocap-io`: main() as the process's exit status."""
    sys.exit(main())
