"""The batch's worker processes: files converted one at a time on each, a file or two sent ahead,
each outcome sent back as it ends; ended at once on Ctrl-C, what they were writing removed."""

import collections
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
from multiprocessing.connection import Connection
from typing import cast

from ..core.atomic import remove_temporaries


class Interruption:
    """While entered, SIGINT does not raise KeyboardInterrupt wherever the main thread is: it sets
    `requested` and makes `wake` (a pipe's reading end) readable, so that a wait on the workers
    returns at once and the pool stops between two steps of its own bookkeeping, never inside one
    (an outcome received but not yet counted, a worker started but not yet recorded). Outside the
    main thread, where no SIGINT arrives, it changes nothing."""

    def __enter__(self):
        self.requested = False
        self.wake, self._ring = multiprocessing.Pipe(duplex=False)  # a Connection: `wait` takes it on Windows too
        self._handler = sigint(self._handle)
        self._handler.__enter__()
        return self

    def _handle(self, signum, frame):
        if not self.requested:  # one message at most: the pipe never fills
            self.requested = True
            self._ring.send_bytes(b"")

    def __exit__(self, *exc):
        self._handler.__exit__(*exc)
        self.wake.close()
        self._ring.close()


@contextlib.contextmanager
def sigint(handler):
    """`handler` for SIGINT in the block (in the main thread; elsewhere, where no signal arrives, nothing changes)."""
    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


_AHEAD = 2  # tasks a worker holds: the next one waits in its pipe while this process takes an outcome


class Workers:
    """Worker processes, each sent a task or two ahead and returning their outcomes in order: this
    process knows which task each one is on, so it can end them at any moment and remove what they
    were writing."""

    def __init__(self, tasks, run, lost):
        """`run(task)` gives a task's outcome (in a worker: a module-level function); `lost(task, how)`
        the outcome of a task whose worker ended before sending one (killed, out of memory)."""
        self.run, self.lost = run, lost
        self.pending = collections.deque(tasks)
        self.context = multiprocessing.get_context()
        self.processes = []
        self.sent = {}  # connection -> (process, [(task, what its outputs were before)]): the first, the one it is on

    def start(self, count):
        for _ in range(min(count, len(self.pending))):
            self._start()

    def _start(self):
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_work, args=(theirs, self.run), name="mocap-io batch worker", daemon=True)
        with _sigint_blocked():  # the worker ignores SIGINT from its first instruction on
            process.start()
        theirs.close()  # this end is the worker's alone: its end of file is the worker's end
        self.processes.append(process)
        self.sent[ours] = (process, collections.deque())
        self._fill(ours)

    def _fill(self, connection):
        """Keep `_AHEAD` tasks sent to the worker at `connection`; with none to send or to wait for, end it."""
        _, queue = self.sent[connection]
        while self.pending and len(queue) < _AHEAD:
            task = self.pending.popleft()
            queue.append((task, state(task)))
            try:
                connection.send(task)
            except OSError:  # the worker has ended: its end of file tells
                break
        if not queue:
            del self.sent[connection]
            with contextlib.suppress(OSError):
                connection.send(None)
            connection.close()

    def outcomes(self, interruption):
        """Outcomes as the workers send them, until every task is done or an interruption is requested."""
        while self.sent and not interruption.requested:
            ready = multiprocessing.connection.wait([*self.sent, interruption.wake])
            for connection in cast("list[Connection]", ready):  # what it was given: Connections only
                if connection == interruption.wake or interruption.requested:
                    continue
                process, queue = self.sent[connection]
                task, before = queue.popleft()
                try:
                    outcome = connection.recv()
                except (EOFError, OSError):
                    del self.sent[connection]
                    connection.close()
                    outcome = self._lost(task, before, process)
                    self.pending.extendleft(reversed([t for t, _ in queue]))  # not started: for another worker
                    if self.pending:
                        self._start()
                else:
                    self._fill(connection)
                yield outcome

    def _lost(self, task, before, process):
        process.join()
        code = process.exitcode
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        undo(task, before)
        return self.lost(task, how)

    def stop(self):
        """End every worker now; the outcomes they had sent, to give; what the others were writing, removed."""
        for process in self.processes:
            if process.is_alive():
                process.kill()
        for process in self.processes:
            process.join()
        finished = []
        for connection, (_, queue) in self.sent.items():
            try:
                while queue and connection.poll():
                    finished.append(connection.recv())
                    queue.popleft()
            except Exception:  # a message cut short by the end of its worker: that task is not done
                pass
            finally:
                connection.close()
            for task, before in queue:
                undo(task, before)
        self.sent.clear()
        return finished


def _work(connection, run):
    """A worker process: convert the tasks it is sent, one at a time, until it is sent None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the pool decides
    with contextlib.suppress(EOFError, OSError):  # the pool has gone
        while (task := connection.recv()) is not None:
            connection.send(run(task))


@contextlib.contextmanager
def _sigint_blocked():
    """SIGINT held back (pending, not lost) while a worker starts: it inherits the block, then ignores
    SIGINT, and a Ctrl-C in between reaches this process alone once the block is lifted."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: the worker ignores SIGINT as soon as it runs
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# The files a writer writes beside its output (both, or neither): an .asf's .amc, a .memg's or .famc's .obj.
_COMPANIONS = {".asf": ".amc", ".memg": ".obj", ".famc": ".obj"}


def written_by(output):
    """The files writing `output` makes: `output`, and the companion its writer writes with it."""
    if output is None:
        return []
    stem, ext = os.path.splitext(output)
    companion = _COMPANIONS.get(ext.lower())
    return [output, stem + companion] if companion else [output]


def state(task):
    """What the files `task` writes are before it runs: their identity, or None where there is none."""
    return {path: _identity(path) for path in written_by(task["output"])}


def _identity(path):
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size


def undo(task, before):
    """Remove what `task`, ended before it finished, wrote: the temporary files of its writes
    (".<name>.<random>.tmp" beside each output, see core.atomic) and any output that changed since
    `before` (renamed into place, but not reported). An output it had not reached stays as it was."""
    for path in before:
        remove_temporaries(path)
        if _identity(path) not in (None, before[path]):
            with contextlib.suppress(OSError):
                os.unlink(path)
