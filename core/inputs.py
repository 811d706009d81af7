"""Input files as every reader opens them: regular files only (a FIFO would block the read forever, a
link to /dev/zero never end), read no further than the size they had when opened (a file that
grows meanwhile is an error, not a read that never ends); a text file's byte-order mark dropped."""

import errno
import os
import stat
import threading

from .errors import ParseError

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark, which Windows tools write at the start of text files


def open_input(path):
    """`path` opened for binary reading as a Bounded file; IsADirectoryError for a folder, OSError
    (EINVAL) for anything else that is not a regular file, raised without blocking."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "a socket or other special file")
            raise OSError(errno.EINVAL, f"not a regular file ({kind})", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        file = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return Bounded(file, path)


def without_bom(data, *, keep_offsets=False):
    """`data` (bytes or a bytearray, a text file's start) without the UTF-8 byte-order mark it may
    begin with: every text reader drops it here. keep_offsets=True puts three spaces in its place
    instead, so that byte offsets stay those of the file. A bytearray is changed in place (no copy
    of a large file) and returned."""
    if not data.startswith(BOM):
        return data
    spaces = b"   " if keep_offsets else b""
    if isinstance(data, bytearray):
        data[: len(BOM)] = spaces
        return data
    return spaces + data[len(BOM) :]


def read_input(path):
    """The bytes of the input file `path` (see open_input)."""
    with open_input(path) as f:
        return f.read()


class Bounded:
    """A binary file that reads at most `size` bytes, its size when opened: a read that asks for
    all that is left (or more) checks that nothing follows, else raises ParseError at that offset."""

    def __init__(self, file, path):
        self._file, self._path = file, path
        self.size = self._left = os.fstat(file.fileno()).st_size
        self._lock = threading.Lock()

    def read(self, count=-1):
        whole = count is None or count < 0 or count >= self._left
        data = self._file.read(self._left if whole else count)
        self._left -= len(data)
        if whole and not self._left:
            self._check_end()
        return data

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        whole = len(view) >= self._left
        count = self._file.readinto(view[: self._left] if whole else view)
        self._left -= count
        if whole and not self._left:
            self._check_end()
        return count

    def read_at(self, buffer, offset):
        """Read into `buffer` the bytes from `offset` on, none past the size: the count read (fewer
        only if the file shrank). Any thread may call it, each with its own buffer; it does not
        move the position `read` reads from. A read up to the size checks, as `read` does, that
        nothing follows."""
        view = memoryview(buffer).cast("B")[: max(0, self.size - offset)]
        done = 0
        while done < len(view):
            count = self._read_at(view[done:], offset + done)
            if not count:
                break
            done += count
        if done and offset + done == self.size:
            self._check_end()
        return done

    def _read_at(self, view, offset):
        if hasattr(os, "preadv"):
            return os.preadv(self._file.fileno(), [view], offset)
        with self._lock:  # (Windows) through the file's one position, put back after
            position = self._file.tell()
            self._file.seek(offset)
            count = self._file.readinto(view)
            self._file.seek(position)
            return count

    def fileno(self):
        return self._file.fileno()

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check_end(self):
        """Raise ParseError if the file has grown past its size (once a read has reached it)."""
        if self._read_at(memoryview(bytearray(1)), self.size):
            raise ParseError(
                self._path, f"the file grew past its {self.size} bytes while it was read", offset=self.size
            )


def missing_companion(companion, owner, what, keyword, why=""):
    """The error for a companion file that is not there (the .asf of an .amc, the .obj of a .memg,
    .famc or .pc2): a FileNotFoundError whose filename is the companion, saying whose `what` it is
    (`why` after the owner's name) and how to name another (`keyword`, e.g. 'obj=...'). One rule for
    every pair: the CLI exits with its OS error code, Blender names the companion and the file once each."""
    message = f"{os.strerror(errno.ENOENT)}: the {what} of {owner}{why}; pass {keyword}"
    return FileNotFoundError(errno.ENOENT, message, str(companion))


def read_companion(read, companion, owner, what, keyword, why=""):
    """read(companion) for the file `owner`; a missing companion raises `missing_companion` (other
    errors are raised as they are: a folder, a special file, a malformed file name the companion
    themselves). A missing `owner` is named first: it needs no companion."""
    if not os.path.exists(owner):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(owner))
    try:
        return read(companion)
    except FileNotFoundError as error:
        if error.filename is not None and os.fspath(error.filename) != os.fspath(companion):
            raise
        raise missing_companion(companion, owner, what, keyword, why) from None
