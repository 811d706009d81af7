"""The RIB writer read back by the tests' own RIB reader (tests/rib_tokens.py): the structuring
conventions of the seed (header comments in order, frame-local comments right after FrameBegin),
balanced blocks, known requests only, the frame count; and the geometry a renderer would place,
interpreted with RenderMan's transform rules, lands on the model's world positions."""

import pathlib

import numpy as np
import pytest

import rib_tokens
from bvh_samples import random_motion
from ensemble_samples import two_bars
from mocap_io import core
from sample_motion import cmu_like_motion

FIXED = {"user": "tester", "date": "Mon Nov 23 12:00:00 2026"}


def written(tmp_path, data, name="walk.rib", **options):
    path = tmp_path / name
    assert core.write(data, path, **FIXED, **options) == [str(path)]
    return path.read_bytes()


def point(transform, xyz=(0.0, 0.0, 0.0)):
    """Where a point of object space lands under a row-vector transform."""
    return (np.append(xyz, 1.0) @ transform)[:3]


def test_header_comments_in_the_seed_order_and_one_block_per_frame(tmp_path):
    motion = cmu_like_motion(core, 12)
    data = written(tmp_path, motion)
    assert data.startswith(b"##RenderMan RIB-Structure 1.1\n")
    parsed, header = rib_tokens.check_structure(data)
    assert header == [
        "#RenderMan RIB-Structure 1.1",
        "#Scene walk",
        "#Creator Mocap I/O (mocap_io)",
        f"#CreationDate {FIXED['date']}",
        "#For tester",
        "#Frames 12",
    ]
    blocks = rib_tokens.frames(parsed)
    assert list(blocks) == list(range(1, 13))
    for number, requests in blocks.items():
        assert requests[0] == ("FrameBegin", [number])
        assert requests[1][0] == "#" and requests[1][1].startswith("#CameraOrientation ")
        assert requests[-1] == ("FrameEnd", [])
        display = next(a for name, a in requests if name == "Display")
        assert display == [f"walk.{number:04d}.tif", "file", "rgba"]


def test_spheres_sit_on_the_joints_and_cylinders_join_them(tmp_path):
    motion = random_motion(frames=6, seed=3)
    motion.scales = np.random.default_rng(1).uniform(0.7, 1.4, (6, 4))  # HTR-like: scaled segments
    data = written(tmp_path, motion, radius=0.5)
    parsed, _ = rib_tokens.check_structure(data)
    joints, ends = motion.world_positions(), motion.end_site_positions()
    for number, frame in rib_tokens.frames(parsed).items():
        placed, _ = rib_tokens.shapes(frame)
        spheres = [t for name, a, t in placed if name == "Sphere"]
        assert [a for name, a, _ in placed if name == "Sphere"] == [[0.5, -0.5, 0.5, 360]] * 4
        np.testing.assert_allclose([point(t) for t in spheres], joints[number - 1], atol=1e-4)
        bones = [(point(t), point(t, (0, 0, a[2]))) for name, a, t in placed if name == "Cylinder"]
        expected = [
            (joints[number - 1, p], joints[number - 1, j]) for j, p in enumerate(motion.skeleton.parents) if p >= 0
        ]
        expected += [
            (joints[number - 1, p], ends[number - 1, e]) for e, p in enumerate(motion.skeleton.end_site_parents)
        ]
        assert len(bones) == len(expected) == 5
        np.testing.assert_allclose(np.array(bones), np.array(expected), atol=1e-4)
    names = [a[2][0] for name, a in parsed if name == "Attribute" and a[:2] == ["identifier", "string name"]]
    assert names[:4] == motion.skeleton.names


def test_the_camera_frames_every_joint_of_every_frame(tmp_path):
    motion = cmu_like_motion(core, 60)
    parsed, _ = rib_tokens.check_structure(written(tmp_path, motion, resolution=(640, 480), fov=30))
    frame = rib_tokens.frames(parsed)[1]
    _, camera = rib_tokens.shapes(frame)
    assert np.linalg.det(camera[:3, :3]) < 0  # RenderMan's camera space is left-handed, the world right-handed
    points = np.concatenate([motion.world_positions(), motion.end_site_positions()], axis=1).reshape(-1, 3)
    seen = np.hstack([points, np.ones((len(points), 1))]) @ camera
    assert (seen[:, 2] > 0).all()
    screen = np.tan(np.radians(30) / 2)  # the shorter side (height) spans the fov
    assert (np.abs(seen[:, 1] / seen[:, 2]) <= screen).all()
    assert (np.abs(seen[:, 0] / seen[:, 2]) <= screen * 640 / 480).all()
    orientation = np.array(frame[1][1].split()[1:], dtype=float)
    eye, at, up = orientation[:3], orientation[3:6], orientation[6:]
    np.testing.assert_allclose(point(np.linalg.inv(camera)), eye, atol=1e-3)  # the camera sits at the eye
    np.testing.assert_allclose(point(camera, at)[:2], 0, atol=1e-3)  # and looks at `at`
    np.testing.assert_array_equal(up, [0, 1, 0])
    clipping = next(a for name, a in frame if name == "Clipping")
    assert clipping[0] < seen[:, 2].min() and seen[:, 2].max() < clipping[1]


