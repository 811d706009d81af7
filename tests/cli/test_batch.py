"""`mocap-io batch` on a generated tree and on the corpus: every file's outcome in the JSON and CSV
reports, bad files reported without stopping the run, outputs resumed, the same outcomes on one
process, on a process pool and on a Dask local cluster (worker processes on this machine)."""

import csv
import io
import json
import os

import numpy as np
import pytest

from bvh_samples import random_motion
from command_line import run
from corpus_files import CORPUS, needs_corpus
from ensemble_samples import two_bars
from mocap_io import cli, core
from mocap_io.cli import batch
from mocap_io.core import formats
from sample_motion import cmu_like_motion


@pytest.fixture
def tree(tmp_path):
    """src/ with two motions, a malformed one, markers, a mesh animation on its mesh, and files
    batch leaves alone (a text file, a hidden folder)."""
    src = tmp_path / "src"
    for folder in ("a/b", "m", "cloth", ".hidden"):
        (src / folder).mkdir(parents=True)
    core.write(cmu_like_motion(core, 30), src / "a" / "walk.bvh")
    core.write(random_motion(frames=10), src / "a" / "b" / "run.bvh")
    (src / "a" / "bad.bvh").write_text("HIERARCHY\nROOT hips\n{\n  OFFSET 0 0\n}\n")
    core.write(
        core.Markers(["p", "q"], np.random.default_rng(0).normal(0, 9, (12, 2, 3)), 100.0), src / "m" / "take.trc"
    )
    animation = two_bars(frames=5)
    core.write(core.mesh.MeshAnimation(animation.mesh, 24, animation.positions()), src / "cloth" / "bars.pc2")
    core.write(animation.mesh, src / "cloth" / "bars.obj")
    (src / "notes.txt").write_text("not motion")
    core.write(random_motion(frames=3), src / ".hidden" / "x.bvh")
    return src


def statuses(report):
    return {os.path.relpath(f["source"], report["source"]): f["status"] for f in report["files"]}


def test_every_file_gets_an_outcome_and_bad_files_do_not_stop_the_run(capsys, tmp_path, tree):
    dst = tmp_path / "dst"
    code, out, err = run(capsys, "batch", tree, dst, "--to", "htr,trc", "-j", 1)
    assert code == cli.FILES_FAILED and not out
    report = json.loads((dst / "mocap-io-report.json").read_text())
    assert statuses(report) == {
        "a/bad.bvh": "error",
        "a/b/run.bvh": "converted",
        "a/walk.bvh": "converted",
        "cloth/bars.obj": "skipped",
        "cloth/bars.pc2": "skipped",
        "m/take.trc": "converted",
    }
    files = {os.path.relpath(f["source"], tree): f for f in report["files"]}
    assert files["a/bad.bvh"]["message"].startswith(
        f"{tree / 'a' / 'bad.bvh'}, line 5: expected 3 numbers after OFFSET"
    )
    assert files["cloth/bars.pc2"]["message"] == "no --to format holds mesh animations (.famc, .memg, .pc2, .rib do)"
    assert files["a/walk.bvh"]["output"] == str(dst / "a" / "walk.htr") and files["a/walk.bvh"]["frames"] == 30
    assert report["counts"] == {"error": 1, "converted": 3, "skipped": 2} and report["targets"] == [".htr", ".trc"]
    walk = core.read(tree / "a" / "walk.bvh").world_positions()
    np.testing.assert_allclose(core.read(dst / "a" / "walk.htr").world_positions(), walk, atol=1e-3)
    assert (dst / "a" / "b" / "run.htr").is_file() and (dst / "m" / "take.trc").is_file()
    assert not (dst / ".hidden").exists() and not (dst / "notes.txt").exists()
    with open(dst / "mocap-io-report.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["source"], r["status"], r["message"]) for r in rows] == [
        (f["source"], f["status"], f.get("message", "")) for f in report["files"]
    ]
    assert err.startswith("mocap-io: 6 files in ") and "3 converted" in err and "1 error" in err
    assert f"mocap-io: error: {tree / 'a' / 'bad.bvh'}, line 5:" in err


