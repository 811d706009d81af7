"""`mocap-io fill` and `mocap-io filter`, and batch's --fill and --filter: the files written are the
core's fill_gaps and filter_markers of the input, the report is printed, bad requests are refused
before any work with the documented exit codes."""

import csv
import inspect
import json
import pathlib
import re

import numpy as np
import pytest

from bvh_samples import random_motion
from command_line import run
from mocap_io import cli, core
from mocap_io.core.gaps import MAX_GAP
from mocap_io.core.markers import Analog


def take(frames=300, gaps=True):
    """Six markers on one body moving in a circle (mm, 100 Hz) with noise, 16 analog samples a
    frame; gaps: 10 frames of m0, 40 frames of m1 (longer than the default --max-gap), and m5 seen
    in the last 10 frames only (too short to filter)."""
    rng = np.random.default_rng(0)
    t = np.arange(frames) / 100
    body = np.stack([np.sin(2 * np.pi * t) * 300, np.cos(2 * np.pi * t) * 300, 50 * t], axis=1)
    positions = body[:, None] + rng.normal(0, 80, (6, 3)) + rng.normal(0, 1, (frames, 6, 3))
    if gaps:
        positions[100:110, 0] = np.nan
        positions[150:190, 1] = np.nan
        positions[: frames - 10, 5] = np.nan
    analog = Analog(rng.normal(0, 50, (frames * 10, 2)).astype(np.float32), 1000.0, ["fz", "emg"])
    return core.Markers([f"m{i}" for i in range(6)], positions.astype(np.float32), 100.0, units="mm", analog=analog)


def refused(capsys, *args):
    """(exit code, stderr) of a command line that argparse or the command refuses."""
    try:
        code, _, err = run(capsys, *args)
    except SystemExit as exit:  # argparse's own refusal
        code, err = exit.code, capsys.readouterr().err
    return code, err


@pytest.fixture
def c3d(tmp_path):
    path = tmp_path / "take.c3d"
    core.write(take(), path)
    return path


def test_fill_writes_the_cores_fill_and_prints_its_report(capsys, tmp_path, c3d):
    code, out, err = run(capsys, "fill", c3d, tmp_path / "filled.c3d")
    expected, report = core.fill_gaps(core.read(c3d))
    assert code == cli.OK and not err
    assert report.filled and report.unfilled
    lines = out.splitlines()
    assert lines[0] == f"{tmp_path / 'filled.c3d'}: {report}"
    assert lines[1] == f"  left: m1 frames 151-190: {report.unfilled[0].reason}"  # the file's frame numbers
    filled = core.read(tmp_path / "filled.c3d")
    np.testing.assert_array_equal(filled.positions, expected.positions)
    assert not np.isnan(filled.positions[100:110, 0]).any() and np.isnan(filled.positions[150:190, 1]).all()


def test_fill_takes_a_method_and_any_gap_length_and_writes_trc(capsys, tmp_path, c3d):
    code, out, _ = run(capsys, "fill", c3d, tmp_path / "filled.trc", "--method", "spline", "--max-gap", "any")
    expected, report = core.fill_gaps(core.read(c3d), method="spline", max_gap=None)
    assert code == cli.OK and out.startswith(f"{tmp_path / 'filled.trc'}: {report}")
    assert {gap.method for gap in report.filled} == {"spline"}
    np.testing.assert_allclose(core.read(tmp_path / "filled.trc").positions, expected.positions, rtol=1e-6)


def test_filter_writes_the_cores_filter(capsys, tmp_path, c3d):
    output = tmp_path / "smooth.c3d"
    code, out, err = run(capsys, "filter", c3d, output, "--cutoff", 6, "--analog-cutoff", 40)
    assert code == cli.OK
    assert out == f"{output}: 6 markers at 6 Hz (order 4, forward and backward); 2 analog channels at 40 Hz\n"
    assert err == (
        "mocap-io: warning: 1 run of 15 frames or fewer between gaps left unfiltered (too short for the 15 frames "
        "of padding): m5 291-300\n"
    )
    with pytest.warns(UserWarning, match="left unfiltered"):
        expected = core.filter_markers(core.read(c3d), 6.0, analog_cutoff=40.0)
    smooth = core.read(output)
    np.testing.assert_array_equal(smooth.positions, expected.positions)
    np.testing.assert_array_equal(smooth.analog.values, expected.analog.values)


