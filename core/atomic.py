"""Atomic file writes: a failed write never leaves a half-written file behind, and a pair of files
(.memg + .obj) is replaced together or not at all. I/O errors name the file being written."""

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Open a temporary file beside `path`; rename it over `path` only if the block succeeds."""
    with atomic_writes([path], mode) as (f,):
        yield f


@contextlib.contextmanager
def atomic_writes(paths, mode="wb"):
    """Open a temporary file beside each of `paths` (yielded as a list); once the block has
    succeeded and every temporary is complete, rename each over its path, in order.

    If the block or any write fails, every temporary is removed and no path is replaced. The
    renames are atomic one by one, not together: only a crash or a failing rename between two of
    them (on one file system, rename fails only if the directory changes meanwhile) can leave
    the earlier paths new and the later ones old. An OSError names the path it concerns.
    """
    paths = [os.fspath(p) for p in paths]
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
        directory = os.path.dirname(os.path.abspath(path))
        with _naming(path):
            fd, self.temporary = tempfile.mkstemp(
                dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp"
            )
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
        self.temporary = None

    def discard(self):
        """Close and remove the temporary, unless committed."""
        with contextlib.suppress(OSError):
            self.file.close()
        if self.temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.temporary)


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
