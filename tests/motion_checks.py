"""Checks that several test modules share: a figure's height (a tolerance scale), two motions with
the same world positions, and a pair of files written together or not at all."""

import errno
import os

import numpy as np
import pytest

from mocap_io.core import atomic


def height(motion):
    """The largest extent of the figure's joints in its first frame, at least 1: a tolerance scale."""
    return max(np.ptp(motion.world_positions()[0], axis=0).max(), 1.0)


def assert_same_world(ours, reference, *, scale=1.0, end_sites=True):
    """`ours` has the world positions of the joints (and End Sites) of `reference` times `scale`,
    within a millionth of the reference's height."""
    tolerance = 1e-6 * scale * height(reference)
    np.testing.assert_allclose(ours.world_positions(), scale * reference.world_positions(), atol=tolerance, rtol=0)
    if end_sites:
        np.testing.assert_allclose(
            ours.end_site_positions(), scale * reference.end_site_positions(), atol=tolerance, rtol=0
        )


class FillingUp:
    """A file object that takes `room` writes, then fails with ENOSPC."""

    def __init__(self, file, room):
        self.file, self.room = file, room

    def write(self, data):
        self.room -= 1
        if self.room < 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.file.write(data)

    def close(self):
        self.file.close()


def assert_failed_pair_write_keeps_both(monkeypatch, paths, write, failing, room=0):
    """`write()` replaces the pair of files `paths` (in the order their temporaries open): when the
    temporary of paths[failing] runs out of space after `room` writes, the error is ENOSPC naming
    that file, both old files stay as they were and no temporary is left."""
    old = [path.read_bytes() for path in paths]
    real_fdopen, opened = os.fdopen, []

    def fdopen(fd, mode):
        opened.append(real_fdopen(fd, mode))
        return FillingUp(opened[-1], room) if len(opened) == failing + 1 else opened[-1]

    monkeypatch.setattr(atomic.os, "fdopen", fdopen)
    with pytest.raises(OSError, match=f"No space left on device: '.*{paths[failing].name}'") as info:
        write()
    assert info.value.errno == errno.ENOSPC and len(opened) == 2
    assert [path.read_bytes() for path in paths] == old
    assert sorted(os.listdir(paths[0].parent)) == sorted(path.name for path in paths)  # no temporaries left
