"""Writers refuse non-finite data before opening the output, replace a .memg + .obj pair together
or not at all, and name the file in every I/O error (ENOSPC, EACCES)."""

import errno
import os

import numpy as np
import pytest

from bvh_samples import random_motion
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.core import atomic
from mocap_io.core.formats.pc2 import write_pc2
from motion_checks import assert_failed_pair_write_keeps_both


def test_bvh_writer_names_the_joint_and_frame_of_a_nan(tmp_path):
    motion = random_motion()
    motion.skeleton.offsets[2, 1] = np.nan
    with pytest.raises(ValueError, match="OFFSET Y of joint 'b' is nan"):
        core.write(motion, tmp_path / "out.bvh")
    motion = random_motion()
    motion.euler[7, 3, 0] = np.inf
    with pytest.raises(ValueError, match="rotation 1 of joint 'c' at frame 7 is inf"):
        core.write(motion, tmp_path / "out.bvh")
    motion = random_motion()
    motion.skeleton.end_site_offsets[1, 2] = -np.inf
    with pytest.raises(ValueError, match="End Site OFFSET Z of joint 'c' is -inf"):
        core.write(motion, tmp_path / "out.bvh")
    assert os.listdir(tmp_path) == []  # refused before anything was opened


def test_a_motion_needs_a_finite_rate():
    motion = random_motion()
    with pytest.raises(ValueError, match="fps must be positive and finite"):
        core.Motion(motion.skeleton, float("inf"), motion.euler, motion.euler_orders, motion.translations)


def test_obj_and_pc2_writers_name_the_row(tmp_path):
    mesh = two_bars().mesh
    with pytest.raises(ValueError, match="'v' row 4, value 2 is nan"):
        core.write(
            mesh,
            tmp_path / "m.obj",
            vertices=np.where(np.arange(len(mesh.vertices))[:, None] == 3, [0, np.nan, 0], mesh.vertices),
        )
    with pytest.raises(ValueError, match=r"sample 1, point 2, y \(float32\) is inf"):
        positions = np.zeros((3, 4, 3))
        positions[1, 2, 1] = 1e300  # finite in float64, not in the file's float32
        write_pc2(tmp_path / "c.pc2", positions)
    with pytest.raises(ValueError, match="positive sampling"):
        write_pc2(tmp_path / "c.pc2", np.zeros((1, 1, 3)), sampling=0.0)
    assert os.listdir(tmp_path) == []


def test_memg_writer_refuses_non_finite_and_singular_data(tmp_path):
    animation = two_bars()
    animation.groups[1].coefficients[0, 5] = np.nan
    with pytest.raises(ValueError, match=r"coefficients \[0, 5\] of group 'right' is nan"):
        core.write(animation, tmp_path / "a.memg")
    animation = two_bars()
    animation.transforms[0, 3] = 0.0
    with pytest.raises(ValueError, match="transform of local frame 0 at frame 3"):
        core.write(animation, tmp_path / "a.memg")
    assert os.listdir(tmp_path) == []


def test_a_failed_pair_write_leaves_both_old_files(tmp_path, monkeypatch):
    path = tmp_path / "a.memg"
    core.write(two_bars(), path)
    # the .obj is written in full, the .memg runs out of space
    assert_failed_pair_write_keeps_both(
        monkeypatch, [path, tmp_path / "a.obj"], lambda: core.write(two_bars(frames=12), path), failing=0, room=3
    )


def test_enospc_names_the_file(tmp_path, monkeypatch):
    """Writing into /dev/full: the error comes from the write or the close of the temporary."""
    real_fdopen = os.fdopen

    def full(fd, mode):
        os.close(fd)
        return real_fdopen(os.open("/dev/full", os.O_WRONLY), mode)

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    monkeypatch.setattr(atomic.os, "fdopen", full)
    target = tmp_path / "out.bvh"
    with pytest.raises(OSError) as info:
        core.write(random_motion(), target)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert str(target) in str(info.value)
    assert os.listdir(tmp_path) == []


def test_eacces_names_the_file(tmp_path, monkeypatch):
    def refuse(dir, prefix, suffix):  # what a read-only folder gives (root may write anywhere)
        raise PermissionError(errno.EACCES, "Permission denied", os.path.join(dir, prefix + "x" + suffix))

    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as info:
        core.write(random_motion(), tmp_path / "out.bvh")
    assert info.value.filename == str(tmp_path / "out.bvh")


def test_a_rename_failure_names_the_target(tmp_path, monkeypatch):
    def refuse(source, target):
        raise PermissionError(errno.EACCES, "Permission denied", source, None, target)

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(PermissionError) as info:
        core.write(random_motion(), tmp_path / "out.bvh")
    assert info.value.filename == str(tmp_path / "out.bvh")
    assert os.listdir(tmp_path) == []
