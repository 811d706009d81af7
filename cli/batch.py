"""`mocap-io batch`: every readable file under a folder converted (or described), on all cores or on
a Dask distributed cluster, resumable, never stopping at a bad file, with one report at the end.

Work is planned first (which files, which outputs, which are up to date; what the walk meets that
is not a file to read, skipped or an error with its reason), then run on worker processes (`-j N`,
one at least), each sent a file or two at a time, or as chunks of files on Dask (`--scheduler`:
workers need this package installed and the same paths; Dask is the optional extra
`mocap_io[batch]`). Every file's outcome is a plain dict, so it crosses process boundaries as it is.

Ctrl-C stops the run within a fraction of a second: the workers are ended where they are, what
they were writing is removed, and the report lists every output left on disk (`_on_processes`).
"""

import contextlib
import csv
import datetime
import io
import json
import os
import signal
import stat
import sys
import time
import warnings

from ..core import formats
from ..core.atomic import atomic_write
from ..core.errors import FrameCountWarning
from ..core.formats.obj import obj_beside
from ..core.markers import Markers
from ..core.mesh import Mesh
from . import FILES_FAILED, OK, _exit_code, _message, files, workers
from .cleanup import apply, operations
from .errors import MissingDependency, UsageError
from .files import KINDS
from .progress import Progress

FIELDS = (
    "source",
    "output",
    "status",
    "kind",
    "frames",
    "declared_frames",
    "fps",
    "seconds",
    "message",
    "warnings",
    "cleanup",
)
_REPORT = "mocap-io-report"  # default report name in the destination


def walk(source, skip=None):
    """(inputs, outcomes) of `source`: a folder, searched recursively (hidden folders and `skip` left
    out), or a single file. Inputs are the regular files (or links to one) with an extension a format
    reads, in walk order; every other entry the walk meets that could be taken for one has an
    outcome, so that the report accounts for it and no reader is handed what it cannot read (a FIFO
    would block it): a FIFO, device or socket, or a folder, with such an extension is "skipped", a
    link to a folder (not followed) too, and a broken link or a folder that cannot be listed is an
    "error". Files of other extensions are not the batch's and are left out."""
    if not os.path.isdir(source):
        if not os.path.lexists(source):
            raise FileNotFoundError(2, "No such file or directory", source)
        why = _not_a_file(source)
        return ([source], []) if why is None else ([], [why])
    readable = set(formats.extensions("read"))
    skip = os.path.abspath(skip) if skip else None
    inputs, outcomes = [], []

    def unlisted(error):
        outcomes.append(_known(error.filename, "error", f"{error.filename}: cannot list the folder: {error.strerror}"))

    for folder, subfolders, names in os.walk(source, onerror=unlisted):
        kept = []
        for name in sorted(subfolders):
            path = os.path.join(folder, name)
            if name.startswith(".") or os.path.abspath(path) == skip:
                continue
            if os.path.islink(path):
                outcomes.append(_known(path, "skipped", "a link to a folder: not followed (its files are not read)"))
                continue
            if os.path.splitext(name)[1].lower() in readable:
                outcomes.append(_known(path, "skipped", "a folder, not a file (its files are read on their own)"))
            kept.append(name)
        subfolders[:] = kept
        for name in sorted(names):
            if os.path.splitext(name)[1].lower() in readable:
                path = os.path.join(folder, name)
                why = _not_a_file(path)
                if why is None:
                    inputs.append(path)
                else:
                    outcomes.append(why)
    return inputs, outcomes