def test_a_second_run_resumes(capsys, tmp_path, tree):
    dst = tmp_path / "dst"
    run(capsys, "batch", tree, dst, "--to", "htr", "-j", 1)
    code, _, _ = run(capsys, "batch", tree, dst, "--to", "htr", "-j", 1, "--report", tmp_path / "again.json")
    report = json.loads((tmp_path / "again.json").read_text())
    assert code == cli.FILES_FAILED
    assert statuses(report) | {"a/bad.bvh": "error"} == statuses(report)
    assert [s for s in statuses(report).values()].count("up to date") == 2
    later = (dst / "a" / "walk.htr").stat().st_mtime_ns + 10**9
    os.utime(tree / "a" / "walk.bvh", ns=(later, later))  # edited since it was converted
    run(capsys, "batch", tree, dst, "--to", "htr", "-j", 1, "--report", tmp_path / "third.json")
    third = statuses(json.loads((tmp_path / "third.json").read_text()))
    assert third["a/walk.bvh"] == "converted" and third["a/b/run.bvh"] == "up to date"
    run(capsys, "batch", tree, dst, "--to", "htr", "-j", 1, "--force", "--report", tmp_path / "forced.json")
    forced = statuses(json.loads((tmp_path / "forced.json").read_text()))
    assert forced["a/walk.bvh"] == forced["a/b/run.bvh"] == "converted"


def test_processes_give_the_outcomes_of_one_process(capsys, tmp_path, tree):
    for jobs in (1, 2):
        code, _, _ = run(capsys, "batch", tree, tmp_path / f"out{jobs}", "--to", "bvh,c3d,memg", "-j", jobs, "-q")
        assert code == cli.FILES_FAILED
    one, two = (json.loads((tmp_path / f"out{j}" / "mocap-io-report.json").read_text()) for j in (1, 2))
    assert statuses(one) == statuses(two) and two["jobs"] == 2
    assert statuses(one)["cloth/bars.pc2"] == "converted" and statuses(one)["cloth/bars.obj"] == "skipped"
    for name in ("a/walk.bvh", "a/b/run.bvh", "m/take.c3d", "cloth/bars.memg", "cloth/bars.obj"):
        assert (tmp_path / "out1" / name).read_bytes() == (tmp_path / "out2" / name).read_bytes(), name


def test_without_targets_batch_describes_every_file(capsys, tree):
    code, out, err = run(capsys, "batch", tree, "-q")
    report = json.loads(out)
    assert code == cli.FILES_FAILED and set(statuses(report).values()) == {"described", "error"}
    described = {os.path.relpath(f["source"], tree): f for f in report["files"] if f["status"] == "described"}
    assert described["a/walk.bvh"]["info"]["joints"] == 31 and described["m/take.trc"]["info"]["markers"] == 2
    assert described["cloth/bars.pc2"]["info"]["kind"] == "mesh animation"


def test_outputs_two_files_would_share_are_errors(capsys, tmp_path, tree):
    core.write(random_motion(frames=4), tree / "a" / "walk.htr")
    code, out, _ = run(capsys, "batch", tree, tmp_path / "dst", "--to", "gtr", "--report", "-", "-j", 1)
    files = {os.path.relpath(f["source"], tree): f for f in json.loads(out)["files"]}
    assert files["a/walk.bvh"]["status"] == "converted"
    assert files["a/walk.htr"]["status"] == "error"
    assert (
        files["a/walk.htr"]["message"]
        == f"{tmp_path / 'dst' / 'a' / 'walk.gtr'} is already the output of {tree / 'a' / 'walk.bvh'}"
    )


def test_a_destination_inside_the_source_is_not_read_again(capsys, tree):
    for _ in range(2):
        code, _, _ = run(capsys, "batch", tree, tree / "out", "--to", "htr", "-j", 1, "-q")
    report = json.loads((tree / "out" / "mocap-io-report.json").read_text())
    assert not [f for f in report["files"] if "out" in os.path.relpath(f["source"], tree).split(os.sep)]


def test_arguments_that_do_not_fit_are_usage_errors(capsys, tmp_path, tree):
    assert run(capsys, "batch", tree, "--to", "htr")[0] == cli.USAGE
    assert run(capsys, "batch", tree, tmp_path / "dst")[0] == cli.USAGE
    code, _, err = run(capsys, "batch", tmp_path / "nowhere", tmp_path / "dst", "--to", "htr")
    assert code == cli.OS_ERROR and "nowhere: No such file or directory" in err


