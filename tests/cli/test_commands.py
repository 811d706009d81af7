"""The `mocap-io` command on small generated files and corpus files: what each subcommand writes
(checked against the core and against files read back), '-' for stdin and stdout, exit codes and
messages for bad input (no traceback unless --debug)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from bvh_samples import random_motion
from command_line import run
from corpus_files import CORPUS, needs_corpus
from ensemble_samples import two_bars
from mocap_io import cli, core
from sample_motion import cmu_like_motion, restyled_skeleton

PIL = pytest.importorskip("PIL.Image")


def command(*args, stdin=None):
    """`python -m mocap_io args` in a child process: (exit code, stdout bytes, stderr text)."""
    done = subprocess.run([sys.executable, "-m", "mocap_io", *map(str, args)], input=stdin, capture_output=True)
    return done.returncode, done.stdout, done.stderr.decode()


@pytest.fixture
def walk(tmp_path):
    path = tmp_path / "walk.bvh"
    core.write(cmu_like_motion(core, 48), path)
    return path


def test_help_lists_every_command_its_examples_and_the_exit_codes():
    code, out, err = command("--help")
    assert code == 0 and not err
    text = out.decode()
    for name in ("info", "convert", "resample", "retarget", "preview", "batch", "rib"):
        assert f"    {name}" in text
    assert "exit codes:" in text and "70   internal error" in text
    code, out, _ = command("batch", "--help")
    assert code == 0 and b"mocap-io batch mocap/ out/ --to htr --report report.json" in out
    assert b"--scheduler tcp://HOST:PORT" in out
    console = pathlib.Path(sys.executable).parent / "mocap-io"
    assert subprocess.run([console, "--version"], capture_output=True, text=True).stdout.startswith("mocap-io ")


def test_info_table_and_json_agree_with_the_core(capsys, walk):
    motion = core.read(walk)
    code, out, err = run(capsys, "info", walk)
    assert code == 0 and not err
    rows = dict(line.split("  ", 1) for line in out.splitlines())
    assert rows["kind"].strip() == "motion" and rows["joints"].strip() == "31" and rows["frames"].strip() == "48"
    assert rows["fps"].strip() == f"{motion.fps:.10g} (Frame Time {motion.frame_time_text})"
    assert rows["units"].strip() == "not stated" and rows["up axis"].strip() == "+Y"
    assert (
        rows["channels"].strip()
        == "1 x Xposition Yposition Zposition Zrotation Xrotation Yrotation; 30 x Zrotation Xrotation Yrotation"
    )
    code, out, _ = run(capsys, "info", walk, "--json")
    info = json.loads(out)
    points = np.concatenate([motion.world_positions(), motion.end_site_positions()], axis=1).reshape(-1, 3)
    np.testing.assert_allclose(info["bounds"]["min"], points.min(axis=0), rtol=1e-5)
    np.testing.assert_allclose(info["bounds"]["max"], points.max(axis=0), rtol=1e-5)
    assert info["duration"] == 48 / motion.fps and info["roots"] == ["Hips"] and info["end_sites"] == 7
    assert info["channels"][0] == {"channels": list(motion.skeleton.channels[0]), "joints": ["Hips"]}


@needs_corpus
def test_info_on_corpus_files_of_every_kind(capsys):
    files = [
        CORPUS / "htr/animal3d-egnaro/egnaro_skel_anim.htr",
        CORPUS / "asfamc/cmu/02_03.amc",
        CORPUS / "c3d/btk-c3d.org-sample02/pc_real.c3d",
        CORPUS / "mesh/gl-geometry-cloth/basicCloth.pc2",
        CORPUS / "mesh/gl-geometry-cloth/basicCloth.obj",
    ]
    code, out, _ = run(capsys, "info", "--json", *files)
    htr, amc, c3d, pc2, obj = (json.loads(line) for line in out.splitlines())
    assert code == 0
    mm = {"length": "mm", "scale": 1.0}
    assert (htr["kind"], htr["joints"], htr["frames"], htr["fps"], htr["units"]) == ("motion", 89, 81, 24.0, mm)
    assert htr["scales"] and amc["frames"] == 173
    assert amc["units"] == {"length": "m", "scale": pytest.approx(0.0254 / 0.45, rel=1e-12)}  # ASF length 0.45
    assert (c3d["kind"], c3d["markers"], c3d["frames"], c3d["fps"], c3d["units"]) == ("markers", 36, 89, 50.0, mm)
    assert c3d["up_axis"] == "+Z" and c3d["analog_channels"] > 0
    assert (pc2["kind"], pc2["vertices"], pc2["faces"], pc2["frames"]) == ("mesh animation", 81, 128, 150)
    assert (obj["kind"], obj["vertices"], obj["faces"]) == ("mesh", 81, 128) and "frames" not in obj


def test_convert_between_motion_formats_keeps_the_world(capsys, tmp_path, walk):
    for target in ("walk.htr", "walk.gtr", "walk.asf", "back.bvh"):
        code, _, err = run(capsys, "convert", walk, tmp_path / target)
        assert code == 0 and not err, err
    source = core.read(walk)
    original = source.world_positions()
    for name in ("walk.htr", "walk.gtr", "walk.amc", "back.bvh"):
        motion = core.read(tmp_path / name)
        names = [n if n in motion.skeleton.names else "root" for n in source.skeleton.names]  # ASF: "root"
        joints = [motion.skeleton.index(n) for n in names]  # (and bridge bones of its own)
        np.testing.assert_allclose(motion.world_positions()[:, joints], original, atol=1e-3)
    code, _, _ = run(capsys, "convert", tmp_path / "walk.htr", tmp_path / "again.bvh", "--rotation-order", "XYZ")
    again = core.read(tmp_path / "again.bvh")
    assert code == 0 and set(again.euler_orders) == {"XYZ"}
    np.testing.assert_allclose(again.world_positions(), original, atol=1e-3)
    code, _, err = run(capsys, "convert", walk, tmp_path / "x.htr", "--rotation-order", "XYZ")
    assert code == 0 and err == "mocap-io: warning: --rotation-order does not apply to .htr files: ignored\n"


def test_convert_mesh_animations_between_pc2_memg_and_obj_sequences(capsys, tmp_path):
    animation = core.mesh.MeshAnimation(two_bars(frames=8).mesh, 24, two_bars(frames=8).positions())
    core.write(animation, tmp_path / "bars.pc2")
    core.write(animation.mesh, tmp_path / "bars.obj")
    assert run(capsys, "convert", tmp_path / "bars.pc2", tmp_path / "bars.memg", "--tolerance", "1e-6")[0] == 0
    assert run(capsys, "convert", tmp_path / "bars.memg", tmp_path / "seq" / "bars_###.obj")[0] == 0  # seq/ made
    assert len(list((tmp_path / "seq").glob("bars_*.obj"))) == 8
    code, _, err = run(capsys, "convert", tmp_path / "seq" / "bars_###.obj", tmp_path / "back.pc2", "--input-fps", "30")
    assert code == 0 and not err
    back = core.read(tmp_path / "back.pc2", obj=tmp_path / "bars.obj", fps=30)
    np.testing.assert_allclose(back.positions(), animation.positions(), atol=1e-4)


def test_convert_to_and_from_famc(capsys, tmp_path):
    animation = core.mesh.MeshAnimation(two_bars(frames=8).mesh, 24, two_bars(frames=8).positions())
    core.write(animation, tmp_path / "bars.memg")
    assert run(capsys, "convert", tmp_path / "bars.memg", tmp_path / "bars.famc", "--tolerance", "1e-4")[0] == 0
    source = core.read(tmp_path / "bars.memg").positions()
    error = np.linalg.norm(core.read(tmp_path / "bars.famc").positions() - source, axis=-1)
    assert error.max() <= 1e-4 * core.mesh.diagonal(source)
    code, out, _ = run(capsys, "info", tmp_path / "bars.famc", "--json")
    info = json.loads(out)
    assert code == 0 and (info["frames"], info["fps"], info["segments"], info["byte_order"]) == (8, 24, 1, "standard")
    assert run(capsys, "convert", tmp_path / "bars.famc", tmp_path / "back.pc2")[0] == 0
    back = core.read(tmp_path / "back.pc2", obj=tmp_path / "bars.obj", fps=24)
    np.testing.assert_allclose(back.positions(), core.read(tmp_path / "bars.famc").positions(), atol=1e-5)


def test_convert_markers_and_refuse_other_kinds(capsys, tmp_path):
    positions = np.random.default_rng(0).normal(0, 500, (20, 3, 3))
    core.write(core.Markers(["a", "b", "c"], positions, 100.0, units="mm"), tmp_path / "m.trc")
    assert run(capsys, "convert", tmp_path / "m.trc", tmp_path / "m.c3d")[0] == 0
    np.testing.assert_allclose(core.read(tmp_path / "m.c3d").positions, positions, rtol=1e-6, atol=1e-3)
    code, out, err = run(capsys, "convert", tmp_path / "m.c3d", tmp_path / "m.bvh")
    assert code == cli.CANNOT and not out
    message = ".bvh files hold motions, not markers (markers go to .c3d, .rib, .trc)"
    assert err == f"mocap-io: error: {tmp_path / 'm.bvh'}: {message}\n"
    assert not (tmp_path / "m.bvh").exists()


def test_stdin_and_stdout_take_a_format(tmp_path, walk):
    code, out, err = command("convert", "-", "-", "--from", "bvh", "--to", "htr", stdin=walk.read_bytes())
    assert code == 0 and not err
    core.write(core.read(walk), tmp_path / "direct.htr")
    assert out == (tmp_path / "direct.htr").read_bytes()
    code, out, _ = command("info", "-", "--from", "htr", "--json", stdin=out)
    assert code == 0 and json.loads(out)["file"] == "<stdin>" and json.loads(out)["frames"] == 48
    assert json.loads(out)["format"] == "htr"
    code, out, err = command("convert", walk, "-")
    assert code == cli.USAGE and not out and "output '-' needs its format: --to EXT" in err
    code, out, err = command("convert", walk, "-", "--to", "asf")
    assert code == cli.CANNOT and not out and ".asf writes more than one file" in err
    code, _, err = command("info", "-", "--from", "bvh", stdin=b"HIERARCHY\nROOT x\n{\n")
    assert code == cli.BAD_INPUT and err.startswith("mocap-io: error: <stdin>, line ") and "Traceback" not in err


def test_resample_keeps_the_frames_it_meets(capsys, tmp_path, walk):
    code, _, _ = run(capsys, "resample", walk, tmp_path / "30.bvh", "--fps", 30)
    source, out = core.read(walk), core.read(tmp_path / "30.bvh")
    assert code == 0 and out.fps == pytest.approx(30, rel=1e-6) and out.frame_count == 12
    np.testing.assert_allclose(out.world_positions(), source.world_positions()[::4], atol=1e-4)
    code, _, _ = run(capsys, "resample", walk, tmp_path / "spline.htr", "--fps", 240, "--rotation", "spline")
    assert code == 0 and core.read(tmp_path / "spline.htr").frame_count == 95


def test_resample_needs_a_rate_and_a_motion(tmp_path, walk):
    code, _, err = command("resample", walk, tmp_path / "x.bvh")
    assert code == cli.USAGE and "--fps" in err
    animation = core.mesh.MeshAnimation(two_bars(frames=4).mesh, 24, two_bars(frames=4).positions())
    core.write(animation, tmp_path / "bars.pc2")
    code, _, err = command("resample", tmp_path / "bars.pc2", tmp_path / "x.pc2", "--fps", 50)
    assert code == cli.CANNOT and ".pc2 files hold mesh animations; resample works on motions and markers" in err


def test_retarget_with_the_found_map_and_a_preset(capsys, tmp_path, walk):
    source = core.read(walk)
    names = {n: "mixamorig:" + n for n in source.skeleton.names}
    rig = restyled_skeleton(core, source.skeleton, names=names, scale=0.01, seed=4)
    still = core.Motion(rig, 30, np.zeros((1, 31, 3)), ["ZXY"] * 31, rig.offsets[None])
    core.write(still, tmp_path / "rig.htr")
    target = core.read(tmp_path / "rig.htr").skeleton
    preset = tmp_path / "map.json"
    code, _, err = run(capsys, "retarget", walk, tmp_path / "rig.htr", tmp_path / "out.htr", "--save-map", preset)
    assert code == 0 and not err
    bone_map = json.loads(preset.read_text())
    assert bone_map["LeftForeArm"] == "mixamorig:LeftForeArm" and len(bone_map) >= 25
    expected = core.retarget(source, target, bone_map)
    np.testing.assert_allclose(core.read(tmp_path / "out.htr").world_positions(), expected.world_positions(), atol=1e-5)
    preset.write_text(json.dumps({"Hips": "mixamorig:Hips", "LeftUpLeg": "mixamorig:LeftUpLeg"}))
    code, _, _ = run(
        capsys, "retarget", walk, tmp_path / "rig.htr", tmp_path / "two.bvh", "--map", preset, "--root-scale", 2
    )
    expected = core.retarget(source, target, json.loads(preset.read_text()), root_scale=2.0)
    assert code == 0
    np.testing.assert_allclose(core.read(tmp_path / "two.bvh").world_positions(), expected.world_positions(), atol=1e-4)
    preset.write_text("{not json")
    code, _, err = run(capsys, "retarget", walk, tmp_path / "rig.htr", tmp_path / "bad.bvh", "--map", preset)
    assert code == cli.BAD_INPUT and "map.json, line 1: expected a JSON object" in err


def pixels(path):
    with PIL.open(path) as image:
        return image.size, np.asarray(image.convert("RGB"), dtype=int)


def test_preview_png_has_the_size_asked_and_shows_the_motion(capsys, tmp_path, walk):
    other = tmp_path / "other.bvh"
    core.write(cmu_like_motion(core, 48, seed=7), other)
    for source, name in ((walk, "walk.png"), (other, "other.png")):
        code, _, err = run(capsys, "preview", source, tmp_path / name, "--size", "640x400")
        assert code == 0 and not err
    (size, a), (_, b) = pixels(tmp_path / "walk.png"), pixels(tmp_path / "other.png")
    assert size == (640, 400)
    assert np.count_nonzero((a != b).any(axis=-1)) > 1000  # two motions, two pictures
    assert np.count_nonzero((a != 255).any(axis=-1)) > 0.02 * a.shape[0] * a.shape[1]  # figures, not a blank page
    code, _, _ = run(capsys, "preview", walk, tmp_path / "again.png", "--size", "640x400")
    assert (pixels(tmp_path / "again.png")[1] == a).all()  # the same motion draws the same picture


def test_preview_gif_plays_and_meshes_and_markers_draw(capsys, tmp_path, walk):
    code, _, _ = run(capsys, "preview", walk, tmp_path / "walk.gif", "--gif-fps", 10)
    with PIL.open(tmp_path / "walk.gif") as gif:
        assert gif.n_frames == 4 and gif.info["duration"] == 100 and gif.size == (960, 360)  # 48 frames at 120 fps
    assert code == 0
    animation = core.mesh.MeshAnimation(two_bars().mesh, 24, two_bars().positions())
    core.write(animation, tmp_path / "bars.pc2")
    core.write(animation.mesh, tmp_path / "bars.obj")
    markers = core.Markers(["a", "b"], np.random.default_rng(0).normal(0, 1, (10, 2, 3)), 60.0)
    core.write(markers, tmp_path / "m.trc")
    for source in ("bars.pc2", "bars.obj", "m.trc"):
        code, _, err = run(capsys, "preview", tmp_path / source, tmp_path / f"{source}.png", "--size", "300x200")
        assert code == 0 and not err and pixels(tmp_path / f"{source}.png")[0] == (300, 200)


def test_preview_without_pillow_says_how_to_install_it(capsys, tmp_path, walk, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    code, _, err = run(capsys, "preview", walk, tmp_path / "walk.png")
    assert code == cli.MISSING and "pip install 'mocap_io[preview]'" in err and not (tmp_path / "walk.png").exists()


def z_up_metres(motion):
    """`motion` (centimetres, Y up, BVH's identity rest) in metres and turned Z up (Blender's axes): the
    same walk as another tool would store it."""
    turn, skeleton = core.rotations.axis_rotation("X", np.pi / 2), motion.skeleton
    metres = core.Skeleton(
        skeleton.names,
        skeleton.parents,
        skeleton.offsets / 100,
        channels=skeleton.channels,
        end_site_parents=skeleton.end_site_parents,
        end_site_offsets=np.asarray(skeleton.end_site_offsets) / 100,
    )
    euler, order = motion.euler.copy(), motion.euler_orders[0]
    euler[:, 0] = core.rotations.matrix_to_euler(turn @ core.rotations.euler_to_matrix(euler[:, 0], order), order)
    translations = motion.translations / 100
    translations[:, 0] = translations[:, 0] @ turn.T
    return core.Motion(metres, motion.fps, euler, motion.euler_orders, translations)


def figure_pixels(image, left):
    """Masks (H, W) of the pixels of the first figure (blue) and the second (red), right of `left`."""
    r, g, b = np.moveaxis(image, -1, 0)
    blue, red = (b > r + 40) & (b > g + 20), (r > b + 40) & (r > g + 40)
    blue[:, :left] = red[:, :left] = False
    return blue, red


def floor_lines(image):
    """The image rows drawn as a floor line across most of the image (one per row of poses)."""
    grey = (image == 110).all(axis=-1).sum(axis=1) > 0.5 * image.shape[1]
    return [y for y in np.flatnonzero(grey) if not grey[y - 1]]


def test_preview_of_two_motions_draws_them_at_the_same_times_whatever_their_units(capsys, tmp_path, walk):
    source = core.read(walk)
    core.write(z_up_metres(core.resample(source, 40)), tmp_path / "other.bvh")  # 1/3 of the frames, m, Z up
    code, _, err = run(capsys, "preview", walk, tmp_path / "other.bvh", tmp_path / "both.png", "--size", "900x600")
    assert code == 0 and not err
    size, image = pixels(tmp_path / "both.png")
    assert size == (900, 600)
    blue, red = figure_pixels(image, 900 // 8)
    assert blue.sum() > 2000 and red.sum() > 2000
    # each seen from its own side and front, both at one height: the same walk draws the same rows,
    # its poses at the same times (frames 1, 10, 19, ... of one file and 1, 4, 7, ... of the other)
    assert np.abs(blue.sum(axis=0) - red.sum(axis=0)).sum() < 0.03 * blue.sum()
    floors = floor_lines(image)
    assert len(floors) == 4  # source side, target side, source front, target front
    for top, floor in zip([0] + floors, floors):  # the feet stand on the floor line
        band = (blue | red)[top + 1 : floor]
        assert floor - 10 <= np.flatnonzero(band.any(axis=1)).max() + top + 1 < floor
    code, _, err = run(capsys, "preview", walk, tmp_path / "other.bvh", tmp_path / "shared.png", "--shared-view")
    blue, red = figure_pixels(pixels(tmp_path / "shared.png")[1], 1200 // 8)
    assert code == 0 and not err and pixels(tmp_path / "shared.png")[0] == (1200, 800)
    assert np.abs(blue.sum(axis=0) - red.sum(axis=0)).sum() > 0.3 * blue.sum()  # Z up seen from a Y-up side: lying


def test_preview_of_two_files_refuses_what_it_cannot_compare(capsys, tmp_path, walk):
    code, _, err = run(capsys, "preview", walk, walk, tmp_path / "x.gif")
    assert code == cli.USAGE and "compared in a still image (.png, .jpg, .webp), not a GIF" in err
    code, _, err = run(capsys, "preview", walk, walk, walk, tmp_path / "x.png")
    assert code == cli.USAGE and "preview draws one file or compares two, not 3" in err
    core.write(core.Markers(["a"], np.zeros((3, 1, 3)), 100.0), tmp_path / "m.trc")
    code, _, err = run(capsys, "preview", walk, tmp_path / "m.trc", tmp_path / "x.png")
    assert code == cli.CANNOT and "m.trc: .trc files hold markers; preview of two files works on motions" in err
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "x.gif").exists()


def test_retarget_preview_writes_the_motion_and_the_picture(capsys, tmp_path, walk):
    source = core.read(walk)
    rig = restyled_skeleton(core, source.skeleton, scale=0.01, a_pose=30, seed=4)
    core.write(core.Motion(rig, 30, np.zeros((1, 31, 3)), ["ZXY"] * 31, rig.offsets[None]), tmp_path / "rig.htr")
    target = core.read(tmp_path / "rig.htr").skeleton
    code, _, err = run(
        capsys, "retarget", walk, tmp_path / "rig.htr", tmp_path / "out.bvh", "--preview", tmp_path / "c.png"
    )
    assert code == 0 and not err
    expected = core.retarget(source, target).world_positions()
    np.testing.assert_allclose(core.read(tmp_path / "out.bvh").world_positions(), expected, atol=1e-5)
    size, image = pixels(tmp_path / "c.png")
    blue, red = figure_pixels(image, 1200 // 8)
    assert size == (1200, 800) and len(floor_lines(image)) == 4 and blue.sum() > 2000 and red.sum() > 2000
    code, _, err = run(capsys, "retarget", walk, tmp_path / "rig.htr", tmp_path / "no.bvh", "--preview", "no.gif")
    assert code == cli.USAGE and "not a GIF" in err and not (tmp_path / "no.bvh").exists()


def test_retarget_preview_without_pillow_writes_nothing(capsys, tmp_path, walk, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    code, _, err = run(capsys, "retarget", walk, walk, tmp_path / "out.bvh", "--preview", tmp_path / "c.png")
    assert code == cli.MISSING and "pip install 'mocap_io[preview]'" in err
    assert not (tmp_path / "out.bvh").exists() and not (tmp_path / "c.png").exists()


@needs_corpus
def test_retarget_preview_of_a_corpus_walk_on_a_corpus_rig(capsys, tmp_path):
    walk = CORPUS / "bvh/cmu-cgspeed/cmu_12_01_walk.bvh"
    rig = CORPUS / "bvh/bandai-namco/dataset-1_dash_normal_001.bvh"
    code, _, err = run(capsys, "retarget", walk, rig, tmp_path / "out.bvh", "--preview", tmp_path / "c.png", "-q")
    assert code == 0 and not err and core.read(tmp_path / "out.bvh").frame_count == 524
    size, image = pixels(tmp_path / "c.png")
    blue, red = figure_pixels(image, 1200 // 8)
    assert size == (1200, 800) and len(floor_lines(image)) == 4 and blue.sum() > 2000 and red.sum() > 2000


def test_rib_writes_the_frames_asked_for(capsys, tmp_path, walk):
    (tmp_path / "rib").mkdir()
    code, _, err = run(capsys, "rib", walk, tmp_path / "rib" / "walk_####.rib", "--frames", "2-5", "--step", 2)
    assert code == 0 and not err
    assert sorted(p.name for p in (tmp_path / "rib").iterdir()) == ["walk_0002.rib", "walk_0004.rib"]
    code, out, _ = run(capsys, "rib", walk, "-", "--frames", "3", "--scene", "take 3", "--motion-blur")
    assert code == 0 and out.startswith("##RenderMan RIB-Structure 1.1\n##Scene take 3\n")
    assert out.count("FrameBegin") == 1 and "FrameBegin 3\n" in out and "##CapabilitiesNeeded Motion Blur" in out
    code, _, err = command("rib", walk, tmp_path / "x.rib", "--frames", "0-3")
    assert code == cli.USAGE and "frames count from 1" in err


def test_bad_input_is_one_message_and_an_exit_code(capsys, tmp_path):
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 zero\n")
    code, out, err = run(capsys, "info", bad)
    assert (code, out) == (cli.BAD_INPUT, "")
    assert err.startswith(f"mocap-io: error: {bad}, line 4: ") and err.count("\n") == 1
    code, _, err = run(capsys, "info", tmp_path / "missing.bvh")
    assert code == cli.OS_ERROR and err == f"mocap-io: error: {tmp_path / 'missing.bvh'}: No such file or directory\n"
    code, _, err = run(capsys, "convert", bad, tmp_path / "x.xyz")
    assert code == cli.USAGE and "cannot write '.xyz' files" in err  # the arguments are checked before any reading
    code, _, err = run(capsys, "info", tmp_path / "walk.xyz")
    assert code == cli.USAGE and "cannot read '.xyz' files" in err
    code, _, err = run(capsys, "info", bad, "--debug")
    assert code == cli.BAD_INPUT and "Traceback (most recent call last)" in err
    code, _, err = command("info")
    assert code == cli.USAGE and "the following arguments are required: FILE" in err
    code, _, err = command()
    assert code == cli.USAGE and "usage: mocap-io" in err


def test_a_bug_is_an_internal_error_with_its_traceback_on_request(capsys, tmp_path, walk, monkeypatch):
    def broken(*args, **kwargs):
        raise TypeError("a bug")

    monkeypatch.setattr(core, "resample", broken)
    code, _, err = run(capsys, "resample", walk, tmp_path / "x.bvh", "--fps", 30)
    assert code == cli.INTERNAL and err.startswith(
        "mocap-io: error: internal error: TypeError: a bug (run with --debug"
    )
    assert "Traceback" not in err
    code, _, err = run(capsys, "resample", walk, tmp_path / "x.bvh", "--fps", 30, "--debug")
    assert code == cli.INTERNAL and "Traceback (most recent call last)" in err


def test_warnings_go_to_stderr_unless_quiet(capsys, tmp_path):
    motion = random_motion(frames=5)
    core.write(motion, tmp_path / "short.bvh")
    text = (tmp_path / "short.bvh").read_text().replace("Frames: 5", "Frames: 6")
    (tmp_path / "short.bvh").write_text(text)
    code, _, err = run(capsys, "info", tmp_path / "short.bvh", "--lenient")
    assert code == 0 and err.startswith("mocap-io: warning: ") and "Traceback" not in err
    code, _, err = run(capsys, "info", tmp_path / "short.bvh", "--lenient", "-q")
    assert code == 0 and not err
    assert run(capsys, "info", tmp_path / "short.bvh")[0] == cli.BAD_INPUT


def test_the_package_runs_as_a_module_without_blender():
    code = "import runpy, sys; sys.argv = ['mocap-io', '--version']; runpy.run_module('mocap_io', run_name='__main__')"
    done = subprocess.run([sys.executable, "-c", code + "\n"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("mocap-io ")
    probe = "import sys, mocap_io.cli, mocap_io.cli.batch, mocap_io.cli.preview; print('bpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "False"
    assert shutil.which("mocap-io", path=os.path.dirname(sys.executable))
