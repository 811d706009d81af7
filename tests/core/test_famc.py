"""MPEG-4 FAMC files through core.read / core.write: the target error is met, segments decode
independently and on demand, both byte orders, the .obj pair, refusals and truncated streams
(mutated streams: tests/fuzz_cases.py)."""

import numpy as np
import pytest

from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.core.errors import ParseError
from mocap_io.core.formats import famc
from mocap_io.core.formats.famc.bits import STANDARD, BitWriter
from mocap_io.core.mesh import Mesh, MeshAnimation, diagonal


def skinned_tube(frames=90, rings=24, around=12, seed=0):
    """A tube bending at two joints (linear-blend skinning) while it travels, plus a little noise."""
    rng = np.random.default_rng(seed)
    angle = 2 * np.pi * np.arange(around) / around
    z = np.repeat(np.linspace(0, 3, rings), around)
    rest = np.stack([np.tile(np.cos(angle), rings), np.tile(np.sin(angle), rings), z], 1)
    q = (np.arange(rings - 1)[:, None] * around + np.arange(around)[None, :]).ravel()
    right = (q % around + 1) % around + q // around * around
    faces = np.stack([q, right, right + around, q + around], 1)
    mesh = Mesh(rest, np.full(len(faces), 4), faces.ravel())
    t = np.linspace(0, 2 * np.pi, frames)
    positions = np.empty((frames, len(rest), 3))
    w1 = np.clip((z - 0.8) / 0.4, 0, 1)
    w2 = np.clip((z - 1.8) / 0.4, 0, 1)
    for f in range(frames):
        a1, a2 = 0.6 * np.sin(t[f]), 0.8 * np.sin(2 * t[f] + 1)
        p = rest.copy()
        for w, a, pivot in ((w2, a2, 2.0), (w1, a1, 1.0)):
            c, s = np.cos(a * w), np.sin(a * w)
            y, zz = p[:, 1], p[:, 2] - pivot
            p = np.stack([p[:, 0], c * y - s * zz, s * y + c * zz + pivot], 1)
        positions[f] = p + [0.5 * t[f], 0, 0.1 * np.sin(3 * t[f])]
    positions += rng.normal(scale=1e-4, size=positions.shape)
    return MeshAnimation(mesh, 30, positions)


@pytest.fixture(scope="module")
def tube():
    return skinned_tube()


@pytest.mark.parametrize("transform", ["dct", "lift"])
@pytest.mark.parametrize("tolerance", [1e-2, 1e-3, 1e-4])
def test_the_decoded_animation_meets_the_target_error(tube, tmp_path, tolerance, transform):
    written = core.write(tube, tmp_path / "tube.famc", tolerance=tolerance, transform=transform)
    back = core.read(tmp_path / "tube.famc")
    error = np.linalg.norm(back.positions() - tube.positions(), axis=-1).max()
    assert error <= tolerance * diagonal(tube.positions())
    assert written.max_error == pytest.approx(error, rel=1e-9)
    assert back.frame_count == tube.frame_count and back.fps == 30
    np.testing.assert_array_equal(back.mesh.face_vertices, tube.mesh.face_vertices)
    assert written.bits_per_vertex_frame == pytest.approx(
        8 * (tmp_path / "tube.famc").stat().st_size / (tube.frame_count * len(tube.mesh.vertices))
    )


def test_coarser_targets_take_fewer_bits(tube, tmp_path):
    sizes = [core.write(tube, tmp_path / f"{t}.famc", tolerance=t).bits_per_vertex_frame for t in (1e-4, 1e-3, 1e-2)]
    assert sizes[0] > sizes[1] > sizes[2] and sizes[2] < 2.0  # far below float32's 96 bits


def test_an_absolute_tolerance(tube, tmp_path):
    core.write(tube, tmp_path / "a.famc", tolerance=0.002, relative=False)
    back = core.read(tmp_path / "a.famc")
    assert np.linalg.norm(back.positions() - tube.positions(), axis=-1).max() <= 0.002


def test_segments_decode_on_demand_and_independently(tube, tmp_path, monkeypatch):
    shown = []
    core.write(tube, tmp_path / "tube.famc", tolerance=1e-3, segment=32, progress=lambda *step: shown.append(step))
    assert shown == [(32 / 90, "1 segments encoded"), (64 / 90, "2 segments encoded"), (1.0, "3 segments encoded")]
    back = core.read(tmp_path / "tube.famc")
    assert [s.frames for s in back.source.segments] == [range(0, 32), range(32, 64), range(64, 90)]
    everything = back.positions()
    decoded = []
    real = famc.container.decode_segment
    monkeypatch.setattr(famc.container, "decode_segment", lambda *a, **k: decoded.append(a[1]) or real(*a, **k))
    fresh = core.read(tmp_path / "tube.famc")
    np.testing.assert_array_equal(fresh.positions([40, 70, 33]), everything[[40, 70, 33]])
    assert sorted(s.first for s in decoded) == [32, 64]
    np.testing.assert_array_equal(fresh.positions(5), everything[5])