def test_the_progress_bar_draws_on_a_terminal_only():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    progress = batch.Progress(3, screen)
    for status in ("converted", "error", "converted"):
        progress.update({"status": status})
    progress.close()
    text = screen.getvalue()
    assert text.startswith("\r[") and "] 3/3 files, 1 error, " in text and text.endswith("\n")
    assert "#" * 30 in text
    quiet = io.StringIO()
    silent = batch.Progress(3, quiet)
    silent.update({"status": "converted"})
    silent.close()
    assert quiet.getvalue() == ""


def test_the_batch_machinery_is_the_plain_conversion(tmp_path, tree):
    tasks, known = batch.plan(str(tree), str(tmp_path / "dst"), [".htr"])
    assert [os.path.relpath(t["source"], tree) for t in tasks] == ["a/bad.bvh", "a/walk.bvh", "a/b/run.bvh"]
    assert len(known) == 3  # markers and meshes: no .htr
    outcome = batch.run_task(tasks[1])
    assert outcome["status"] == "converted" and outcome["warnings"] == [] and outcome["seconds"] > 0
    assert (tmp_path / "dst" / "a" / "walk.htr").is_file()


@needs_corpus
@pytest.mark.parametrize("strict", [True, False])
def test_the_corpus_converts_but_for_the_files_the_manifest_expects_to_fail(capsys, tmp_path, strict):
    readable = set(formats.extensions("read"))
    rows = [r for fmt in ("bvh", "asf", "amc", "htr", "c3d", "trc", "obj", "pc2") for r in _manifest(fmt)]
    rows = [r for r in rows if os.path.splitext(r["path"])[1].lower() in readable]
    failing = {r["path"] for r in rows if r["expect"].startswith("error:" if not strict else "error")}
    args = ["batch", CORPUS, tmp_path / "out", "--to", "htr,trc,pc2,obj", "--report", tmp_path / "r.json", "-q"]
    code, _, err = run(capsys, *args, *(["--strict"] if strict else []))
    report = json.loads((tmp_path / "r.json").read_text())
    outcome = {os.path.relpath(f["source"], CORPUS): f["status"] for f in report["files"]}
    assert code == cli.FILES_FAILED and len(err.splitlines()) == len(failing)
    assert outcome == {r["path"]: "error" if r["path"] in failing else "converted" for r in rows}
    assert len(failing) == (6 if strict else 4)


def _manifest(fmt):
    from corpus_files import manifest

    return manifest(fmt)


def test_a_dask_local_cluster_gives_the_outcomes_of_one_process(capsys, tmp_path, tree):
    distributed = pytest.importorskip("distributed")
    import dask

    run(capsys, "batch", tree, tmp_path / "local", "--to", "htr,trc", "-j", 1, "-q")
    scratch = {"temporary-directory": str(tmp_path / "scratch")}  # not the run's tempfile folder
    with (
        dask.config.set(scratch),
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
    ):
        address = cluster.scheduler_address
        code, _, _ = run(capsys, "batch", tree, tmp_path / "dask", "--to", "htr,trc", "--scheduler", address, "-q")
    local, remote = (json.loads((tmp_path / d / "mocap-io-report.json").read_text()) for d in ("local", "dask"))
    assert code == cli.FILES_FAILED and statuses(remote) == statuses(local)
    assert remote["scheduler"].startswith("tcp://127.0.0.1:") and remote["jobs"] is None
    for name in ("a/walk.htr", "a/b/run.htr", "m/take.trc"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes()


def test_without_dask_the_scheduler_option_says_how_to_install_it(capsys, tmp_path, tree, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)
    code, _, err = run(capsys, "batch", tree, tmp_path / "dst", "--to", "htr", "--scheduler", "tcp://127.0.0.1:1")
    assert code == cli.MISSING and "pip install 'mocap_io[batch]'" in err


def test_an_interrupted_batch_reports_the_files_done(capsys, tmp_path, tree, monkeypatch):
    real = batch.execute

    def interrupted(tasks, **options):
        outcomes = real(tasks, **options)
        yield next(outcomes)
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "execute", interrupted)
    code, _, err = run(capsys, "batch", tree, tmp_path / "dst", "--to", "htr", "-j", 1)
    report = json.loads((tmp_path / "dst" / "mocap-io-report.json").read_text())
    assert code == cli.INTERRUPTED and err.endswith("mocap-io: error: interrupted\n")
    assert report["interrupted"] and report["counts"] == {"error": 1, "skipped": 3}  # the first file: bad.bvh


