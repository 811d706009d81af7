"""The command line speaks its own language (issue 26, item 4): messages name its options, not the
core's keywords; exit codes as docs/cli.md states them, checked before any work; pictures in the
format their extension names; output folders made; a closed pipe ends quietly; feedback on a
terminal; motions to markers formats and markers resampled; units in `info --json` as data."""

import ast
import json
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from asf_samples import ASF
from bvh_samples import random_motion
from command_line import run
from corpus_files import CORPUS, needs_corpus
from ensemble_samples import two_bars
from mocap_io import cli, core
from mocap_io.cli import files
from sample_motion import cmu_like_motion

PIL = pytest.importorskip("PIL.Image")
CORE = pathlib.Path(core.__file__).parent
# keywords the core's messages name that no option of the command line sets, and why none is needed
NOT_OPTIONS = {
    "motion": "read_acclaim(x.asf, motion=...): the command reads an .amc with its .asf (--skeleton)",
    "metres": "read_acclaim(metres=True): the command keeps file units",
}


@pytest.fixture
def walk(tmp_path):
    path = tmp_path / "walk.bvh"
    core.write(cmu_like_motion(core, 48), path)
    return path


def truncated_bvh(path, frames=30, kept=10):
    """A BVH declaring `frames` frames that holds only `kept` rows."""
    core.write(random_motion(frames=frames), path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: len(lines) - (frames - kept)]))
    return path


def keywords_in_core_messages():
    """{keyword: message fragments} of every `keyword=` that a message of the core (a raise, a
    warning, a ParseError, a missing companion file) names."""
    found = {}
    for source in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if not (name in ("warn", "error") or name.endswith(("Error", "Warning", "companion"))):
                    continue
            elif not isinstance(node, ast.Raise):
                continue
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    for keyword in re.findall(r"\b([a-z_]+)=", part.value):
                        found.setdefault(keyword, []).append(part.value)
    return found


def test_every_keyword_a_core_message_names_is_an_option_or_needs_none():
    found = keywords_in_core_messages()
    assert {"strict", "skeleton", "obj", "grouping"} <= set(found)  # the scan finds them
    assert set(found) <= set(files.OPTIONS) | set(NOT_OPTIONS), "a core message names a keyword with no option"
    for keyword, fragments in found.items():
        if keyword in files.OPTIONS:
            for fragment in fragments:
                assert not re.search(rf"\b{keyword}=", files.in_our_words(fragment)), fragment
    assert files.in_our_words("x (strict=False reads the rows present)") == "x (--lenient reads the rows present)"
    assert files.in_our_words('no .asf: pass skeleton="x.asf"') == "no .asf: give --skeleton x.asf"
    assert files.in_our_words("several could be: pass skeleton=") == "several could be: give --skeleton ASF"
    assert files.in_our_words("no mesh; pass obj=...") == "no mesh; give --obj OBJ"
    assert files.in_our_words("encode with grouping='components'") == "encode with --grouping components"


