"""Mesh animations as files beyond .memg: OBJ sequences (one file per frame, `frame_####.obj`) and
PC2 caches on the mesh of an .obj; the registry's answers about what each format holds; Figure,
any model seen as points and segments (its up axis, its bounds)."""

import os

import numpy as np
import pytest

from corpus_files import CORPUS, needs_corpus
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.core import formats, sequence
from mocap_io.core.figure import Figure
from mocap_io.core.formats import pc2
from mocap_io.core.mesh import Mesh, MeshAnimation
from sample_motion import cmu_like_motion

CLOTH = CORPUS / "mesh" / "gl-geometry-cloth"


def test_sequence_names_pad_the_frame_number_to_the_run_of_hashes(tmp_path):
    assert sequence.frame_path("out/f_###.obj", 7) == os.path.join("out", "f_007.obj")
    assert sequence.frame_path("a#b_##.rib", 12345) == "a#b_12345.rib"  # the last run counts
    for name in ("f_0009.obj", "f_0010.obj", "f_12345.obj", "f_010.obj", "g_0001.obj", "f_0001.obj.bak"):
        (tmp_path / name).write_bytes(b"")
    assert sequence.find_frames(tmp_path / "f_####.obj") == [
        (9, str(tmp_path / "f_0009.obj")),
        (10, str(tmp_path / "f_0010.obj")),
        (12345, str(tmp_path / "f_12345.obj")),
    ]
    (tmp_path / "f_00010.obj").write_bytes(b"")
    with pytest.raises(ValueError, match="two files of frame 10"):
        sequence.find_frames(tmp_path / "f_####.obj")
    with pytest.raises(FileNotFoundError, match="no files of this sequence"):
        sequence.find_frames(tmp_path / "none_####.obj")
    with pytest.raises(ValueError, match="run of '#'"):
        sequence.frame_path("plain.obj", 1)


def test_an_obj_sequence_holds_every_frame_of_a_mesh_animation(tmp_path):
    animation = two_bars(frames=6)
    paths = core.write(animation, tmp_path / "bars_####.obj", precision=9)
    assert paths == [str(tmp_path / f"bars_{n:04d}.obj") for n in range(1, 7)]
    back = core.read(tmp_path / "bars_####.obj", fps=30)
    assert isinstance(back, MeshAnimation) and back.fps == 30 and back.first_frame == 1 and not back.factored
    np.testing.assert_allclose(back.positions(), animation.positions(), atol=1e-8)
    np.testing.assert_array_equal(back.mesh.face_vertices, animation.mesh.face_vertices)
    assert sorted(back.mesh.groups) == sorted(animation.mesh.groups)
    for n in (3, 4):  # frames 1, 2, 5, 6: the first frame number is kept, gaps are not holes
        os.remove(paths[n - 1])
    again = core.read(tmp_path / "bars_####.obj")
    assert again.frame_count == 4 and again.fps == 24.0
    core.write(again, tmp_path / "copy_##.obj")
    assert sorted(p.name for p in tmp_path.glob("copy_*")) == [
        "copy_01.obj",
        "copy_02.obj",
        "copy_03.obj",
        "copy_04.obj",
    ]


def test_a_sequence_needs_one_mesh_in_every_file(tmp_path):
    animation = two_bars(frames=3)
    core.write(animation, tmp_path / "bars_####.obj")
    core.write(Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [3], [0, 1, 2]), tmp_path / "bars_0002.obj")
    with pytest.raises(core.ParseError, match=r"bars_0002.obj: 3 vertices and 1 faces: a sequence needs the first"):
        core.read(tmp_path / "bars_####.obj")
    positions = animation.positions()
    positions[1, 5, 2] = np.inf
    with pytest.raises(ValueError, match="frame 1, 'v' row 6, value 3"):
        core.write(MeshAnimation(animation.mesh, 24, positions), tmp_path / "inf_####.obj")
    assert not list(tmp_path.glob("inf_*"))