def test_a_sequence_path_writes_one_complete_file_per_frame(tmp_path):
    motion = cmu_like_motion(core, 10)
    (tmp_path / "rib").mkdir()
    paths = core.write(motion, tmp_path / "rib" / "walk_####.rib", frames=[0, 4, 9], **FIXED)
    assert paths == [str(tmp_path / "rib" / f"walk_{n:04d}.rib") for n in (1, 5, 10)]
    for path, number in zip(paths, (1, 5, 10)):
        parsed, header = rib_tokens.check_structure(pathlib.Path(path).read_bytes())
        assert header[0] == "#RenderMan RIB-Structure 1.1" and header[-1] == "#Frames 1"
        assert list(rib_tokens.frames(parsed)) == [number]
        assert ("Display", [f"walk_{number:04d}.tif", "file", "rgba"]) in parsed


def test_markers_are_spheres_where_seen(tmp_path):
    rng = np.random.default_rng(0)
    positions = rng.normal(0, 100, (5, 4, 3))
    positions[2, 1] = np.nan  # a gap
    markers = core.Markers(['L "knee"\\1', "b", "c", "d"], positions, 100.0, units="mm")
    parsed, _ = rib_tokens.check_structure(written(tmp_path, markers, name="m.rib"))
    for number, frame in rib_tokens.frames(parsed).items():
        placed, _ = rib_tokens.shapes(frame)
        seen = np.isfinite(positions[number - 1]).all(axis=1)
        np.testing.assert_allclose([point(t) for _, _, t in placed], positions[number - 1][seen], atol=1e-5)
    names = [a[2][0] for name, a in parsed if name == "Attribute"]
    assert names[:4] == ['L "knee"\\1', "b", "c", "d"]


@pytest.mark.parametrize("factored", [True, False])
def test_meshes_are_points_polygons_of_each_frame(tmp_path, factored):
    animation = two_bars(frames=5)
    if not factored:
        animation = core.mesh.MeshAnimation(animation.mesh, animation.fps, animation.positions())
    parsed, _ = rib_tokens.check_structure(written(tmp_path, animation, name="bars.rib"))
    mesh = animation.mesh
    for number, frame in rib_tokens.frames(parsed).items():
        ((name, arguments, transform),) = rib_tokens.shapes(frame)[0]
        assert name == "PointsPolygons" and arguments[2] == "P"
        np.testing.assert_array_equal(arguments[0], mesh.face_sizes)
        np.testing.assert_array_equal(arguments[1], mesh.face_vertices)
        np.testing.assert_allclose(np.reshape(arguments[3], (-1, 3)), animation.positions(number - 1), atol=1e-6)
        np.testing.assert_array_equal(transform, np.eye(4))


def test_motion_blur_moves_to_the_next_frame(tmp_path):
    motion = random_motion(frames=4, seed=2)
    data = written(tmp_path, motion, motion_blur=True)
    parsed, header = rib_tokens.check_structure(data)
    assert header[-1] == "#CapabilitiesNeeded Motion Blur"
    joints = motion.world_positions()
    for number, frame in rib_tokens.frames(parsed).items():
        assert ("Shutter", [0, 1]) in frame
        for sample, at in ((0, number - 1), (1, min(number, 3))):
            placed, _ = rib_tokens.shapes(frame, sample)
            spheres = [point(t) for name, _, t in placed if name == "Sphere"]
            np.testing.assert_allclose(spheres, joints[at], atol=1e-4)


def test_nonstandard_shaders_and_included_archives_are_announced(tmp_path):
    motion = random_motion(frames=2)
    parsed, header = rib_tokens.check_structure(written(tmp_path, motion, shader="glow", include=["lights.rib"]))
    assert "#Shaders glow" in header
    for frame in rib_tokens.frames(parsed).values():
        notes = [v for name, v in frame[1:3] if name == "#"]
        assert notes[0].startswith("#CameraOrientation") and notes[1] == "#Shaders glow"
        at = frame.index(("#", "#Include lights.rib"))
        assert frame[at + 1] == ("ReadArchive", ["lights.rib"])
        assert ("Surface", ["glow"]) in frame
    _, header = rib_tokens.check_structure(written(tmp_path, motion, shader="matte"))
    assert not any(h.startswith("#Shaders") for h in header)


def test_bad_data_and_options_are_refused_before_writing(tmp_path):
    motion = random_motion(frames=3)
    motion.euler[1, 2, 0] = np.nan
    with pytest.raises(ValueError, match="rotation 1 of joint 'b' at frame 1"):
        core.write(motion, tmp_path / "bad.rib")
    good = random_motion(frames=3)
    with pytest.raises(ValueError, match="radius"):
        core.write(good, tmp_path / "bad.rib", radius=-1)
    with pytest.raises(ValueError, match="fov"):
        core.write(good, tmp_path / "bad.rib", fov=180)
    assert not list(tmp_path.iterdir())
    with pytest.raises(ValueError, match="read is not supported for '.rib'"):
        core.read(tmp_path / "x.rib")


def test_the_tokenizer_rejects_what_is_not_rib():
    with pytest.raises(AssertionError, match="unclosed"):
        rib_tokens.check_structure(b"FrameBegin 1\nWorldBegin\nWorldEnd\n")
    with pytest.raises(AssertionError, match="closes"):
        rib_tokens.check_structure(b"AttributeBegin\nTransformEnd\n")
    with pytest.raises(AssertionError, match="unknown"):
        rib_tokens.check_structure(b"Teapot\n")
    with pytest.raises(ValueError, match="unexpected"):
        rib_tokens.tokens(b"Sphere 1 -1 1 360 }")
    assert rib_tokens.tokens(b'## x\nSphere 1 "a\\"b" [2 .5]') == [
        ("comment", "# x"),
        ("name", "Sphere"),
        ("number", 1.0),
        ("string", 'a"b'),
        ("[", None),
        ("number", 2.0),
        ("number", 0.5),
        ("]", None),
    ]
