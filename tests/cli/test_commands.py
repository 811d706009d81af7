"""The `mocap-io` command on small generated files and corpus files: what each subcommand writes
(checked against the core and against files read back), '-' for stdin and stdout, exit codes and
messages for bad input (no traceback unless --debug)."""

import importlib.util
import json
import os
import pathlib
import re
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

needs_pillow = pytest.mark.skipif(
    importlib.util.find_spec("PIL") is None, reason="Pillow (the extra mocap_io[preview]) is not installed"
)


def command(*args, stdin=None, cwd=None):
    """`python -m mocap_io args` in a child process (in `cwd`): (exit code, stdout bytes, stderr text)."""
    done = subprocess.run(
        [sys.executable, "-m", "mocap_io", *map(str, args)], input=stdin, capture_output=True, cwd=cwd
    )
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


def opened(path):
    """The image file `path`, opened with Pillow."""
    from PIL import Image

    return Image.open(path)


def pixels(path):
    with opened(path) as image:
        return image.size, np.asarray(image.convert("RGB"), dtype=int)


# A pose of known joints, Y up: Hips at 0, Head 100 up, Hand 40 along +X, Foot 30 along +Z; its bones
# join the Hips to each of the others. Its box: X 0..40, Y 0..100, Z 0..30, centre (20, 50, 15).
JOINTS = np.array([[0, 0, 0], [0, 100, 0], [40, 0, 0], [0, 0, 30.0]])
BONES = [(0, 1), (0, 2), (0, 3)]
VIEWS = [((1, 0, 0), (0, 1, 0)), ((0, 0, -1), (0, 1, 0)), ((1, 0, 0), (0, 0, -1))]  # front, side, top: right, up


@pytest.fixture
def known_pose(tmp_path):
    path = tmp_path / "pose.bvh"
    skeleton = core.Skeleton(["Hips", "Head", "Hand", "Foot"], [-1, 0, 0, 0], JOINTS)
    core.write(core.Motion(skeleton, 30, np.zeros((1, 4, 3)), ["ZXY"] * 4, JOINTS[None]), path)
    return path


def projected(boxes, scale):
    """(3 views, 4 joints, 2) pixel positions of JOINTS: each view centres the pose's box in its
    panel `boxes[v]` (x0, y0, x1, y1) at `scale` pixels per unit, its right to +x, its up to -y."""
    centred = JOINTS - [20, 50, 15]
    return np.array(
        [
            [((x0 + x1) / 2, (y0 + y1) / 2)] + np.stack([centred @ right, -(centred @ up)], axis=-1) * scale
            for (x0, y0, x1, y1), (right, up) in zip(boxes, VIEWS)
        ]
    )


def distance_to_bones(points, joints):
    """(P,) the distance of each pixel (P, 2) to the nearest bone between `joints` (4, 2)."""
    nearest = np.full(len(points), np.inf)
    for a, b in BONES:
        start, along = joints[a], joints[b] - joints[a]
        t = np.clip((points - start) @ along / max(along @ along, 1e-12), 0, 1)  # a bone seen end-on: a point
        nearest = np.minimum(nearest, np.linalg.norm(points - start - t[:, None] * along, axis=1))
    return nearest


def assert_pose_drawn(image, colour, boxes, scale, reach=3.0):
    """Every pixel along each bone of the known pose, in each panel, has the pose's `colour`; every
    pixel of that colour is within `reach` of a bone; the rest of each panel is background (white),
    but for its frame and its name in the top left corner."""
    drawn = (image == colour).all(axis=-1)
    ys, xs = np.mgrid[: image.shape[0], : image.shape[1]]
    near = np.zeros(drawn.shape, dtype=bool)
    for (x0, y0, x1, y1), joints in zip(boxes, projected(boxes, scale)):
        for a, b in BONES:
            steps = int(np.abs(joints[b] - joints[a]).max()) + 1
            x, y = np.linspace(joints[a], joints[b], steps).round().astype(int).T
            assert drawn[y, x].all(), f"bone {a}-{b} in the panel at x {x0}: {np.count_nonzero(~drawn[y, x])} missing"
        inside = (xs > x0) & (xs < x1) & (ys > y0) & (ys < y1) & ~((xs < x0 + 50) & (ys < y0 + 22))
        close = distance_to_bones(np.stack([xs[inside], ys[inside]], axis=-1), joints) <= reach
        near[ys[inside][close], xs[inside][close]] = True
        far = inside & ~near
        assert (image[far] == 255).all(), f"{np.count_nonzero((image[far] != 255).any(axis=-1))} pixels off the bones"
    assert not (drawn & ~near).any(), f"pose pixels away from the bones at {np.argwhere(drawn & ~near)[:5].tolist()}"