def test_the_bar_counts_every_file_of_the_summary(capsys, tmp_path, tree, monkeypatch):
    monkeypatch.setattr(__import__("sys").stderr, "isatty", lambda: True)
    code, _, err = run(capsys, "batch", tree, tmp_path / "dst", "--to", "htr", "-j", 1)
    lines = err.replace("\r", "\n").splitlines()
    bars = [line for line in lines if line.startswith("[")]
    assert code == cli.FILES_FAILED and bars[-1].startswith("[" + "#" * 30 + "] 6/6 files, 1 error, ")
    summary = next(line for line in lines if line.startswith("mocap-io: 6 files in "))  # skipped files count
    assert all(count in summary for count in ("3 skipped", "1 error", "2 converted"))
    progress = batch.Progress(4, _Terminal())
    progress.skip([{"status": "skipped"}, {"status": "error"}])
    progress.update({"status": "converted"})
    progress.update({"status": "converted"})
    assert (progress.done, progress.skipped, progress.errors) == (4, 2, 1)
    assert "] 4/4 files, 1 error, " in progress.stream.getvalue()


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_what_a_lenient_read_cost_shows_on_the_terminal_and_in_the_reports(capsys, tmp_path, tree):
    core.write(random_motion(frames=30), tree / "a" / "short.bvh")
    lines = (tree / "a" / "short.bvh").read_text().splitlines(keepends=True)
    (tree / "a" / "short.bvh").write_text("".join(lines[:-20]))  # 10 of the 30 frames
    dst = tmp_path / "dst"
    code, _, err = run(capsys, "batch", tree, dst, "--to", "htr", "-j", 1, "--lenient")
    short = tree / "a" / "short.bvh"
    assert code == cli.FILES_FAILED
    assert f"mocap-io: warning: {short}: read in part: 20 of the 30 frames it declares dropped (10 read)\n" in err
    report = {
        os.path.relpath(f["source"], tree): f for f in json.loads((dst / "mocap-io-report.json").read_text())["files"]
    }
    assert (report["a/short.bvh"]["frames"], report["a/short.bvh"]["declared_frames"]) == (10, 30)
    assert "declared_frames" not in report["a/walk.bvh"]
    rows = {row["source"]: row for row in csv.DictReader(io.StringIO((dst / "mocap-io-report.csv").read_text()))}
    assert (rows[str(short)]["frames"], rows[str(short)]["declared_frames"]) == ("10", "30")
    assert "--lenient" not in err.split("read in part")[0]  # the strict run below names the option instead
    code, _, err = run(capsys, "batch", tree, tmp_path / "strict", "--to", "htr", "-j", 1, "-q")
    assert f"{short}, line " in err and "(--lenient reads the rows present)" in err and "strict=" not in err


def test_motions_go_to_a_markers_format_as_their_joint_paths(capsys, tmp_path, tree):
    code, _, _ = run(capsys, "batch", tree, tmp_path / "dst", "--to", "trc", "-j", 1, "-q")
    report = json.loads((tmp_path / "dst" / "mocap-io-report.json").read_text())
    assert code == cli.FILES_FAILED and statuses(report)["a/walk.bvh"] == "converted"
    markers, motion = core.read(tmp_path / "dst" / "a" / "walk.trc"), core.read(tree / "a" / "walk.bvh")
    assert markers.names == motion.skeleton.names
    np.testing.assert_allclose(markers.positions, motion.world_positions(), atol=1e-5)
    run(capsys, "batch", tree, tmp_path / "both", "--to", "htr,trc", "-j", 1, "-q")  # a motion's own format first
    assert (tmp_path / "both" / "a" / "walk.htr").is_file() and not (tmp_path / "both" / "a" / "walk.trc").exists()
