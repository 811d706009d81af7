"""`mocap-io fill` and `mocap-io filter`: the gaps of marker trajectories filled (core.fill_gaps)
and the trajectories low-pass filtered without lag (core.filter_markers), C3D or TRC in and out;
and the same as options of `batch` (--fill, --filter: fill first, then filter)."""

import argparse
import sys

from ..core.filtering import filter_markers
from ..core.gaps import MAX_GAP, METHODS, fill_gaps
from ..core.markers import Markers
from . import OK, _command, _positive, files
from .errors import UsageError

_MARKER_FILES = [".c3d", ".trc"]
_SHOWN_GAPS = 10  # unfilled gaps listed one per line after the summary


def add_fill(commands):
    """The `fill` subcommand."""
    sub = _command(
        commands,
        "fill",
        _fill,
        "Fill the gaps of marker trajectories (C3D, TRC): from the markers that move rigidly with a gapped one, "
        "a donor's trajectory, or a cubic through the samples around the gap; prints what was filled and left.",
        [
            "mocap-io fill take.c3d take_filled.c3d",
            "mocap-io fill take.trc filled.trc --method spline --max-gap 0.1",
            "mocap-io fill take.c3d filled.c3d --max-gap any   (gaps of any length)",
        ],
        writes=True,
    )
    _marker_files(sub)
    sub.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="auto (default): rigid where three donors are seen throughout the gap, else pattern where one is, "
        "else spline",
    )
    _max_gap_option(sub)


def add_filter(commands):
    """The `filter` subcommand."""
    sub = _command(
        commands,
        "filter",
        _filter,
        "Low-pass filter marker trajectories (C3D, TRC) without lag: a Butterworth forward and backward, as "
        "scipy's filtfilt; each run between gaps on its own, gaps kept.",
        [
            "mocap-io filter take.c3d smooth.c3d --cutoff 6",
            "mocap-io filter take.c3d smooth.c3d --cutoff 6 --order 2 --analog-cutoff 50",
        ],
        writes=True,
    )
    _marker_files(sub)
    sub.add_argument(
        "--cutoff", type=_positive, required=True, metavar="HZ", help="-3 dB frequency of one pass (below rate / 2)"
    )
    _filter_options(sub)


def add_batch_options(sub):
    """batch's --fill and --filter (markers only, fill first) with the options they take."""
    group = sub.add_argument_group("marker clean-up (markers only; fill first, then filter)")
    group.add_argument("--fill", choices=METHODS, metavar="METHOD", help=f"fill gaps ({', '.join(METHODS)})")
    _max_gap_option(group, argparse.SUPPRESS)
    group.add_argument("--filter", dest="cutoff", type=_positive, metavar="HZ", help="low-pass filter at HZ")
    _filter_options(group, None)


def _marker_files(sub):
    """The input and output arguments of fill and filter."""
    sub.add_argument("input", help="a .c3d or .trc ('-': standard input, with --from)")
    sub.add_argument("output", help="a .c3d or .trc ('-': standard output, with --to)")


def _max_gap_option(group, default: float | str = MAX_GAP):
    group.add_argument(
        "--max-gap",
        type=_seconds,
        default=default,
        metavar="SECONDS",
        help=f"fill gaps no longer than this (default {MAX_GAP:g} s; 'any': every gap)",
    )


def _filter_options(group, default: int | None = 4):
    group.add_argument(
        "--order", type=_order, default=default, metavar="N", help="Butterworth order of one pass (default 4)"
    )
    group.add_argument(
        "--analog-cutoff",
        type=_positive,
        metavar="HZ",
        help="also filter the analog channels at HZ (default: they are kept as they are)",
    )


def _seconds(text):
    """A duration in seconds (positive), or 'any' (None): --max-gap."""
    return None if text.strip().lower() == "any" else _positive(text)


def _order(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {text}")
    return value


def operations(args):
    """The clean-up that batch's options ask for, as plain data (it goes to worker processes):
    {"fill": {...}, "filter": {...}}, either left out when not asked; UsageError for an option
    without the one it qualifies, or clean-up without --to."""
    asked = {}
    if args.fill is not None:
        asked["fill"] = {"method": args.fill, "max_gap": getattr(args, "max_gap", MAX_GAP)}
    elif hasattr(args, "max_gap"):  # given (its default is no attribute)
        raise UsageError("--max-gap applies with --fill")
    if args.cutoff is not None:
        asked["filter"] = {"cutoff": args.cutoff, "order": args.order or 4, "analog_cutoff": args.analog_cutoff}
    elif args.order is not None or args.analog_cutoff is not None:
        raise UsageError("--order and --analog-cutoff apply with --filter")
    if asked and args.targets is None:
        raise UsageError("--fill and --filter apply to the files written: give --to")
    return asked


def apply(markers, asked):
    """(markers filled, then filtered, as `asked` (see operations), [one line per operation])."""
    done = []
    if "fill" in asked:
        markers, report = fill_gaps(markers, **asked["fill"])
        done.append(f"filled: {report}")
    if "filter" in asked:
        markers = filter_markers(markers, **asked["filter"])
        done.append(f"filtered: {_filtered(markers, **asked['filter'])}")
    return markers, done


def _filtered(markers, cutoff, order, analog_cutoff):
    analog = ""
    if markers.analog is not None:
        channels = f"{len(markers.analog.names)} analog channels"
        analog = f"; {channels} at {analog_cutoff:g} Hz" if analog_cutoff is not None else f"; {channels} kept"
    return f"{markers.marker_count} markers at {cutoff:g} Hz (order {order}, forward and backward){analog}"


def _read(args):
    files.check_input(args.input, args.from_format, args.command, (Markers,))
    files.check_output(args.output, args.to_format, args.command, (Markers,), _MARKER_FILES)
    return files.read(args.input, files.read_options(args), args.from_format)


def _fill(args):
    markers = _read(args)
    filled, report = fill_gaps(markers, method=args.method, max_gap=args.max_gap)
    files.write(filled, args.output, files.write_options(args), args.to_format)
    lines = [f"{args.output}: {report}"] + [
        f"  left: {gap.name} frames {markers.first_frame + gap.start}-{markers.first_frame + gap.stop - 1}: "
        f"{gap.reason}"
        for gap in report.unfilled[:_SHOWN_GAPS]
    ]
    if len(report.unfilled) > _SHOWN_GAPS:
        lines.append(f"  ... and {len(report.unfilled) - _SHOWN_GAPS} more")
    _say(args, lines)
    return OK


def _filter(args):
    markers = _read(args)
    options = {"cutoff": args.cutoff, "order": args.order, "analog_cutoff": args.analog_cutoff}
    filtered = filter_markers(markers, **options)
    files.write(filtered, args.output, files.write_options(args), args.to_format)
    _say(args, [f"{args.output}: {_filtered(filtered, **options)}"])
    return OK


def _say(args, lines):
    """What was done, on standard output (standard error when the output goes there); -q: nothing."""
    if not args.quiet:
        print("\n".join(files.shown(line) for line in lines), file=sys.stderr if args.output == files.STDIO else None)