@pytest.mark.parametrize("byte_order, start", [("standard", b"\x00\x00\x01\xf0"), ("reference", b"\xf0\x01\x00\x00")])
def test_both_byte_orders_decode_to_the_same_frames(tube, tmp_path, byte_order, start):
    core.write(tube, tmp_path / "s.famc", tolerance=1e-3)
    core.write(tube, tmp_path / "o.famc", tolerance=1e-3, byte_order=byte_order)
    assert (tmp_path / "o.famc").read_bytes()[:4] == start
    np.testing.assert_array_equal(
        core.read(tmp_path / "o.famc").positions(), core.read(tmp_path / "s.famc").positions()
    )


def test_the_stream_marks_our_residual_syntax(tube, tmp_path):
    core.write(tube, tmp_path / "t.famc", tolerance=1e-3)
    data = (tmp_path / "t.famc").read_bytes()
    assert data.count(famc.stream.RESIDUAL_TAG) == len(core.read(tmp_path / "t.famc").source.segments)


def test_groups_uvs_and_the_obj_pair(tmp_path):
    dense = two_bars()
    core.write(dense, tmp_path / "bars.famc", tolerance=1e-4)
    back = core.read(tmp_path / "bars.famc")
    assert set(back.mesh.groups) == {"left", "right"}
    assert np.linalg.norm(back.positions() - dense.positions(), axis=-1).max() <= 1e-4 * diagonal(dense.positions())
    other = tmp_path / "elsewhere.obj"
    (tmp_path / "bars.obj").rename(other)
    with pytest.raises(FileNotFoundError, match="the mesh of .*bars.famc"):
        core.read(tmp_path / "bars.famc")
    assert core.read(tmp_path / "bars.famc", obj=other).frame_count == dense.frame_count


def test_a_single_frame_and_a_still_mesh(tmp_path):
    bars = two_bars()
    still = MeshAnimation(bars.mesh, 25, np.repeat(bars.mesh.vertices[None], 3, axis=0))
    written = core.write(still, tmp_path / "still.famc")
    back = core.read(tmp_path / "still.famc").positions()
    assert np.linalg.norm(back - still.positions(), axis=-1).max() <= 1e-3 * diagonal(still.positions())
    assert written.max_error <= written.limit
    one = MeshAnimation(bars.mesh, 25, bars.positions()[:1])
    core.write(one, tmp_path / "one.famc", tolerance=1e-4)
    assert core.read(tmp_path / "one.famc").frame_count == 1


def test_non_finite_positions_are_refused_and_nothing_is_written(tube, tmp_path):
    bad = tube.positions().copy()
    bad[7, 3, 1] = np.nan
    with pytest.raises(ValueError, match="frame 7, vertex 3"):
        core.write(MeshAnimation(tube.mesh, 30, bad), tmp_path / "bad.famc")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("cut", [3, 10, 40, -1])
def test_truncated_streams_name_the_byte(tube, tmp_path, cut):
    core.write(tube, tmp_path / "t.famc", tolerance=1e-3)
    data = (tmp_path / "t.famc").read_bytes()
    (tmp_path / "t.famc").write_bytes(data[:cut])
    with pytest.raises(ParseError, match=r"t\.famc, byte \d+"):
        core.read(tmp_path / "t.famc").positions()


def test_adaptive_normal_predictors_are_read_past(tube, tmp_path):
    """normalsPredictionStrategy 3 puts FAMCVertexInfoDecoder(4, V) after the weights: the
    coordinates still decode (the normals themselves are not animated here)."""
    rest, positions = tube.mesh.vertices, tube.positions()[:16]
    limit = 1e-3 * diagonal(positions)
    fitted, transforms = famc.model.fit_model(rest, positions, tube.mesh.edges(), limit, 8)
    prediction = famc.model.prediction(fitted, rest, transforms)
    table, residuals = famc.stream._residual_table(positions - prediction, limit, "dct")
    body = BitWriter(STANDARD)
    famc.model.write_model(body, fitted)
    famc.syntax.write_vertex_info(body, np.arange(len(rest)) % 4, 4)
    body.put(famc.stream.RESIDUAL_TAG)
    famc.syntax.write_table(body, table, "residual errors")
    header = famc.syntax.SegmentHeader(0, tuple(range(0, 16 * 33, 33)), normals_prediction=3)
    head = BitWriter(STANDARD)
    famc.syntax.write_header(head, header)
    header.size = len(head.getvalue()) + len(body.getvalue())
    head = BitWriter(STANDARD)
    famc.syntax.write_header(head, header)
    (tmp_path / "n.famc").write_bytes(head.getvalue() + body.getvalue())
    core.write(tube.mesh, tmp_path / "n.obj")
    back = core.read(tmp_path / "n.famc").positions()
    np.testing.assert_allclose(back, prediction + residuals, atol=1e-5)  # the .obj's 6 decimals