def test_filter_to_standard_output_prints_what_it_did_on_standard_error(capsys, tmp_path, c3d):
    code, out, err = run(capsys, "filter", c3d, "-", "--to", "trc", "--cutoff", 10, "-q")
    assert code == cli.OK and out.startswith("PathFileType") and not err


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["filter", "{c3d}", "{tmp}/x.c3d", "--cutoff", 60], cli.CANNOT, "cutoff 60 Hz must lie between 0 and half"),
        (["filter", "{c3d}", "{tmp}/x.c3d", "--cutoff", 6, "--order", 0], cli.USAGE, "must be 1 or more"),
        (["filter", "{c3d}", "{tmp}/x.c3d"], cli.USAGE, "--cutoff"),
        (["filter", "{c3d}", "{tmp}/x.bvh", "--cutoff", 6], cli.USAGE, "cannot write '.bvh' files"),
        (["fill", "{c3d}", "{tmp}/x.rib"], cli.USAGE, "cannot write '.rib' files"),
        (["fill", "{bvh}", "{tmp}/x.c3d"], cli.CANNOT, "markers"),
        (["fill", "{c3d}", "{tmp}/x.c3d", "--method", "magic"], cli.USAGE, "invalid choice"),
        (["fill", "{c3d}", "{tmp}/x.c3d", "--max-gap", "-1"], cli.USAGE, "must be positive"),
    ],
)
def test_bad_requests_are_refused_before_anything_is_written(capsys, tmp_path, c3d, arguments, code, message):
    core.write(random_motion(frames=5), tmp_path / "walk.bvh")
    names = {"c3d": c3d, "tmp": tmp_path, "bvh": tmp_path / "walk.bvh"}
    got, err = refused(capsys, *[str(a).format(**names) for a in arguments])
    assert got == code and message in err
    assert not list(tmp_path.glob("x.*"))


def test_batch_fills_then_filters_markers_and_reports_it(capsys, tmp_path, c3d):
    src = tmp_path / "src"
    src.mkdir()
    c3d.rename(src / "take.c3d")
    core.write(random_motion(frames=5), src / "walk.bvh")
    dst = tmp_path / "dst"
    arguments = ["--fill", "auto", "--max-gap", 0.5, "--filter", 6, "--order", 5]
    code, _, err = run(capsys, "batch", src, dst, "--to", "trc", "-j", 1, *arguments)
    assert code == cli.OK, err
    filled, report = core.fill_gaps(core.read(src / "take.c3d"), max_gap=0.5)
    with pytest.warns(UserWarning, match="left unfiltered"):
        expected = core.filter_markers(filled, 6.0, 5)
    np.testing.assert_allclose(core.read(dst / "take.trc").positions, expected.positions, rtol=1e-6)
    outcomes = {f["source"]: f for f in json.loads((dst / "mocap-io-report.json").read_text())["files"]}
    marker_outcome, motion_outcome = outcomes[str(src / "take.c3d")], outcomes[str(src / "walk.bvh")]
    filtered = "6 markers at 6 Hz (order 5, forward and backward); 2 analog channels kept"
    assert marker_outcome["cleanup"] == f"filled: {report}; filtered: {filtered}"
    assert any("left unfiltered" in w for w in marker_outcome["warnings"])
    assert motion_outcome["cleanup"].startswith("filled: no gaps; filtered: ")  # its joints' paths are markers
    with open(dst / "mocap-io-report.csv", newline="") as f:
        rows = {row["source"]: row for row in csv.DictReader(f)}
    assert rows[str(src / "take.c3d")]["cleanup"] == marker_outcome["cleanup"]


def test_batch_writes_other_kinds_as_they_are_with_a_warning(capsys, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    core.write(random_motion(frames=5), src / "walk.bvh")
    code, _, _ = run(capsys, "batch", src, tmp_path / "dst", "--to", "htr", "--filter", 6, "-j", 1)
    outcome = json.loads((tmp_path / "dst" / "mocap-io-report.json").read_text())["files"][0]
    assert code == cli.OK and outcome["status"] == "converted"
    assert outcome["warnings"] == ["--fill and --filter apply to markers: this motion is written as it is"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--fill", "auto"], "--fill and --filter apply to the files written: give --to"),
        (["{dst}", "--to", "trc", "--max-gap", 1], "--max-gap applies with --fill"),
        (["{dst}", "--to", "trc", "--order", 2], "--order and --analog-cutoff apply with --filter"),
        (["{dst}", "--to", "trc", "--fill", "magic"], "invalid choice"),
    ],
)
def test_batch_options_that_do_not_fit_are_usage_errors(capsys, tmp_path, c3d, arguments, message):
    arguments = [str(a).format(dst=tmp_path / "dst") for a in arguments]
    code, err = refused(capsys, "batch", c3d, *arguments)
    assert code == cli.USAGE and message in err and not (tmp_path / "dst").exists()


def test_help_shows_both_commands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "    fill " in out and "    filter " in out
    with pytest.raises(SystemExit):
        cli.main(["filter", "--help"])
    assert "mocap-io filter take.c3d smooth.c3d --cutoff 6" in capsys.readouterr().out


def test_the_docs_state_the_defaults():
    text = " ".join((pathlib.Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8").split())
    assert float(re.search(r"`--max-gap SECONDS` \(default ([\d.]+)\)", text)[1]) == MAX_GAP
    order = inspect.signature(core.filter_markers).parameters["order"].default
    assert int(re.search(r"a Butterworth of `--order` \((\d+)\)", text)[1]) == order
