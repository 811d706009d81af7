"""Writers given hostile data or targets (issue 28, items 8 and 9): numbers a file cannot hold are
refused with their place and value before anything is opened; a pair is replaced only when every
target can be; temporaries of killed writers are removed by the next write of their target."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from bvh_samples import random_motion
from ensemble_samples import two_bars
from htr_samples import SAMPLE
from mocap_io import core
from mocap_io.core import atomic
from mocap_io.core.errors import LARGEST
from mocap_io.core.markers import Analog, Event, Markers
from mocap_io.core.mesh import MeshAnimation


def markers():
    positions = np.arange(5 * 2 * 3, dtype=float).reshape(5, 2, 3)  # float64: may hold more than float32
    analog = Analog(np.zeros((10, 1)), 200.0, ["EMG"])
    return Markers(["LHEE", "RHEE"], positions, 100.0, analog=analog, events=[Event(0.01, "Foot Strike")])


def refused(place, value):
    """The start of a writer's message for a number beyond what readers accept."""
    return re.escape(f"{place} is {value:g}: expected a finite number of magnitude at most {LARGEST:g}")


@pytest.mark.parametrize("value", [1e39, 3.5e38, -1e308, 2 * LARGEST])
def test_c3d_refuses_what_its_reader_refuses(tmp_path, value):
    """Beyond float32 the file would hold infinity; beyond errors.LARGEST the reader refuses it."""
    take = markers()
    take.positions[3, 1, 2] = value
    with pytest.raises(ValueError, match=refused("marker 'RHEE' Z at frame 3", value)):
        core.write(take, tmp_path / "t.c3d")
    take = markers()
    take.analog.values[7, 0] = value
    with pytest.raises(ValueError, match=refused("analog channel 'EMG' sample 7", value)):
        core.write(take, tmp_path / "t.c3d")
    take = markers()
    take.events[0].time = value
    with pytest.raises(ValueError, match=refused("the time of event 'Foot Strike'", value)):
        core.write(take, tmp_path / "t.c3d")
    take = markers()
    take.rate, take.analog = abs(value), None
    with pytest.raises(ValueError, match=re.escape(f"the frame rate gives a rate of {abs(value):g} Hz")):
        core.write(take, tmp_path / "t.c3d")
    assert os.listdir(tmp_path) == []


def test_c3d_writes_the_largest_coordinate_readers_accept(tmp_path):
    take = markers()
    take.positions[1, 0] = [LARGEST, 0, 0]  # its scale (largest / 32000) is more than readers accept
    take.positions[2, 1] = [np.nan] * 3
    core.write(take, tmp_path / "t.c3d")
    again = core.read(tmp_path / "t.c3d")
    assert again.positions[1, 0, 0] == np.float32(LARGEST) and np.isnan(again.positions[2, 1]).all()


@pytest.mark.parametrize("value", [np.nan, np.inf, 1e308, 2 * LARGEST])
def test_memg_and_famc_writers_name_the_vertex_frame_and_value(tmp_path, value):
    animation = two_bars(frames=8)
    positions = animation.positions()
    positions[3, 2, 1] = value
    dense = MeshAnimation(animation.mesh, animation.fps, positions)
    with pytest.raises(ValueError, match=re.escape(f"vertex 2 y at frame 3 is {value:g}")):  # not "SVD did not ..."
        core.write(dense, tmp_path / "a.memg")
    with pytest.raises(ValueError, match=re.escape(f"frame 3, vertex 2, y is {value:g}")):
        core.write(dense, tmp_path / "a.famc")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", [".bvh", ".amc"])
def test_motion_writers_refuse_what_readers_refuse(tmp_path, suffix):
    motion = random_motion(frames=3)
    motion.translations[2, 0, 1] = -2 * LARGEST
    with pytest.raises(
        ValueError, match=refused(f"translation Y of joint {motion.skeleton.names[0]!r} at frame 2", -2 * LARGEST)
    ):
        core.write(motion, tmp_path / f"out{suffix}")
    motion = random_motion(frames=3)
    motion.euler[1, 1, 2] = np.radians(2 * LARGEST)  # written in degrees
    with pytest.raises(ValueError, match=r"^rotation 3 of joint '\w+' at frame 1 is 3.49066e\+13: expected"):
        core.write(motion, tmp_path / f"out{suffix}")
    motion = random_motion(frames=3)
    motion.fps = 2e6
    with pytest.raises(ValueError, match=re.escape("frame rate gives a rate of 2e+06 Hz: expected 0.001 to 1e+06 Hz")):
        core.write(motion, tmp_path / f"out{suffix}")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", [".htr", ".memg", ".famc"])
def test_writers_refuse_rates_readers_refuse(tmp_path, suffix):
    if suffix == ".htr":
        (tmp_path / "s.htr").write_text(SAMPLE)
        data = core.read(tmp_path / "s.htr")
        os.remove(tmp_path / "s.htr")
    else:
        data = two_bars()
    data.fps = 2e6
    with pytest.raises(ValueError, match=re.escape("gives a rate of 2e+06 Hz: expected 0.001 to 1e+06 Hz")):
        core.write(data, tmp_path / f"out{suffix}")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", [".obj", ".pc2"])
