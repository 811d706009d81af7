"""Atomic file writes: a failed write never leaves a half-written file behind, and a pair of files
(.memg + .obj) is replaced together or not at all. I/O errors name the file being written.

A writer killed mid-write leaves its temporary (`.<name>.<8 characters>.tmp`, hidden beside the
target); the next write of that target removes the stale ones (see `_remove_stale`)."""

import contextlib
import errno
import os
import re
import stat
import tempfile
import time

try:
    import fcntl
except ImportError:  # Windows: a file open in another process cannot be removed, which is lock enough
    fcntl = None

STALE_SECONDS = 60  # a temporary untouched this long, whose writer holds no lock on it, was left by a dead writer
_LISTINGS = {}  # directory -> (time listed, names of temporaries in it): one listing per STALE_SECONDS


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Open a temporary file beside `path`; rename it over `path` only if the block succeeds."""
    with atomic_writes([path], mode) as (f,):
        yield f


@contextlib.contextmanager
def atomic_writes(paths, mode="wb"):
    """Open a temporary file beside each of `paths` (yielded as a list); once the block has
    succeeded and every temporary is complete, rename each over its path, in order.

    If the block or any write fails, every temporary is removed and no path is replaced. A path
    that is a directory, on which a rename would fail, is refused (IsADirectoryError) before
    anything is opened. The renames are atomic one by one, not together: only a crash or a
    failing rename between two of them (with every temporary made beside its path, rename then
    fails only if the directory changes meanwhile, or on a file made immutable or a mount point)
    can leave the earlier paths new and the later ones old. An OSError names the path it concerns.
    """
    paths = [os.fspath(p) for p in paths]
    for path in paths:
        _require_replaceable(path)
    targets = []
    try:
        for path in paths:
            targets.append(_Target(path, mode))
        yield targets
        for target in targets:
            target.close()
        for target in targets:
            target.commit()
    finally:
        for target in targets:
            target.discard()


class _Target:
    """A temporary file beside `path` whose OSErrors name `path`."""

    def __init__(self, path, mode):
        self.path = path
        directory, prefix = os.path.dirname(os.path.abspath(path)), "." + os.path.basename(path) + "."
        with _naming(path):
            _remove_stale(directory, path)
            fd, self.temporary = tempfile.mkstemp(dir=directory, prefix=prefix, suffix=".tmp")
            self.committed = False
            if fcntl is not None:  # held while this writer lives: the system drops it however the process ends
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.file = os.fdopen(fd, mode)

    def write(self, data):
        with _naming(self.path):
            return self.file.write(data)

    def close(self):
        with _naming(self.path):
            self.file.close()

    def commit(self):
        with _naming(self.path):
            os.chmod(self.temporary, _mode_for(self.path))
            os.replace(self.temporary, self.path)
        self.committed = True

    def discard(self):
        """Close and remove the temporary, unless committed."""
        with contextlib.suppress(OSError):
            self.file.close()
        if not self.committed:
            with contextlib.suppress(OSError):
                os.unlink(self.temporary)


def _require_replaceable(path):
    """Raise IsADirectoryError if `path` is a directory (a rename over it would fail)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # missing, or unreachable: creating the temporary says why
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)


def _temporaries(path):
    """A regex of the names of the temporaries of writes of `path` (mkstemp's `.<name>.<8>.tmp`)."""
    return re.compile(re.escape("." + os.path.basename(path) + ".") + r"[a-z0-9_]{8}\.tmp")


def remove_temporaries(path):
    """Remove the temporaries of writes of `path` whose writers have ended (see remove_unlocked)."""
    folder = os.path.dirname(os.path.abspath(path))
    with contextlib.suppress(OSError):
        for name in filter(_temporaries(path).fullmatch, os.listdir(folder)):
            remove_unlocked(os.path.join(folder, name))


def _remove_stale(directory, target):
    """Remove the temporaries of writes of `target` (in `directory`) that dead writers left:
    untouched for STALE_SECONDS and locked by no process. A live writer keeps its
    temporary locked (POSIX) or open (Windows refuses to remove it), so even one paused for longer
    is kept; the age covers the instants it holds no lock (before locking, after closing) and file
    systems without locks. The directory is listed at most once per STALE_SECONDS (writing many
    files into one folder stays linear): a temporary stale now was there when it was listed."""
    now = time.time()
    listed, names = _LISTINGS.get(directory, (0.0, set()))
    if now - listed > STALE_SECONDS:
        with contextlib.suppress(OSError):
            names = {n for n in os.listdir(directory) if n.startswith(".") and n.endswith(".tmp")}
        _LISTINGS[directory] = (now, names)
    for name in filter(_temporaries(target).fullmatch, list(names)):  # a copy: another thread may remove from it
        path = os.path.join(directory, name)
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_SECONDS:
                continue
        if remove_unlocked(path):
            names.discard(name)


def remove_unlocked(temporary):
    """Remove the temporary file `temporary` unless a live writer holds it (its lock, POSIX; open,
    which Windows refuses to remove); whether it is gone."""
    try:
        if fcntl is None:
            os.unlink(temporary)  # PermissionError while a writer has it open
            return True
        fd = os.open(temporary, os.O_RDWR | os.O_NOFOLLOW)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError while a writer holds it
            os.unlink(temporary)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _naming(path):
    """Re-raise an OSError (ENOSPC, EACCES, ...) with `path` as its file name."""
    try:
        yield
    except OSError as error:
        if error.filename == path:
            raise
        if error.errno is None:
            raise OSError(f"{path}: {error}") from error
        raise OSError(error.errno, error.strerror or str(error), path) from error


def _mode_for(path):
    """The existing file's permissions, else what a plain open() would give (0666 less the umask)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
