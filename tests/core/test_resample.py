"""core.resample against independent references: scipy's Slerp, numpy's interp, the textbook
Catmull-Rom formula; exact at coincident frames, smooth between."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from bvh_samples import random_motion
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from sample_motion import cmu_like_motion


@pytest.mark.parametrize(("source", "target", "every", "of"), [(120.0, 30.0, 1, 4), (30000 / 1001, 24000 / 1001, 4, 5)])
def test_coincident_frames_are_exact(source, target, every, of):
    """120 -> 30 fps keeps every 4th frame; 29.97 -> 23.976 meets the source every 5th frame."""
    m = cmu_like_motion(core, 241, fps=source)
    out = core.resample(m, fps=target)
    assert out.frame_count == round(240 * target / source) + 1 and out.fps == target
    assert out.euler_orders == m.euler_orders and out.skeleton is m.skeleton
    hits = slice(0, None, every)
    np.testing.assert_array_equal(out.euler[hits], m.euler[::of])
    np.testing.assert_array_equal(out.translations[hits], m.translations[::of])


def test_slerp_between_frames_matches_scipy_and_translations_are_linear():
    m = random_motion(frames=40, seed=5)  # rotations far apart: every joint turns up to 3 rad a frame
    out = core.resample(m, fps=3 * m.fps)
    assert out.frame_count == 3 * 39 + 1
    times = np.arange(out.frame_count) / out.fps
    for j in range(4):
        keys = Rotation.from_euler(m.euler_orders[j], m.euler[:, j])
        expected = Slerp(np.arange(40) / m.fps, keys)(times).as_matrix()
        np.testing.assert_allclose(out.local_rotation(j), expected, atol=1e-9)
        for axis in range(3):
            linear = np.interp(times, np.arange(40) / m.fps, m.translations[:, j, axis])
            np.testing.assert_allclose(out.translations[:, j, axis], linear, atol=1e-9)


def test_euler_angles_stay_on_the_source_branch():
    """Angles past 180 degrees, and middle angles past 90 (as files write them after making
    curves continuous), are not folded back."""
    m = random_motion(frames=20, seed=1)
    m.euler[:, 0, 0] = np.linspace(0, 4 * np.pi, 20)  # two whole turns about the first axis
    m.euler[:, 0, 1:] = 0.1
    m.euler[:, 1] = np.linspace([0.2, 1.2, -0.3], [0.5, 2.2, 0.3], 20)  # the middle angle passes 90 degrees
    out = core.resample(m, fps=4 * m.fps)
    assert np.abs(np.diff(out.euler[:, :2], axis=0)).max() < np.pi / 10
    np.testing.assert_allclose(out.euler[-1, 0, 0], 4 * np.pi)
    assert out.euler[:, 1, 1].max() == 2.2


def catmull_rom(p, t):
    """The textbook uniform Catmull-Rom spline through p (n,) at parameter t (in key units),
    ends repeated: P(u) = 0.5 * (2 p1 + (p2 - p0) u + (2 p0 - 5 p1 + 4 p2 - p3) u^2 + (3 p1 - p0 - 3 p2 + p3) u^3)."""
    padded = np.concatenate([[p[0]], p, [p[-1], p[-1]]])
    i = np.minimum(np.floor(t).astype(int), len(p) - 1)
    u = t - i
    p0, p1, p2, p3 = (padded[i + k] for k in range(4))
    return 0.5 * (2 * p1 + (p2 - p0) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u**2 + (3 * p1 - p0 - 3 * p2 + p3) * u**3)


def test_spline_and_cubic_match_catmull_rom_and_have_no_kinks():
    """About a fixed axis, slerps are linear in the angle, so the quaternion spline must be the
    scalar Catmull-Rom spline of the angle; the cubic is it on every coordinate."""
    rng = np.random.default_rng(2)
    m = random_motion(frames=12, seed=2)
    m.euler[:, :, 1:] = 0.0  # every joint turns about its first axis only
    m.euler[:, :, 0] = np.cumsum(rng.uniform(-0.8, 0.8, (12, 4)), axis=0)
    out = core.resample(m, fps=10 * m.fps, rotation="spline", translation="cubic")
    t = np.arange(out.frame_count) / 10
    for j in range(4):
        np.testing.assert_allclose(out.euler[:, j, 0], catmull_rom(m.euler[:, j, 0], t), atol=1e-9)
        for axis in range(3):
            np.testing.assert_allclose(
                out.translations[:, j, axis], catmull_rom(m.translations[:, j, axis], t), atol=1e-9
            )
    # no kink at a key: the slopes just before and just after key 5 agree for the spline, not for slerp
    h = 1e-5
    for options, kinked in (({"rotation": "spline"}, False), ({}, True)):
        near = core.resample(m, times=(5 + np.array([-h, 0, h])) / m.fps, **options).euler[:, 0, 0]
        before, after = (near[1] - near[0]) / h, (near[2] - near[1]) / h
        assert (abs(before - after) > 1e-3 * abs(before)) == kinked


def test_variable_source_times():
    m = random_motion(frames=30, seed=7)
    keys = np.cumsum(np.random.default_rng(0).uniform(0.005, 0.02, 30))
    out = core.resample(m, fps=100.0, source_times=keys)
    times = keys[0] + np.arange(out.frame_count) / 100.0
    assert times[-1] <= keys[-1] < times[-1] + 0.01
    for axis in range(3):
        np.testing.assert_allclose(out.translations[:, 0, axis], np.interp(times, keys, m.translations[:, 0, axis]))
    rotations = Slerp(keys, Rotation.from_euler(m.euler_orders[2], m.euler[:, 2]))(times)
    np.testing.assert_allclose(out.local_rotation(2), rotations.as_matrix(), atol=1e-9)
    exact = core.resample(m, times=keys[[3, 17]], source_times=keys)
    np.testing.assert_array_equal(exact.euler, m.euler[[3, 17]])


def test_trimming_and_looping():
    m = cmu_like_motion(core, 100, fps=50.0)
    trimmed = core.resample(m, start=0.5, end=1.0)
    assert trimmed.frame_count == 26 and trimmed.frame_time_text is None
    np.testing.assert_array_equal(trimmed.euler, m.euler[25:51])
    held = core.resample(m, times=[-1.0, 10.0])
    np.testing.assert_array_equal(held.euler, m.euler[[0, -1]])
    assert held.fps == pytest.approx(1 / 11)
    period = 100 / 50.0  # the length plus one frame: frame 100 is frame 0 again
    looped = core.resample(m, start=0.0, end=3 * period, loop=True)
    assert looped.frame_count == 301
    np.testing.assert_array_equal(looped.euler[200:300], m.euler)
    np.testing.assert_array_equal(looped.translations[100:200], m.translations)
    between = core.resample(m, times=[period - 0.5 / 50], loop=True)  # half way from the last frame to the first
    np.testing.assert_allclose(between.translations[0], 0.5 * (m.translations[-1] + m.translations[0]))


def test_single_frame_scales_and_errors():
    m = random_motion(frames=1)
    assert core.resample(m, fps=30.0, end=1.0).frame_count == 31
    scaled = core.Motion(
        m.skeleton, 10.0, np.zeros((3, 4, 3)), m.euler_orders, np.zeros((3, 4, 3)), [[1.0] * 4, [2.0] * 4, [4.0] * 4]
    )
    np.testing.assert_allclose(core.resample(scaled, fps=20.0).scales[:, 0], [1, 1.5, 2, 3, 4])
    long = random_motion(frames=5)
    for options, message in [
        ({"fps": 0.0}, "fps"),
        ({"rotation": "squad"}, "rotation"),
        ({"translation": "quadratic"}, "translation"),
        ({"times": [0.1], "start": 0.0}, "start and end"),
        ({"times": [np.nan]}, "finite"),
        ({"source_times": [0, 1, 1, 2, 3]}, "increasing"),
        ({"source_times": [0, 1]}, "shape"),
        ({"start": 1.0, "end": 0.5}, "not after"),
    ]:
        with pytest.raises(ValueError, match=message):
            core.resample(long, **options)
    with pytest.raises(ValueError, match="without frames"):
        core.resample(core.Motion(m.skeleton, 30.0, np.zeros((0, 4, 3)), m.euler_orders, np.zeros((0, 4, 3))))


@needs_corpus
@pytest.mark.parametrize("name", ["bvh/motionbuilder-cmu/16_15.bvh", "bvh/cmu-cgspeed/cmu_12_01_walk.bvh"])
def test_a_rounded_frame_time_keeps_every_4th_frame_bit_for_bit(name):
    """`Frame Time: 0.008333` stands for 120 fps (1 / 0.008333 is 120.000048): resampling keeps
    time on the 120 fps clock, so 30 fps meets every 4th source frame exactly."""
    take = core.read(CORPUS / name)
    assert take.fps != 120.0 and take.standard_fps == 120.0
    quarter = core.resample(take, fps=30.0)
    assert quarter.frame_count == (take.frame_count - 1) // 4 + 1 and quarter.fps == 30.0
    np.testing.assert_array_equal(quarter.euler, take.euler[::4])
    np.testing.assert_array_equal(quarter.translations, take.translations[::4])
    assert core.resample(take).frame_time_text == take.frame_time_text  # the same rate: printed back