@needs_corpus
def test_the_corpus_cloth_cache_is_a_mesh_animation_on_its_obj(tmp_path):
    animation = core.read(CLOTH / "basicCloth.pc2")
    positions, start, sampling = pc2.read_pc2(CLOTH / "basicCloth.pc2")
    assert animation.frame_count == 150 and len(animation.mesh.vertices) == 81 and animation.first_frame == start == 1.0
    assert animation.fps == 24.0 / sampling
    np.testing.assert_array_equal(animation.positions(), positions)
    core.write(animation, tmp_path / "copy.pc2")
    assert (tmp_path / "copy.pc2").read_bytes() == (
        CLOTH / "basicCloth.pc2"
    ).read_bytes()  # float32 as read, start kept


def test_a_cache_needs_a_mesh_of_as_many_vertices(tmp_path):
    animation = two_bars(frames=4)
    core.write(animation, tmp_path / "bars.pc2", start=5)
    with pytest.raises(FileNotFoundError, match="the mesh of .*bars.pc2 \\(a PC2 cache holds no faces\\)"):
        core.read(tmp_path / "bars.pc2")
    core.write(animation.mesh, tmp_path / "bars.obj")
    back = core.read(tmp_path / "bars.pc2", fps=50)
    assert back.first_frame == 5.0 and back.fps == 50.0
    np.testing.assert_allclose(back.positions(), animation.positions(), atol=1e-5)  # float32
    core.write(Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [3], [0, 1, 2]), tmp_path / "tri.obj")
    with pytest.raises(core.ParseError, match="bars.pc2, byte 16: 49 points, but .*tri.obj has 3 vertices"):
        core.read(tmp_path / "bars.pc2", obj=tmp_path / "tri.obj")
    (tmp_path / "tri.obj").replace(tmp_path / "bars.obj")  # the default .obj is named too
    with pytest.raises(core.ParseError, match="49 points, but .*bars.obj has 3 vertices"):
        core.read(tmp_path / "bars.pc2")


def test_the_registry_says_what_each_format_reads_and_writes():
    from mocap_io.core.markers import Markers
    from mocap_io.core.motion import Motion

    assert formats.reads("a.BVH") is Motion and formats.writes("a.htr") == (Motion,)
    assert formats.reads("a.c3d") is Markers and formats.reads("a.obj") is Mesh
    assert formats.reads("a_####.obj") is MeshAnimation and formats.writes("a_####.obj") == (MeshAnimation,)
    assert formats.reads("a.pc2") is MeshAnimation and formats.reads("a.rib") is None
    assert set(formats.writes("a.rib")) == {Motion, Markers, Mesh, MeshAnimation}
    assert formats.reads("a.xyz") is None and formats.writes("a.xyz") == ()
    assert ".rib" in formats.extensions("write") and ".rib" not in formats.extensions("read")
    assert formats.is_sequence("out/f_##.rib") and not formats.is_sequence("out#/f.rib")


def test_figures_find_the_up_axis_and_the_bounds():
    walk = cmu_like_motion(core, 30)
    figure = Figure(walk)
    assert figure.kind == "skeleton" and figure.point_count == 31 + 7 and len(figure.segments) == 30 + 7
    np.testing.assert_array_equal(figure.up, [0, 1, 0])
    points = np.concatenate([walk.world_positions(), walk.end_site_positions()], axis=1)
    np.testing.assert_allclose(figure.points(), points)
    low, high = figure.bounds()
    np.testing.assert_allclose(low, points.reshape(-1, 3).min(axis=0))
    np.testing.assert_allclose(high, points.reshape(-1, 3).max(axis=0))
    z_up = points[..., [0, 2, 1]] * [1, -1, 1]  # Blender's axes: Y up becomes Z up
    markers = core.Markers([f"m{i}" for i in range(38)], z_up, 120.0)
    np.testing.assert_array_equal(Figure(markers).up, [0, 0, 1])
    markers.positions[:, 3] = np.nan
    assert np.isfinite(Figure(markers).bounds()).all()
    mesh = Figure(two_bars(frames=3))
    assert mesh.kind == "mesh" and len(mesh.segments) == len(two_bars().mesh.edges())
    np.testing.assert_array_equal(mesh.up, [0, 1, 0])
    with pytest.raises(TypeError, match="cannot draw"):
        Figure("walk.bvh")