_NOT_FILES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_file(path):
    """None for a regular file or a link to one; else the outcome of `path`: "skipped" (with what
    it is) for anything else that exists, "error" for a broken link or one that cannot be followed."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if os.path.islink(path):
            return _known(path, "error", f"{path}: a link to nothing that can be read ({error.strerror})")
        return _known(path, "error", f"{path}: {error.strerror}")
    if stat.S_ISREG(mode):
        return None
    what = next((name for test, name in _NOT_FILES if test(mode)), "a special file")
    return _known(path, "skipped", f"{'a link to ' * os.path.islink(path)}{what}, not a regular file: not read")


def _known(path, status, message):
    return {"source": path, "status": status, "message": message}


def plan(source, destination, targets, *, force=False, read_options=None, write_options=None, cleanup=None):
    """(tasks to run, outcomes already known) for every file under `source`: each task a dict
    {source, output, read, write, cleanup} (`cleanup`: the markers' fill and filter, see
    cleanup.operations); each file goes to the first target that holds its kind of data,
    else to the first it converts to (a motion's joint paths to .c3d or .trc). Known outcomes are
    the entries the walk hands to no reader (see `walk`), files whose kind no target holds ("skipped"),
    whose output is newer than every file it is made from ("up to date"), or whose output another
    file already takes ("error")."""
    read_options, write_options = read_options or {}, write_options or {}
    inputs, walked = walk(source, skip=destination)
    tasks, known, claimed = [], walked, {}
    root = source if os.path.isdir(source) else os.path.dirname(source)
    for path in inputs:
        kind = formats.reads(path)
        outcome = {"source": path, "kind": KINDS.get(kind)}
        task = {"source": path, "output": None, "read": read_options, "write": write_options, "cleanup": cleanup}
        if targets is None or kind is None:  # described; a file no format reads (named alone) fails as it does there
            tasks.append(task)
            continue
        ext = next((t for t in targets if files.conversion(kind, "x" + t) == "as is"), None)
        ext = ext or next((t for t in targets if files.conversion(kind, "x" + t)), None)
        if ext is None:
            message = f"no --to format holds {files.PLURAL[kind]} ({', '.join(files.writable([kind]))} do)"
            known.append(outcome | {"status": "skipped", "message": message})
            continue
        output = os.path.join(destination, os.path.splitext(os.path.relpath(path, root))[0] + ext)
        outcome["output"] = output
        key = os.path.normcase(os.path.abspath(output))
        if key in claimed:
            known.append(outcome | {"status": "error", "message": f"{output} is already the output of {claimed[key]}"})
            continue
        claimed[key] = path
        if not force and _newer(output, _made_from(path, read_options)):
            known.append(outcome | {"status": "up to date"})
            continue
        tasks.append(task | {"output": output})
    return tasks, known


def _made_from(path, read_options):
    """The files a conversion of `path` reads: itself, an .amc's .asf, the .obj of a .memg, .famc or .pc2."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".amc":
        from ..core.formats.asf import find_asf

        try:
            return [path, read_options.get("skeleton") or find_asf(path)]
        except (OSError, ValueError):
            return [path]
    if ext in (".memg", ".famc", ".pc2"):
        return [path, obj_beside(path, read_options.get("obj") or None)]
    return [path]


def _newer(output, inputs):
    """Whether `output` exists and was written after every one of `inputs` that exists."""
    try:
        written = os.stat(output).st_mtime_ns
    except OSError:
        return False
    return all(written >= os.stat(p).st_mtime_ns for p in inputs if os.path.exists(p))


def run_task(task):
    """Convert (or, without an output, describe) one file; the outcome as a dict, never an exception."""
    start = time.perf_counter()
    outcome = {"source": task["source"], "output": task["output"], "kind": KINDS.get(formats.reads(task["source"]))}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            data = files.read(task["source"], task["read"])
            outcome |= {"kind": KINDS[files.kind_of(data)], **_timing(data)}
            if task["output"] is None:
                from .info import summary

                outcome |= {"status": "described", "info": summary(data, task["source"])}
            else:
                files.make_folder(task["output"])
                writer = formats.writer(task["output"])
                written = files.fitted(data, task["output"])
                if task.get("cleanup"):
                    written = _cleaned(written, task["cleanup"], outcome)
                writer(written, task["output"], **files.accepted(writer, task["write"])[0])
                outcome["status"] = "converted"
        except Exception as error:  # a bad file is reported, never fatal
            message = _message(error, _exit_code(error))
            if task["source"] not in message:
                message = f"{task['source']}: {message}"
            outcome |= {"status": "error", "message": files.shown(message)}
    outcome["warnings"] = [files.shown(str(w.message)) for w in caught]
    declared = [w.message.declared for w in caught if isinstance(w.message, FrameCountWarning)]
    if declared and "frames" in outcome and max(declared) != outcome["frames"]:
        outcome["declared_frames"] = max(declared)  # a lenient read: what the file declares
    outcome["seconds"] = round(time.perf_counter() - start, 6)
    return outcome


def _cleaned(data, asked, outcome):
    """Markers filled and filtered as `asked` (cleanup.operations), what was done in
    outcome["cleanup"]; other kinds of data as they are, with a warning."""
    if not isinstance(data, Markers):
        kind = KINDS[files.kind_of(data)]
        warnings.warn(f"--fill and --filter apply to markers: this {kind} is written as it is", stacklevel=2)
        return data
    data, done = apply(data, asked)
    outcome["cleanup"] = "; ".join(done)
    return data


def _timing(data):
    if isinstance(data, Mesh):
        return {"frames": 1}
    return {"frames": data.frame_count, "fps": data.rate if isinstance(data, Markers) else data.fps}


def run_tasks(tasks):
    """The outcomes of a chunk of tasks (the unit of work sent to a process or a Dask worker)."""
    return [run_task(t) for t in tasks]


def _chunks(tasks, workers):
    """Tasks in chunks: a few per worker for balance, at most 16 files each (the progress moves)."""
    size = max(1, min(16, len(tasks) // (4 * max(1, workers))))
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def execute(tasks, *, jobs=1, scheduler=None, interruption=None):
    """Outcomes of `tasks`, as they finish: on `jobs` worker processes (one at least), or on the
    Dask scheduler at `scheduler`. Ctrl-C: see `_on_processes` (`interruption`: a `workers.Interruption`
    the caller has entered already, so that a Ctrl-C before the work starts counts too)."""
    if scheduler:
        yield from _on_dask(tasks, scheduler, interruption)
    elif tasks:
        yield from _on_processes(tasks, max(1, jobs), interruption)


def _on_processes(tasks, jobs, interruption=None):
    """Outcomes of `tasks` on `jobs` worker processes, a task or two sent ahead to each. On Ctrl-C
    (SIGINT, to this process or to its whole process group from a terminal) the workers are ended
    at once (they ignore SIGINT: this process decides), the tasks not started are dropped, the
    outcomes that workers had already sent are still given, and what the others were writing is
    removed (their temporary files, and an output they had already renamed into place but not
    reported); then KeyboardInterrupt. So every output the run leaves is one it reports."""
    with contextlib.ExitStack() as stack:
        interruption = interruption or stack.enter_context(workers.Interruption())
        pool = workers.Workers(tasks, run_task, _lost)
        try:
            if not interruption.requested:
                pool.start(jobs)
            yield from pool.outcomes(interruption)
        finally:
            sent = pool.stop()
        yield from sent  # finished before the workers were ended: their outputs are complete
        if interruption.requested:
            raise KeyboardInterrupt


def _lost(task, how):
    """The outcome of a task whose worker ended before sending one (killed, out of memory, a crash: `how`)."""
    work = "converting it" if task["output"] else "reading it"
    return {
        "source": task["source"],
        "output": task["output"],
        "kind": KINDS.get(formats.reads(task["source"])),
        "status": "error",
        "message": files.shown(f"{task['source']}: the worker process {work} ended ({how}) before it was done"),
    }


def _new_folders(tasks):
    """The folders the outputs of `tasks` would be written in that do not exist yet, with their
    parents that do not exist either."""
    new = set()
    for task in tasks:
        if task["output"] is not None:
            folder = os.path.dirname(os.path.abspath(task["output"]))
            while folder not in new and not os.path.lexists(folder):
                new.add(folder)
                folder = os.path.dirname(folder)
    return new


def _remove_empty(folders):
    """Remove those of `folders` that are empty, deepest first (a folder emptied so goes too)."""
    for folder in sorted(folders, key=len, reverse=True):
        with contextlib.suppress(OSError):  # not empty, or gone
            os.rmdir(folder)


def _on_dask(tasks, address, interruption=None):
    try:
        from distributed import Client, as_completed  # pyright: ignore[reportMissingImports] - optional: not in the type-check venv
    except ImportError:
        raise MissingDependency(
            "--scheduler needs Dask distributed: pip install 'mocap_io[batch]' (or pip install distributed)"
        ) from None
    with workers.sigint(signal.default_int_handler), Client(address, timeout="20s") as client:  # Ctrl-C raises here
        threads = sum(client.nthreads().values())
        if interruption and interruption.requested:  # before Ctrl-C raised again
            raise KeyboardInterrupt
        futures = client.map(run_tasks, _chunks(tasks, threads), pure=False)
        for future in as_completed(futures):
            yield from future.result()


def report(outcomes, header, path):
    """Write the report: JSON (header + every file's outcome) or CSV (one row per file), by the
    extension of `path` ('-': JSON on standard output)."""
    if path != "-" and os.path.splitext(path)[1].lower() == ".csv":
        text = io.StringIO()
        table = csv.DictWriter(text, FIELDS, extrasaction="ignore", lineterminator="\n")
        table.writeheader()
        for outcome in outcomes:
            table.writerow(outcome | {"warnings": " | ".join(outcome.get("warnings", []))})
        data = text.getvalue()
    else:
        data = json.dumps(header | {"files": outcomes}, indent=1, ensure_ascii=False) + "\n"
    if path == "-":
        sys.stdout.write(data)
        sys.stdout.flush()
    else:
        with atomic_write(path) as f:
            f.write(data.encode("utf-8"))


def command(args):
    """Run `mocap-io batch`; returns the exit code."""
    converting = args.targets is not None
    if converting and not args.destination:
        raise UsageError("--to needs a DESTINATION folder")
    if args.destination and not converting:
        raise UsageError("a DESTINATION folder needs --to (the formats to write)")
    reports = args.report or (
        [os.path.join(args.destination, f"{_REPORT}.json"), os.path.join(args.destination, f"{_REPORT}.csv")]
        if converting
        else ["-"]
    )
    started = datetime.datetime.now().astimezone()
    clock = time.perf_counter()
    tasks, known = plan(
        args.source,
        args.destination,
        args.targets,
        force=args.force,
        read_options=files.read_options(args),
        write_options=files.write_options(args),
        cleanup=operations(args),
    )
    outcomes = list(known)
    progress = Progress(len(tasks) + len(known), enabled=not args.quiet)
    progress.skip(known)
    new_folders = _new_folders(tasks)
    with (
        workers.Interruption() as interruption
    ):  # Ctrl-C stops the work (see _on_processes); a second waits for the report
        interrupted = False
        try:
            running = execute(tasks, jobs=args.jobs, scheduler=args.scheduler, interruption=interruption)
            with contextlib.closing(running) as finished:
                for outcome in finished:
                    outcomes.append(outcome)
                    progress.update(outcome)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            _remove_empty(new_folders)  # made for outputs that failed or were interrupted
        progress.close()
        outcomes.sort(key=lambda o: o["source"])
        seconds = time.perf_counter() - clock
        counts = {}
        for outcome in outcomes:
            counts[outcome["status"]] = counts.get(outcome["status"], 0) + 1
        worked = len(outcomes) - len(known)
        header = {
            "source": args.source,
            "destination": args.destination,
            "targets": args.targets,
            "jobs": None if args.scheduler else args.jobs,
            "scheduler": args.scheduler,
            "started": started.isoformat(timespec="seconds"),
            "seconds": round(seconds, 3),
            "files_per_second": round(worked / seconds, 3) if seconds > 0 else None,
            "interrupted": interrupted,
            "counts": counts,
        }
        for path in reports:
            if path != "-":
                files.make_folder(path)
            report(outcomes, header, path)
        _summary(outcomes, counts, seconds, worked, reports, args.quiet)
    if interrupted or interruption.requested:
        raise KeyboardInterrupt
    return FILES_FAILED if counts.get("error") else OK


def _summary(outcomes, counts, seconds, worked, reports, quiet):
    """One line of counts on stderr, and the first errors."""
    shown = ", ".join(f"{n} {status}{'s' * (status == 'error' and n != 1)}" for status, n in counts.items())
    rate = f" ({worked / seconds:.1f} files/s)" if seconds > 0 and worked else ""
    written = [r for r in reports if r != "-"]
    where = f"; report: {', '.join(written)}" if written else ""
    if not quiet:
        print(f"mocap-io: {len(outcomes)} files in {seconds:.1f} s{rate}: {shown or 'none'}{where}", file=sys.stderr)
    short = [o for o in outcomes if o.get("declared_frames", 0) > (o.get("frames") or 0)]
    if not quiet:
        for outcome in short[:10]:
            declared, frames = outcome["declared_frames"], outcome["frames"]
            print(
                f"mocap-io: warning: {outcome['source']}: read in part: {declared - frames} of the {declared} "
                f"frames it declares dropped ({frames} read)",
                file=sys.stderr,
            )
        if len(short) > 10:
            print(f"mocap-io: ... and {len(short) - 10} more files read in part (see the report)", file=sys.stderr)
    errors = [o for o in outcomes if o["status"] == "error"]
    for outcome in errors[:10]:
        print(f"mocap-io: error: {files.shown(outcome['message'])}", file=sys.stderr)
    if len(errors) > 10:
        print(f"mocap-io: ... and {len(errors) - 10} more errors (see the report)", file=sys.stderr)
