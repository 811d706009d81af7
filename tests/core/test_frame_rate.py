"""Frame rates from printed Frame Times: snapped by the precision they were printed with, and the
text as read written back."""

from fractions import Fraction

import pytest

from bvh_samples import SIMPLE, random_motion, read_text
from corpus_files import CORPUS, frame_count_warning, manifest, needs_corpus
from mocap_io import core
from mocap_io.core.frame_rate import snap_rate, stands_for


@pytest.mark.parametrize(
    "text, rate",
    [
        ("0.016667", 60),
        ("0.008333", 120),
        ("0.004167", 240),  # 6 decimals: all rates, not just 24, 30, 90
        ("0.033333", 30),
        ("0.041667", 24),
        ("0.011111", 90),
        ("0.010000", 100),
        ("0.0333667", Fraction(30000, 1001)),
        ("0.041708", Fraction(24000, 1001)),  # NTSC, not 30 and 24
        (".0083333", 120),
        ("0.00833333", 120),
        ("0.0333333", 30),  # other digit counts
        ("0.016666", 60),  # cut off instead of rounded
        ("0.008333334", 120),  # printed from a single-precision 1/120
        ("0.016666666666666666", 60),
        ("0.013888888888888888", 72),  # full precision: exactly
        ("0.0417083750417", Fraction("23.976")),
        ("0.033366700033", Fraction("29.97")),  # NTSC as written
        ("0.04", 25),
        ("8.333e-3", 120),
    ],
)
def test_printed_periods_snap_to_the_rate_they_were_printed_from(text, rate):
    assert snap_rate(text) == rate


@pytest.mark.parametrize("text", ["0.0123456789012", "0.03125001", "0.041670"])
def test_periods_that_fit_no_standard_rate_stay_exact(text):
    assert snap_rate(text) == 1 / Fraction(text)


@pytest.mark.parametrize("text", ["0", "-0.1", "inf", "nan", "abc", ""])
def test_periods_that_are_no_rate(text):
    with pytest.raises(ValueError):
        snap_rate(text)


def test_the_reader_keeps_the_text_and_the_writer_prints_it_back(tmp_path):
    m = read_text(tmp_path, SIMPLE)
    assert m.frame_time_text == "0.0333333" and m.fps == 1 / 0.0333333
    core.write(m, tmp_path / "out.bvh")
    assert "Frame Time: 0.0333333\n" in (tmp_path / "out.bvh").read_text()
    m.fps = 30.0  # the rate it was rounded from: still the text
    core.write(m, tmp_path / "out.bvh")
    assert "Frame Time: 0.0333333\n" in (tmp_path / "out.bvh").read_text()
    m.fps = 25.0  # another rate: printed from the rate
    core.write(m, tmp_path / "out.bvh")
    assert "Frame Time: 0.04\n" in (tmp_path / "out.bvh").read_text()


def test_a_motion_without_text_prints_its_rate():
    m = random_motion(frames=2)
    assert m.frame_time_text is None
    with pytest.raises(ValueError):
        core.Motion(m.skeleton, 30, m.euler, m.euler_orders, m.translations, frame_time_text="nan")


@needs_corpus
@pytest.mark.parametrize("path", [r["path"] for r in manifest("bvh")])
def test_every_corpus_rate_is_standard(path):
    """Every corpus file was written at a whole rate (or 23.976): each of them snaps to it."""
    with frame_count_warning(path):  # a file of more rows than its Frames says so
        motion = core.read(CORPUS / path, strict=False)
    rate = snap_rate(motion.frame_time_text)
    assert rate.denominator == 1 or rate == Fraction("23.976"), (motion.frame_time_text, rate)


def test_a_printed_period_stands_for_its_rate_or_the_standard_one_it_was_rounded_from():
    assert stands_for("0.008333", 120.0) and stands_for("0.008333", 1 / 0.008333)
    assert not stands_for("0.008333", 30.0) and not stands_for(None, 120.0)