def test_errors_and_warnings_name_the_options(capsys, tmp_path):
    short = truncated_bvh(tmp_path / "short.bvh")
    code, _, err = run(capsys, "info", short)
    assert code == cli.BAD_INPUT and err.endswith(
        "file ends after 10 of the 30 frames declared (--lenient reads the rows present)\n"
    )
    markers = core.Markers(["a", "b"], np.random.default_rng(1).normal(0, 100, (20, 2, 3)), 100.0, units="mm")
    core.write(markers, tmp_path / "cut.c3d")
    data = (tmp_path / "cut.c3d").read_bytes()
    (tmp_path / "cut.c3d").write_bytes(data[: len(data) - 512 - 40])  # the last frames, and part of one
    code, _, err = run(capsys, "info", tmp_path / "cut.c3d", "--strict")
    assert code == cli.BAD_INPUT and re.search(r"of the 20 declared \(--lenient reads \d+\)\n$", err), err
    (tmp_path / "takes").mkdir()
    amc = tmp_path / "takes" / "01_01.amc"
    core.write(random_motion(frames=3), tmp_path / "takes" / "01.asf")  # writes 01.asf and 01.amc
    (tmp_path / "takes" / "01.amc").rename(amc)
    (tmp_path / "takes" / "01.asf").rename(tmp_path / "01.asf")
    code, _, err = run(capsys, "info", amc)
    assert code == cli.OS_ERROR and err.endswith("(no .asf file in its folder); give --skeleton x.asf\n")
    assert f"error: {tmp_path / 'takes' / '*.asf'}: No such file or directory: the skeleton of {amc} " in err
    assert "skeleton=" not in err
    for name in ("a.asf", "b.asf"):
        (tmp_path / "takes" / name).write_bytes((tmp_path / "01.asf").read_bytes())
    code, _, err = run(capsys, "info", amc)
    assert code == cli.USAGE and err.endswith("could be its skeleton (a.asf, b.asf): give --skeleton ASF\n")
    code, out, _ = run(capsys, "info", amc, "--skeleton", tmp_path / "01.asf", "--json")
    assert code == 0 and json.loads(out)["frames"] == 3
    code, _, err = run(capsys, "info", tmp_path / "01.asf", "--skeleton", tmp_path / "01.asf")  # an .amc's option
    assert code == 0 and not err


def test_a_cache_without_its_mesh_is_a_missing_file_named_with_the_option(capsys, tmp_path):
    animation = core.mesh.MeshAnimation(two_bars(frames=4).mesh, 24, two_bars(frames=4).positions())
    core.write(animation, tmp_path / "bars.pc2")
    code, _, err = run(capsys, "info", tmp_path / "bars.pc2")
    assert code == cli.OS_ERROR and "malformed" not in err
    assert err == (
        f"mocap-io: error: {tmp_path / 'bars.obj'}: No such file or directory: the mesh of {tmp_path / 'bars.pc2'} "
        "(a PC2 cache holds no faces); give --obj OBJ\n"
    )
    core.write(animation.mesh, tmp_path / "mesh.obj")
    assert run(capsys, "info", tmp_path / "bars.pc2", "--obj", tmp_path / "mesh.obj")[0] == 0


def test_mesh_ensembles_group_by_the_obj_groups_or_by_connected_parts(capsys, tmp_path):
    bars = two_bars(frames=6)
    positions = bars.positions()
    core.write(core.mesh.MeshAnimation(bars.mesh, 24, positions), tmp_path / "bars.pc2")
    core.write(bars.mesh, tmp_path / "bars.obj")
    code, _, err = run(capsys, "convert", tmp_path / "bars.pc2", tmp_path / "parts.memg", "--grouping", "components")
    parts = core.read(tmp_path / "parts.memg")
    assert code == 0 and not err and sorted(g.name for g in parts.groups) == ["part0", "part1"]
    positions[:, -1] += 1.0  # the vertex in no face moves: no grouping holds it
    core.write(core.mesh.MeshAnimation(bars.mesh, 24, positions), tmp_path / "bars.pc2")
    code, _, err = run(capsys, "convert", tmp_path / "bars.pc2", tmp_path / "bars.memg")
    assert code == cli.CANNOT and err.endswith(
        "vertices in no face move (vertex 48): a mesh ensemble moves its faces' vertices only\n"
    )
    code, _, err = run(capsys, "convert", tmp_path / "bars.pc2", tmp_path / "bars.htr", "--grouping", "groups")
    assert code == cli.CANNOT  # a mesh animation is not a motion: refused before any reading