@needs_pillow
def test_preview_png_draws_each_joint_where_its_views_project_it(capsys, known_pose, tmp_path):
    """600x400: three panels of 192 x 228 pixels side by side from y 20 to y 248, one scale for all
    (the pose's 100 units tall in 228 - 2 x 14 pixels of margin: 2 pixels per unit)."""
    code, _, err = run(capsys, "preview", known_pose, tmp_path / "pose.png", "--size", "600x400")
    assert code == 0 and not err
    size, image = pixels(tmp_path / "pose.png")
    boxes = [(4, 20, 196, 248), (204, 20, 396, 248), (404, 20, 596, 248)]
    assert size == (600, 400)
    assert projected(boxes, 2.0)[0].tolist() == [[60, 234], [60, 34], [140, 234], [60, 234]]  # front: Foot behind
    assert_pose_drawn(image, (68, 1, 84), boxes, 2.0)  # one pose: the first colour, viridis' darkest


@needs_pillow
def test_preview_png_of_a_walk_colours_its_poses_from_dark_to_light(capsys, tmp_path, walk):
    code, _, err = run(capsys, "preview", walk, tmp_path / "walk.png")
    size, image = pixels(tmp_path / "walk.png")
    assert code == 0 and not err and size == (1200, 800)
    first, last = ((image == colour).all(axis=-1).sum() for colour in [(68, 1, 84), (253, 231, 37)])
    assert first > 200 and last > 200  # 8 poses: the first dark purple, the last yellow
    code, _, _ = run(capsys, "preview", walk, tmp_path / "again.png")
    assert (pixels(tmp_path / "again.png")[1] == image).all()  # the same motion draws the same picture


@needs_pillow
def test_preview_gif_plays_the_pose_in_the_three_views(capsys, known_pose, tmp_path):
    """960x360: panels of 312 x 331 pixels from y 25, 303 / 100 pixels per unit; one colour per frame."""
    code, _, err = run(capsys, "preview", known_pose, tmp_path / "pose.gif")
    assert code == 0 and not err
    with opened(tmp_path / "pose.gif") as gif:
        assert gif.n_frames == 1 and gif.size == (960, 360)
        image = np.asarray(gif.convert("RGB"), dtype=int)
    boxes = [(4, 25, 316, 356), (324, 25, 636, 356), (644, 25, 956, 356)]
    assert_pose_drawn(image, (59, 82, 139), boxes, 303 / 100)


@needs_pillow
def test_preview_gif_plays_and_meshes_and_markers_draw(capsys, tmp_path, walk):
    code, _, _ = run(capsys, "preview", walk, tmp_path / "walk.gif", "--gif-fps", 10)
    with opened(tmp_path / "walk.gif") as gif:
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


@needs_pillow
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


@pytest.mark.parametrize(
    "inputs, output, code, message",
    [
        (["walk.bvh", "walk.bvh"], "x.gif", cli.USAGE, "compared in a still image (.png, .jpg, .webp), not a GIF"),
        (["walk.bvh"] * 3, "x.png", cli.USAGE, "preview draws one file or compares two, not 3"),
        (["walk.bvh", "m.trc"], "x.png", cli.CANNOT, "m.trc: .trc files hold markers; preview of two files works"),
    ],
    ids=["gif", "three", "markers"],
)
def test_preview_of_two_files_refuses_what_it_cannot_compare(capsys, tmp_path, walk, inputs, output, code, message):
    core.write(core.Markers(["a"], np.zeros((3, 1, 3)), 100.0), tmp_path / "m.trc")
    got, _, err = run(capsys, "preview", *(tmp_path / name for name in inputs), tmp_path / output)
    assert got == code and message in err
    assert not (tmp_path / output).exists()


@needs_pillow
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
@needs_pillow
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


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["info", "{bad}"], cli.BAD_INPUT, r"mocap-io: error: {bad}, line 4: [^\n]*\n"),
        (["info", "{missing}"], cli.OS_ERROR, r"mocap-io: error: {missing}: No such file or directory\n"),
        (["convert", "{bad}", "x.xyz"], cli.USAGE, r".*cannot write '\.xyz' files.*"),  # checked before reading
        (["info", "walk.xyz"], cli.USAGE, r".*cannot read '\.xyz' files.*"),
        (["info", "{bad}", "--debug"], cli.BAD_INPUT, r".*Traceback \(most recent call last\).*"),
        (["info"], cli.USAGE, r".*the following arguments are required: FILE.*"),
        ([], cli.USAGE, r"usage: mocap-io.*"),
    ],
    ids=["bad", "missing", "unknown output", "unknown input", "debug", "no file", "nothing"],
)
def test_bad_input_is_one_message_and_an_exit_code(tmp_path, args, code, message):
    """The command in a child process (argparse's own errors exit it): the exit code, nothing on
    standard output, and standard error matching `message`."""
    bad, missing = tmp_path / "bad.bvh", tmp_path / "missing.bvh"
    bad.write_text("HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 zero\n")
    paths = {"bad": str(bad), "missing": str(missing)}
    got, out, err = command(*(a.format(**paths) for a in args), cwd=tmp_path)
    assert (got, out) == (code, b"")
    assert re.fullmatch(message.format(**{k: re.escape(v) for k, v in paths.items()}), err, re.S), err


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