def test_mesh_writers_refuse_what_readers_refuse(tmp_path, suffix):
    animation = two_bars()
    positions = animation.positions().copy()
    positions[1, 0, 0] = 2 * LARGEST
    path = tmp_path / ("out_####.obj" if suffix == ".obj" else "out.pc2")
    with pytest.raises(ValueError, match="is 2e[+]15: expected a finite number of magnitude"):
        core.write(MeshAnimation(animation.mesh, animation.fps, positions=positions), path)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", [".htr", ".gtr"])
def test_htr_and_gtr_writers_call_an_infinity_inf(tmp_path, suffix):
    (tmp_path / "s.htr").write_text(SAMPLE)
    motion = core.read(tmp_path / "s.htr")
    motion.euler[1, 1, 0] = np.inf  # GTR's conversion to world frames turned it into NaNs elsewhere
    with pytest.raises(ValueError, match="^rotation 1 of segment 'Chest' at frame 1 is inf: cannot write"):
        core.write(motion, tmp_path / f"out{suffix}")
    motion = core.read(tmp_path / "s.htr")
    motion.translations[2, 0, 1] = -1e308
    with pytest.raises(ValueError, match=refused("Ty of segment 'Hips' at frame 2", -1e308)):
        core.write(motion, tmp_path / f"out{suffix}")
    assert sorted(os.listdir(tmp_path)) == ["s.htr"]


def test_htr_writer_refuses_what_its_reader_refuses_as_written(tmp_path):
    (tmp_path / "s.htr").write_text(SAMPLE)
    motion = core.read(tmp_path / "s.htr")
    motion.euler[1, 1, 0] = LARGEST / 10  # radians: more than LARGEST in degrees
    with pytest.raises(
        ValueError, match=r"^R\w of segment 'Chest' at frame 1 \(as written\) is 5.72958e\+15: expected"
    ):
        core.write(motion, tmp_path / "out.htr")
    motion = core.read(tmp_path / "s.htr")
    motion.scales[2, 2] = LARGEST / 10  # SF x BoneLength (20): the segment's size
    with pytest.raises(ValueError, match=refused("SF x BoneLength of segment 'Head' at frame 2", 2 * LARGEST)):
        core.write(motion, tmp_path / "out.htr")
    assert sorted(os.listdir(tmp_path)) == ["s.htr"]


def pairs(tmp_path):
    """(write, [first target, second target]) of every writer of a pair."""
    motion = random_motion(frames=4)
    return [
        (lambda: core.write(motion, tmp_path / "a.asf"), [tmp_path / "a.asf", tmp_path / "a.amc"]),
        (lambda: core.write(two_bars(frames=6), tmp_path / "m.memg"), [tmp_path / "m.memg", tmp_path / "m.obj"]),
        (lambda: core.write(two_bars(frames=6), tmp_path / "f.famc"), [tmp_path / "f.famc", tmp_path / "f.obj"]),
    ]


@pytest.mark.parametrize("which", [0, 1])
def test_a_pair_with_a_directory_for_a_target_replaces_nothing(tmp_path, which):
    for write, targets in pairs(tmp_path):
        write()
        old = os.stat(targets[1 - which]).st_ino  # the same bytes would be written again: a replaced file is a new one
        targets[which].unlink()
        targets[which].mkdir()
        (targets[which] / "inside").write_text("kept")
        with pytest.raises(IsADirectoryError) as info:
            write()
        assert info.value.filename == str(targets[which])
        assert os.stat(targets[1 - which]).st_ino == old and (targets[which] / "inside").read_text() == "kept"
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


KILLED_WRITER = """
import sys, time
from mocap_io.core.atomic import atomic_write
with atomic_write(sys.argv[1]) as f:
    f.write(b"half a file")
    print("writing", flush=True)
    time.sleep(60)
"""


def writer_in_the_middle(target):
    """A process stopped in the middle of writing `target`, and its temporary."""
    before = set(os.listdir(target.parent))
    process = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n"
    (temporary,) = set(os.listdir(target.parent)) - before
    assert temporary.startswith(f".{target.name}.") and temporary.endswith(".tmp")
    return process, target.parent / temporary


def age(path, seconds=2 * atomic.STALE_SECONDS):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_the_next_write_removes_the_temporaries_of_killed_writers(tmp_path):
    """Only the target's own (`.out.bvh.` + mkstemp's 8 characters + `.tmp`), only stale ones: a
    live writer's, however old, and one just begun are kept."""
    target = tmp_path / "out.bvh"
    live, live_temporary = writer_in_the_middle(target)
    try:
        killed, killed_temporary = writer_in_the_middle(target)
        killed.kill()
        killed.wait()
        killed.stdout.close()
        age(live_temporary)  # paused for long, still locked (POSIX) or open (Windows) by its writer
        age(killed_temporary)
        recent = tmp_path / ".out.bvh.abcd1234.tmp"  # another writer that has just begun
        recent.write_bytes(b"")
        others = [".other.bvh.abcd1234.tmp", ".out.bvh.notes.tmp", ".out.bvh.abcd1234.tmp.bak"]  # not its own
        for name in others:
            (tmp_path / name).write_bytes(b"")
            age(tmp_path / name)
        core.write(random_motion(), target)
        assert not killed_temporary.exists()
        assert live_temporary.exists() and recent.exists() and all((tmp_path / n).exists() for n in others)
    finally:
        live.kill()
        live.wait()
        live.stdout.close()
    age(recent)
    core.write(random_motion(), target)  # within the same minute: the listing of the folder is reused
    assert sorted(os.listdir(tmp_path)) == sorted(["out.bvh", *others])
