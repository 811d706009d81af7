"""`mocap-io batch` when it is stopped or meets what it cannot read: Ctrl-C ends it at once, with a
report that lists exactly the outputs left on disk and no partial output or temporary file; a
worker that dies costs its own file only; every entry of the walk with a format's extension (a
FIFO, a device, a socket, a folder, a link) is converted, skipped with a reason or an error; failed
files leave no empty folders."""

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from bvh_samples import random_motion
from command_line import run
from ensemble_samples import two_bars
from mocap_io import cli, core
from mocap_io.cli import batch, workers
from mocap_io.core import formats
from mocap_io.core.atomic import atomic_write
from sample_motion import cmu_like_motion

REPORTS = ("mocap-io-report.json", "mocap-io-report.csv")


def command(*args, timeout=120):
    """`python -m mocap_io args` in a child process (a hang fails the test instead of stopping the run)."""
    done = subprocess.run(
        [sys.executable, "-m", "mocap_io", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )
    return done.returncode, done.stdout, done.stderr


def on_disk(folder):
    """Every file under `folder` (hidden ones too) but the reports, relative to it."""
    return {
        os.path.relpath(os.path.join(path, name), folder)
        for path, _, names in os.walk(folder)
        for name in names
        if name not in REPORTS
    }


def folders(folder):
    return {os.path.relpath(path, folder) for path, _, _ in os.walk(folder)} - {"."}


def outputs(report, destination):
    """The outputs the report says were written."""
    return {os.path.relpath(f["output"], destination) for f in report["files"] if f["status"] == "converted"}


@pytest.fixture
def takes(tmp_path):
    """src/ with six small motions, then two long ones (each a few seconds to convert), in that
    order of the walk: the small ones are done when the long ones are being written."""
    src = tmp_path / "src"
    (src / "short").mkdir(parents=True)
    for i in range(6):
        core.write(random_motion(frames=20, seed=i), src / "short" / f"take{i}.bvh")
    (src / "z_long").mkdir()
    core.write(cmu_like_motion(core, 60000), src / "z_long" / "one.bvh")  # 57 MB
    os.link(src / "z_long" / "one.bvh", src / "z_long" / "two.bvh")
    return src


def long_ones_being_written(dst):
    return {name for name in on_disk(dst) if name.startswith("z_long" + os.sep) and name.endswith(".tmp")}


@pytest.mark.parametrize("whom", ["process", "process group, twice"])
def test_ctrl_c_ends_the_batch_at_once_and_its_report_lists_what_is_on_disk(tmp_path, takes, whom):
    dst = tmp_path / "dst"
    child = subprocess.Popen(
        [sys.executable, "-m", "mocap_io", "batch", takes, dst, "--to", "htr", "-j", "2", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a terminal's Ctrl-C reaches every process in it
    )
    try:
        deadline = time.monotonic() + 120
        while not (writing := long_ones_being_written(dst)) and child.poll() is None:
            assert time.monotonic() < deadline, "no long take was being written within two minutes"
            time.sleep(0.01)
        signalled = time.monotonic()
        if whom == "process":
            child.send_signal(signal.SIGINT)
        else:  # a terminal's Ctrl-C, pressed again at once (the second lands while the batch stops)
            os.killpg(child.pid, signal.SIGINT)
            os.killpg(child.pid, signal.SIGINT)
        _, err = child.communicate(timeout=60)
        took = time.monotonic() - signalled
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert writing, "the signal came after the run (the inputs are too small for this machine)"
    assert child.returncode == cli.INTERRUPTED and err.endswith("mocap-io: error: interrupted\n")
    assert took < 10, f"{took:.1f} s from SIGINT to the end"
    report = json.loads((dst / "mocap-io-report.json").read_text())
    assert report["interrupted"] and set(report["counts"]) == {"converted"}
    assert outputs(report, dst) == on_disk(dst)  # no partial output, no temporary file, none unreported
    assert {f"short/take{i}.htr" for i in range(6)} <= on_disk(dst)
    assert "z_long/one.htr" not in on_disk(dst) or "z_long/two.htr" not in on_disk(dst)  # one was being written
    with pytest.raises(ProcessLookupError):  # its workers have ended too: nothing appears later
        os.killpg(child.pid, 0)


def test_an_interrupted_task_leaves_what_was_there_before_and_nothing_else(tmp_path):
    kept, fresh = tmp_path / "kept.htr", tmp_path / "fresh.memg"
    kept.write_text("an output of an earlier run")
    tasks = [{"source": "x.bvh", "output": str(kept)}, {"source": "y.pc2", "output": str(fresh)}]
    before = [workers.state(task) for task in tasks]
    assert before[1] == {str(fresh): None, str(tmp_path / "fresh.obj"): None}
    with atomic_write(tmp_path / "fresh.obj") as f:  # renamed into place before the kill, never reported
        f.write(b"complete")
    for path in (kept, fresh, tmp_path / "fresh.obj"):  # writes ended by a kill: their temporaries stay
        with pytest.raises(KeyboardInterrupt), atomic_write(path) as f:
            f.write(b"partial")
            os.link(f.temporary, str(f.temporary) + ".copy")
            raise KeyboardInterrupt
        os.rename(str(f.temporary) + ".copy", f.temporary)
    assert len(os.listdir(tmp_path)) == 5
    for task, state in zip(tasks, before):
        workers.undo(task, state)
    assert os.listdir(tmp_path) == ["kept.htr"] and kept.read_text() == "an output of an earlier run"


def test_the_files_a_writer_makes_are_the_files_an_interruption_removes(tmp_path):
    samples = {
        core.Motion: random_motion(frames=5),
        core.Markers: core.Markers(["p"], np.zeros((3, 1, 3)), 100.0),
        core.mesh.Mesh: two_bars(frames=4).mesh,
        core.mesh.MeshAnimation: two_bars(frames=4),
    }
    for ext in formats.extensions("write"):
        folder = tmp_path / ext[1:]
        folder.mkdir()
        data = samples[next(kind for kind in samples if kind in formats.writes("x" + ext))]
        core.write(data, folder / f"take{ext}")
        assert sorted(os.listdir(folder)) == sorted(os.path.basename(p) for p in workers.written_by(f"take{ext}")), ext


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="the workers must run this test's code")
def test_a_worker_that_dies_costs_its_own_file_only(capsys, tmp_path, monkeypatch):
    src, dst = tmp_path / "src", tmp_path / "dst"
    for name in ("a/one.bvh", "b/dies.bvh", "c/three.bvh", "c/four.bvh"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        core.write(random_motion(frames=10), src / name)
    real = batch.run_task

    def dying(task):  # killed halfway through writing (out of memory, say)
        if task["source"].endswith("dies.bvh"):
            os.makedirs(os.path.dirname(task["output"]))
            with atomic_write(task["output"]) as f:
                f.write(b"HTR")
                os.kill(os.getpid(), signal.SIGKILL)
        return real(task)

    monkeypatch.setattr(batch, "run_task", dying)
    code, _, err = run(capsys, "batch", src, dst, "--to", "htr", "-j", 1)
    report = json.loads((dst / "mocap-io-report.json").read_text())
    assert code == cli.FILES_FAILED and report["counts"] == {"converted": 3, "error": 1}
    died = next(f for f in report["files"] if f["status"] == "error")
    assert (
        died["message"]
        == f"{src / 'b' / 'dies.bvh'}: the worker process converting it ended (signal SIGKILL) before it was done"
    )
    assert on_disk(dst) == outputs(report, dst) == {"a/one.htr", "c/three.htr", "c/four.htr"}
    assert folders(dst) == {"a", "c"}  # no empty b/


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs, sockets and devices are POSIX files")
def test_every_entry_with_a_format_extension_is_converted_skipped_or_an_error(tmp_path):
    src, dst = tmp_path / "src", tmp_path / "dst"
    (src / "dir.bvh").mkdir(parents=True)
    core.write(random_motion(frames=4), src / "dir.bvh" / "inner.bvh")
    core.write(random_motion(frames=4), src / "plain.bvh")
    os.mkfifo(src / "pipe.bvh")
    os.symlink(os.devnull, src / "null.trc")
    os.symlink(src / "nowhere.bvh", src / "broken.bvh")
    os.symlink(src / "plain.bvh", src / "link.bvh")
    (tmp_path / "elsewhere").mkdir()
    core.write(random_motion(frames=4), tmp_path / "elsewhere" / "far.bvh")
    os.symlink(tmp_path / "elsewhere", src / "linked")
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(str(src / "sock.c3d"))
        (src / "notes.txt").write_text("not a format: not the batch's")
        code, _, err = command("batch", src, dst, "--to", "htr", "-j", 1, "-q")
    finally:
        listener.close()
    report = json.loads((dst / "mocap-io-report.json").read_text())
    outcome = {os.path.relpath(f["source"], src): (f["status"], f.get("message")) for f in report["files"]}
    assert outcome == {
        "dir.bvh": ("skipped", "a folder, not a file (its files are read on their own)"),
        "dir.bvh/inner.bvh": ("converted", None),
        "plain.bvh": ("converted", None),
        "link.bvh": ("converted", None),
        "pipe.bvh": ("skipped", "a FIFO (named pipe), not a regular file: not read"),
        "null.trc": ("skipped", "a link to a character device, not a regular file: not read"),
        "sock.c3d": ("skipped", "a socket, not a regular file: not read"),
        "linked": ("skipped", "a link to a folder: not followed (its files are not read)"),
        "broken.bvh": (
            "error",
            f"{src / 'broken.bvh'}: a link to nothing that can be read (No such file or directory)",
        ),
    }
    assert code == cli.FILES_FAILED and report["counts"] == {"skipped": 5, "converted": 3, "error": 1}
    assert f"mocap-io: error: {src / 'broken.bvh'}: a link to nothing" in err
    assert on_disk(dst) == {"dir.bvh/inner.htr", "plain.htr", "link.htr"}


def test_a_special_file_named_alone_is_skipped_not_read(tmp_path):
    os.mkfifo(tmp_path / "pipe.bvh")
    code, out, _ = command("batch", tmp_path / "pipe.bvh", "-q")
    assert code == cli.OK and json.loads(out)["files"] == [
        {
            "source": str(tmp_path / "pipe.bvh"),
            "status": "skipped",
            "message": "a FIFO (named pipe), not a regular file: not read",
        }
    ]


def test_a_folder_that_cannot_be_listed_is_an_error(capsys, tmp_path, monkeypatch):
    locked = tmp_path / "src" / "locked"
    locked.mkdir(parents=True)
    core.write(random_motion(frames=4), tmp_path / "src" / "take.bvh")
    scandir = os.scandir

    def refusing(path="."):  # as a folder without read permission does (root reads any)
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    code, out, _ = run(capsys, "batch", tmp_path / "src", "-q", "-j", 1)
    files = {os.path.basename(f["source"]): (f["status"], f.get("message")) for f in json.loads(out)["files"]}
    assert code == cli.FILES_FAILED and files["take.bvh"][0] == "described"
    assert files["locked"] == ("error", f"{locked}: cannot list the folder: Permission denied")


def test_failed_files_leave_no_empty_folders(capsys, tmp_path):
    src = tmp_path / "src"
    for folder in ("good", "bad/deeper", "mixed"):
        (src / folder).mkdir(parents=True)
    core.write(random_motion(frames=4), src / "good" / "take.bvh")
    core.write(random_motion(frames=4), src / "mixed" / "take.bvh")
    for path in ("bad/deeper/broken.bvh", "mixed/broken.bvh"):
        (src / path).write_text("HIERARCHY\nROOT hips\n{\n  OFFSET 0 0\n}\n")
    (tmp_path / "dst" / "mine" / "empty").mkdir(parents=True)  # the user's own empty folder stays
    code, _, _ = run(capsys, "batch", src, tmp_path / "dst", "--to", "htr", "-j", 2, "-q")
    assert code == cli.FILES_FAILED
    assert folders(tmp_path / "dst") == {"good", "mixed", "mine", "mine/empty"}
    assert on_disk(tmp_path / "dst") == {"good/take.htr", "mixed/take.htr"}
    (src / "good" / "take.bvh").unlink()
    (src / "mixed" / "take.bvh").unlink()
    report = tmp_path / "elsewhere" / "report.json"
    code, _, _ = run(capsys, "batch", src, tmp_path / "new" / "dst", "--to", "htr", "--report", report, "-q")
    assert code == cli.FILES_FAILED and report.is_file() and not (tmp_path / "new").exists()
