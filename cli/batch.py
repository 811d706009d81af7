"""`mocap-io batch`: every readable file under a folder converted (or described), on all cores or on
a Dask distributed cluster, resumable, never stopping at a bad file, with one report at the end.

Work is planned first (which files, which outputs, which are up to date), then run as chunks of
files: in this process (one job), in a process pool (several), or as Dask tasks (`--scheduler`:
workers need this package installed and the same paths; Dask is the optional extra
`mocap_io[batch]`). Every file's outcome is a plain dict, so it crosses process boundaries as it is.
"""

import concurrent.futures
import csv
import datetime
import io
import json
import os
import sys
import time
import warnings

from ..core import formats
from ..core.atomic import atomic_write
from ..core.errors import FrameCountWarning
from ..core.formats.obj import obj_beside
from ..core.markers import Markers
from ..core.mesh import Mesh
from . import FILES_FAILED, OK, _exit_code, _message, files
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
)
_REPORT = "mocap-io-report"  # default report name in the destination


def find_inputs(source, skip=None):
    """Readable files under `source` (a folder, searched recursively, hidden folders and `skip` left
    out; or a single file), sorted."""
    readable = set(formats.extensions("read"))
    if not os.path.isdir(source):
        if not os.path.exists(source):
            raise FileNotFoundError(2, "No such file or directory", source)
        return [source]
    skip = os.path.abspath(skip) if skip else None
    found = []
    for folder, subfolders, names in os.walk(source):
        subfolders[:] = sorted(
            d for d in subfolders if not d.startswith(".") and os.path.abspath(os.path.join(folder, d)) != skip
        )
        found += [os.path.join(folder, n) for n in sorted(names) if os.path.splitext(n)[1].lower() in readable]
    return found


def plan(source, destination, targets, *, force=False, read_options=None, write_options=None):
    """(tasks to run, outcomes already known) for every file under `source`: each task a dict
    {source, output, read, write}; each file goes to the first target that holds its kind of data,
    else to the first it converts to (a motion's joint paths to .c3d or .trc). Known outcomes are
    files whose kind no target holds ("skipped"),
    whose output is newer than every file it is made from ("up to date"), or whose output another
    file already takes ("error")."""
    read_options, write_options = read_options or {}, write_options or {}
    inputs = find_inputs(source, skip=destination)
    tasks, known, claimed = [], [], {}
    root = source if os.path.isdir(source) else os.path.dirname(source)
    for path in inputs:
        kind = formats.reads(path)
        outcome = {"source": path, "kind": KINDS.get(kind)}
        task = {"source": path, "output": None, "read": read_options, "write": write_options}
        if targets is None:
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
            outcome |= {"kind": KINDS[type(data)], **_timing(data)}
            if task["output"] is None:
                from .info import summary

                outcome |= {"status": "described", "info": summary(data, task["source"])}
            else:
                files.make_folder(task["output"])
                writer = formats.writer(task["output"])
                written = files.fitted(data, task["output"])
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


def execute(tasks, *, jobs=1, scheduler=None):
    """Outcomes of `tasks`, as they finish: in this process (jobs 1), on `jobs` processes, or on the
    Dask scheduler at `scheduler`."""
    if scheduler:
        yield from _on_dask(tasks, scheduler)
    elif jobs <= 1 or len(tasks) <= 1:
        yield from map(run_task, tasks)
    else:
        yield from _on_processes(tasks, jobs)


def _on_processes(tasks, jobs):
    pool = concurrent.futures.ProcessPoolExecutor(jobs)
    try:
        futures = [pool.submit(run_tasks, chunk) for chunk in _chunks(tasks, jobs)]
        for future in concurrent.futures.as_completed(futures):
            yield from future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(tasks, address):
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise MissingDependency(
            "--scheduler needs Dask distributed: pip install 'mocap_io[batch]' (or pip install distributed)"
        ) from None
    with Client(address, timeout="20s") as client:
        workers = sum(client.nthreads().values())
        futures = client.map(run_tasks, _chunks(tasks, workers), pure=False)
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
    )
    outcomes = list(known)
    progress = Progress(len(tasks) + len(known), enabled=not args.quiet)
    progress.skip(known)
    interrupted = False
    try:
        for outcome in execute(tasks, jobs=args.jobs, scheduler=args.scheduler):
            outcomes.append(outcome)
            progress.update(outcome)
    except KeyboardInterrupt:
        interrupted = True
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
    if converting:
        os.makedirs(args.destination, exist_ok=True)
    for path in reports:
        if path != "-":
            files.make_folder(path)
        report(outcomes, header, path)
    _summary(outcomes, counts, seconds, worked, reports, args.quiet)
    if interrupted:
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
