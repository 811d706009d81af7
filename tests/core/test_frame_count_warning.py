"""A lenient read that keeps another number of frames than the file declares says how many in its
warning (core.errors.FrameCountWarning), for callers that report what leniency cost."""

import warnings

import numpy as np

from bvh_samples import random_motion
from mocap_io import core
from mocap_io.core.errors import FrameCountWarning


def counted(path, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = core.read(path, **options)
    found = [(w.message.declared, w.message.kept) for w in caught if isinstance(w.message, FrameCountWarning)]
    return data, found


def test_a_short_bvh_and_a_cut_c3d_say_what_they_declare_and_what_was_kept(tmp_path):
    core.write(random_motion(frames=30), tmp_path / "short.bvh")
    lines = (tmp_path / "short.bvh").read_text().splitlines(keepends=True)
    (tmp_path / "short.bvh").write_text("".join(lines[:-20]))
    motion, found = counted(tmp_path / "short.bvh", strict=False)
    assert motion.frame_count == 10 and found == [(30, 10)]
    markers = core.Markers(["a", "b"], np.random.default_rng(1).normal(0, 100, (20, 2, 3)), 100.0, units="mm")
    core.write(markers, tmp_path / "cut.c3d")
    data = (tmp_path / "cut.c3d").read_bytes()
    (tmp_path / "cut.c3d").write_bytes(data[: len(data) - 512 - 40])
    markers, found = counted(tmp_path / "cut.c3d")
    assert found == [(20, markers.frame_count)] and markers.frame_count < 20
    assert issubclass(FrameCountWarning, UserWarning)
