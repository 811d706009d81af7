"""Atomic file writes: a failed write never leaves a half-written file behind."""

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Open a temporary file beside `path`; rename it over `path` only if the block succeeds."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as f:
            yield f
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _mode_for(path):
    """The existing file's permissions, else what a plain open() would give (0666 less the umask)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
