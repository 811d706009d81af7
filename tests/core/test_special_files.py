"""Readers open regular files only and read no further than their size (issue 28, item 5): a FIFO, a
device, a link to one are refused at once (they blocked a read forever, or read until memory ran
out), a folder is a folder, and a file that grows while it is read is an error."""

import errno
import os
import subprocess
import sys

import pytest

from asf_samples import ASF
from bvh_samples import SIMPLE
from mocap_io import core
from mocap_io.core import inputs

TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
COMPANIONS = {".amc": (".asf", ASF), **{ext: (".obj", TRIANGLE) for ext in (".memg", ".famc", ".pc2")}}
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _special(tmp_path, ext, make):
    """A special file named take<ext> made by `make(path)`, with a good companion file where the
    format needs one (its reader reads that first)."""
    path = tmp_path / f"take{ext}"
    make(path)
    if ext in COMPANIONS:
        companion, text = COMPANIONS[ext]
        path.with_suffix(companion).write_text(text)
    return path


def _read_in_child(path):
    """(exit code, stderr) of core.read(path) in a child process given 20 s: a blocked read fails
    the test instead of hanging it."""
    code = f"from mocap_io import core\ncore.read({str(path)!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    return done.returncode, done.stderr.strip().splitlines()[-1]


@needs_fifo
@pytest.mark.parametrize("ext", core.formats.extensions("read"))
def test_a_fifo_is_refused_without_blocking(tmp_path, ext):
    path = _special(tmp_path, ext, os.mkfifo)
    code, last = _read_in_child(path)
    assert code == 1 and last.startswith("OSError") and "not a regular file (a FIFO)" in last and str(path) in last


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("ext", [".bvh", ".c3d", ".trc", ".memg"])
def test_a_link_to_dev_zero_is_refused(tmp_path, ext):
    path = _special(tmp_path, ext, lambda p: p.symlink_to("/dev/zero"))
    with pytest.raises(OSError, match="not a regular file \\(a character device\\)") as caught:
        core.read(path)
    assert caught.value.errno == errno.EINVAL and caught.value.filename == str(path)


def test_a_folder_is_a_folder(tmp_path):
    path = tmp_path / "take.bvh"
    path.mkdir()
    with pytest.raises(IsADirectoryError):
        core.read(path)


def test_a_file_that_grows_while_it_is_read_is_an_error(tmp_path):
    path = tmp_path / "take.bvh"
    path.write_text(SIMPLE)
    with inputs.open_input(path) as f:
        with open(path, "a") as more:
            more.write("0 0 0\n")
        head = f.read(10)
        with pytest.raises(core.ParseError, match=f"grew past its {len(SIMPLE)} bytes") as caught:
            f.read()
    assert head == SIMPLE[:10].encode() and caught.value.offset == len(SIMPLE)
    with inputs.open_input(path) as f:  # read into a buffer, as the BVH reader does
        buffer = bytearray(f.size)
        assert f.readinto(buffer) == len(buffer)
        with pytest.raises(core.ParseError, match="grew past"):
            with open(path, "a") as more:
                more.write("0 0 0\n")
            f.read()


def test_reads_stop_at_the_size_the_file_had_when_opened(tmp_path):
    path = tmp_path / "take.bvh"
    path.write_text(SIMPLE)
    with inputs.open_input(path) as f:
        chunks = [f.read(100) for _ in range(len(SIMPLE) // 100 + 3)]
    assert b"".join(chunks) == SIMPLE.encode() and chunks[-1] == b""