def test_exit_codes_are_the_documented_ones_and_lists_hold_what_the_command_can_do(capsys, tmp_path, walk):
    markers = core.Markers(["a"], np.zeros((3, 1, 3)), 100.0)
    core.write(markers, tmp_path / "m.trc")
    readable = ".amc, .asf, .bvh, .c3d, .famc, .gtr, .htr, .memg, .obj, .pc2, .trc"
    cases = [
        (("info", tmp_path / "x.xyz"), cli.USAGE, f"x.xyz: cannot read '.xyz' files (info reads {readable})"),
        (("info", tmp_path / "x.rib"), cli.USAGE, f"x.rib: cannot read '.rib' files (info reads {readable})"),
        (("info", "-", "--from", "xyz"), cli.USAGE, f"<stdin>: cannot read '.xyz' files (info reads {readable})"),
        (
            ("resample", tmp_path / "x.xyz", tmp_path / "y.bvh", "--fps", 30),
            cli.USAGE,
            "(resample reads .amc, .asf, .bvh, .c3d, .gtr, .htr, .trc)",
        ),
        (
            ("convert", walk, tmp_path / "x.xyz"),
            cli.USAGE,
            "x.xyz: cannot write '.xyz' files (convert writes .amc, .asf, .bvh, .c3d, .gtr, .htr, .rib, .trc)",
        ),
        (("convert", walk, "-"), cli.USAGE, "output '-' needs its format: --to EXT"),
        (("convert", walk, tmp_path), cli.USAGE, f"{tmp_path}: is a folder: name the file to write in it"),
        (("info", tmp_path), cli.USAGE, f"{tmp_path}: is a folder, not a file (batch converts the files of a folder)"),
        (("rib", walk, tmp_path / "x.png"), cli.USAGE, "x.png: cannot write '.png' files (rib writes .rib)"),
        (("preview", walk, tmp_path / "x.bmp"), cli.USAGE, "preview writes .png, .jpg, .jpeg, .webp, .gif"),
        (
            ("convert", tmp_path / "m.trc", tmp_path / "x.bvh"),
            cli.CANNOT,
            "x.bvh: .bvh files hold motions, not markers (markers go to .c3d, .rib, .trc)",
        ),
        (("retarget", walk, tmp_path / "m.trc", tmp_path / "x.bvh"), cli.CANNOT, "retarget works on motions"),
        (("info", tmp_path / "nothing.bvh"), cli.OS_ERROR, "nothing.bvh: No such file or directory"),
    ]
    for args, expected, message in cases:
        code, out, err = run(capsys, *args)
        assert (code, out) == (expected, ""), (args, err)
        assert err.startswith("mocap-io: error: ") and message in err and err.count("\n") == 1, (args, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.trc", "walk.bvh"]  # nothing written


def test_preview_writes_the_format_its_extension_names(capsys, tmp_path, walk):
    for name, kind in (("p.png", "PNG"), ("p.jpg", "JPEG"), ("p.JPEG", "JPEG"), ("p.webp", "WEBP"), ("p.gif", "GIF")):
        code, _, err = run(capsys, "preview", walk, tmp_path / name, "--size", "320x200")
        assert code == 0 and not err
        with PIL.open(tmp_path / name) as image:
            assert image.format == kind and image.size == (320, 200)
    code, _, err = run(capsys, "preview", walk, walk, tmp_path / "both.jpg", "--size", "600x400")
    with PIL.open(tmp_path / "both.jpg") as image:
        assert code == 0 and image.format == "JPEG" and image.size == (600, 400)
    code, _, err = run(capsys, "preview", walk, tmp_path / "p.tiff")
    assert code == cli.USAGE and not (tmp_path / "p.tiff").exists()


def test_outputs_go_into_folders_made_for_them(capsys, tmp_path, walk):
    animation = core.mesh.MeshAnimation(two_bars(frames=5).mesh, 24, two_bars(frames=5).positions())
    core.write(animation, tmp_path / "bars.memg")
    code, _, err = run(capsys, "convert", tmp_path / "bars.memg", tmp_path / "seq" / "deep" / "bars_####.obj")
    assert code == 0 and not err and len(list((tmp_path / "seq" / "deep").glob("bars_*.obj"))) == 5
    assert run(capsys, "preview", walk, tmp_path / "pictures" / "walk.png", "--size", "200x100")[0] == 0
    assert (tmp_path / "pictures" / "walk.png").is_file()
    assert run(capsys, "rib", walk, tmp_path / "rib" / "walk_####.rib", "--frames", "1-2")[0] == 0
    assert (tmp_path / "rib" / "walk_0002.rib").is_file()


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    core.write(cmu_like_motion(core, 3000), tmp_path / "long.bvh")  # megabytes: more than a pipe holds
    with subprocess.Popen(
        [sys.executable, "-m", "mocap_io", "convert", tmp_path / "long.bvh", "-", "--to", "htr"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        first = child.stdout.readline()
        child.stdout.close()  # as `| head -1` does
        error = child.stderr.read()
        assert child.wait(timeout=120) == cli.BROKEN_PIPE == 141
    assert first.startswith(b"# Hierarchical Translation-Rotation") and error == b""


def terminal(monkeypatch, stream):
    monkeypatch.setattr(stream, "isatty", lambda: True)


def test_convert_resample_and_retarget_say_what_they_wrote_on_a_terminal(capsys, tmp_path, walk, monkeypatch):
    code, out, err = run(capsys, "convert", walk, tmp_path / "a.htr")
    assert (code, out, err) == (0, "", "")  # not a terminal: silent
    terminal(monkeypatch, sys.stdout)
    code, out, err = run(capsys, "convert", walk, tmp_path / "b.htr")
    assert (code, out, err) == (0, f"wrote {tmp_path / 'b.htr'}: 48 frames at 120 fps, 31 joints\n", "")
    code, out, _ = run(capsys, "convert", walk, tmp_path / "b.c3d")
    assert out == f"wrote {tmp_path / 'b.c3d'}: 48 frames at 120 fps, 31 markers (the joints' paths)\n"
    code, out, _ = run(capsys, "resample", walk, tmp_path / "c.bvh", "--fps", 30)
    assert out == f"wrote {tmp_path / 'c.bvh'}: 12 frames at 30 fps, 31 joints\n"
    code, out, _ = run(capsys, "retarget", walk, walk, tmp_path / "d.bvh")
    assert out == f"wrote {tmp_path / 'd.bvh'}: 48 frames at 120 fps, 31 joints\n"
    animation = core.mesh.MeshAnimation(two_bars(frames=5).mesh, 24, two_bars(frames=5).positions())
    core.write(animation, tmp_path / "bars.memg")
    code, out, _ = run(capsys, "convert", tmp_path / "bars.memg", tmp_path / "s" / "bars_##.obj")
    assert out == f"wrote {tmp_path / 's' / 'bars_##.obj'}: 5 frames at 24 fps, 49 vertices (5 files)\n"
    assert run(capsys, "convert", walk, tmp_path / "e.htr", "-q")[1] == ""
    code, out, _ = run(capsys, "convert", walk, "-", "--to", "htr")
    assert out.startswith("# Hierarchical") and "wrote" not in out  # the data itself goes to the terminal


def test_a_gif_preview_shows_its_progress_on_a_terminal(capsys, tmp_path, walk, monkeypatch):
    code, _, err = run(capsys, "preview", walk, tmp_path / "a.gif", "--gif-fps", 10)
    assert code == 0 and err == ""
    terminal(monkeypatch, sys.stderr)
    code, _, err = run(capsys, "preview", walk, tmp_path / "b.gif", "--gif-fps", 10)
    assert code == 0 and err.startswith("\r[") and "] 4/4 frames, " in err and err.endswith("\n")
    assert run(capsys, "preview", walk, tmp_path / "c.gif", "-q")[2] == ""


def test_convert_writes_a_motion_to_markers_formats_as_its_joint_paths(capsys, tmp_path, walk):
    motion = core.read(walk)
    for name in ("walk.c3d", "walk.trc"):
        code, _, err = run(capsys, "convert", walk, tmp_path / name)
        markers = core.read(tmp_path / name)
        assert code == 0 and not err and markers.names == motion.skeleton.names
        assert (markers.frame_count, markers.rate, markers.first_frame) == (48, 120.0, 1)
        np.testing.assert_allclose(markers.positions, motion.world_positions(), rtol=1e-6, atol=1e-4)
    code, _, err = run(capsys, "convert", walk, tmp_path / "x.pc2")
    assert code == cli.CANNOT and ".pc2 files hold mesh animations, not motions" in err


def test_resample_markers_keeps_the_frames_it_meets_and_the_gaps(capsys, tmp_path):
    positions = np.random.default_rng(3).normal(0, 500, (40, 3, 3)).astype(np.float32)
    positions[10:13, 1] = np.nan
    core.write(core.Markers(["a", "b", "c"], positions, 100.0, units="mm"), tmp_path / "m.c3d")
    code, _, err = run(capsys, "resample", tmp_path / "m.c3d", tmp_path / "half.c3d", "--fps", 50)
    half = core.read(tmp_path / "half.c3d")
    assert code == 0 and not err and (half.frame_count, half.rate, half.units) == (20, 50.0, "mm")
    assert np.array_equal(half.positions, positions[::2], equal_nan=True)  # float32, bit for bit
    code, _, err = run(
        capsys, "resample", tmp_path / "m.c3d", tmp_path / "more.trc", "--fps", 200, "--rotation", "spline"
    )
    more = core.read(tmp_path / "more.trc")
    assert code == 0 and err == "mocap-io: warning: --rotation does not apply to markers: ignored\n"
    assert more.frame_count == 79 and more.rate == 200.0
    np.testing.assert_allclose(more.positions[::2], positions, atol=1e-4)
    seen = ~np.isnan(more.positions[:, 1, 0])
    assert list(np.flatnonzero(~seen)) == list(range(19, 26))  # frames 10-12 at 100 Hz and the halves around them
    np.testing.assert_allclose(more.positions[1, 0], (positions[0, 0] + positions[1, 0]) / 2, atol=1e-4)


def test_info_json_gives_units_as_data(capsys, tmp_path, walk):
    core.write(core.Markers(["a"], np.zeros((2, 1, 3)), 100.0, units="mm"), tmp_path / "m.c3d")
    core.write(core.read(walk), tmp_path / "walk.asf")
    code, out, _ = run(capsys, "info", "--json", walk, tmp_path / "m.c3d", tmp_path / "walk.amc")
    bvh, c3d, amc = (json.loads(line)["units"] for line in out.splitlines())
    assert code == 0 and bvh is None and c3d == {"length": "mm", "scale": 1.0}
    assert set(amc) == {"length", "scale"} and amc["length"] == "m" and isinstance(amc["scale"], float)
    code, out, _ = run(capsys, "info", tmp_path / "m.c3d")
    assert re.search(r"^units +mm$", out, re.M)


@needs_corpus
def test_info_json_gives_the_asf_unit_in_metres(capsys):
    code, out, _ = run(capsys, "info", "--json", CORPUS / "asfamc/cmu/02_03.amc")
    assert code == 0 and json.loads(out)["units"] == {"length": "m", "scale": pytest.approx(0.0564444, rel=1e-6)}
    code, out, _ = run(capsys, "info", CORPUS / "asfamc/cmu/02_03.amc")
    assert re.search(r"^units +0\.0564444 m$", out, re.M)


def test_a_readers_note_reads_as_a_note_and_its_warning_as_a_warning(capsys, tmp_path):
    path = tmp_path / "s.asf"
    path.write_text(ASF.replace("bodymass 3.5", "bodymass 3.5\n     colour red"))
    code, _, err = run(capsys, "info", path)
    kinds = {line.rsplit(": ", 1)[1]: line.split(": ", 2)[1] for line in err.splitlines()}
    assert code == 0 and kinds == {
        "unknown bone entry 'colour' kept": "note",
        "unknown section ':skin' skipped": "warning",
    }
