"""PC2 caches and the mesh-ensemble encoder: round trips on synthetic and real sequences."""

import os

import numpy as np
import pytest

from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from mocap_io.core.formats.memg import encode
from mocap_io.core.formats.memg.encoder import connected_components
from mocap_io.core.formats.pc2 import read_pc2, write_pc2
from mocap_io.core.mesh import Mesh, MeshAnimation

CLOTH = "mesh/gl-geometry-cloth/basicCloth"


def test_pc2_round_trip_and_errors(tmp_path):
    positions = np.random.default_rng(0).normal(size=(5, 7, 3)).astype(np.float32)
    write_pc2(tmp_path / "a.pc2", positions, start=3.0, sampling=0.5)
    back, start, sampling = read_pc2(tmp_path / "a.pc2")
    np.testing.assert_array_equal(back, positions)
    assert (start, sampling) == (3.0, 0.5)
    data = (tmp_path / "a.pc2").read_bytes()
    (tmp_path / "b.pc2").write_bytes(data[:-4])
    with pytest.raises(core.ParseError, match="5 samples x 7 points need 420 bytes"):
        read_pc2(tmp_path / "b.pc2")
    (tmp_path / "c.pc2").write_bytes(b"POINTCACHE3\0" + data[12:])
    with pytest.raises(core.ParseError, match="signature"):
        read_pc2(tmp_path / "c.pc2")


def bending_bar(frames=60):
    """A bar of 3 x 3 x 20 vertices bending and flying around: rigid motion plus deformation."""
    x, y, z = np.meshgrid(np.arange(3.0), np.arange(3.0), np.arange(20.0), indexing="ij")
    rest = np.stack([x.ravel(), y.ravel(), z.ravel()], 1)
    t = np.linspace(0, 1, frames)[:, None]
    bend = 0.02 * np.sin(4 * t) * rest[None, :, 2] ** 2
    local = rest[None].repeat(frames, 0)
    local[..., 0] += bend
    angle = 3 * t[:, 0]
    rotation = np.stack(
        [
            np.cos(angle),
            -np.sin(angle),
            0 * angle,
            np.sin(angle),
            np.cos(angle),
            0 * angle,
            0 * angle,
            0 * angle,
            1 + 0 * angle,
        ],
        1,
    ).reshape(-1, 3, 3)
    positions = local @ rotation.swapaxes(1, 2) + np.stack([10 * t[:, 0], 0 * t[:, 0], 5 * t[:, 0]], 1)[:, None]
    faces = []
    for i in range(rest.shape[0] - 1):
        faces.append([i, i + 1, (i + 3) % len(rest)])
    mesh = Mesh(rest, np.full(len(faces), 3), np.array(faces).ravel(), groups={"bar": np.arange(len(faces))})
    return positions, mesh


@pytest.mark.parametrize("tolerance, relative", [(1e-3, True), (0.05, False), (1e-6, True)])
def test_encoder_meets_the_tolerance(tmp_path, tolerance, relative):
    positions, mesh = bending_bar()
    animation = encode(positions, mesh, 30, tolerance=tolerance, relative=relative)
    limit = tolerance * (np.linalg.norm(np.ptp(positions.reshape(-1, 3), axis=0)) if relative else 1)
    assert animation.max_error <= limit
    core.write(animation, tmp_path / "bar.memg")
    back = core.read(tmp_path / "bar.memg")
    assert np.linalg.norm(back.positions() - positions, axis=-1).max() <= limit * (1 + 1e-9)
    assert back.groups[0].rank <= 4  # rigid motion goes to the frames, a bend needs few vectors
    loose = encode(positions, mesh, 30, tolerance=1e-2)
    assert loose.groups[0].rank <= animation.groups[0].rank


def test_dense_animation_writes_through_the_encoder_and_components(tmp_path):
    positions, mesh = bending_bar(20)
    two = Mesh(
        np.vstack([mesh.vertices, mesh.vertices + 100]),
        np.concatenate([mesh.face_sizes] * 2),
        np.concatenate([mesh.face_vertices, mesh.face_vertices + len(mesh.vertices)]),
    )
    dense = MeshAnimation(two, 24, np.concatenate([positions, positions[:, :, ::-1] + 100], axis=1))
    core.write(dense, tmp_path / "two.memg", tolerance=1e-4, grouping="components")
    back = core.read(tmp_path / "two.memg")
    assert [g.name for g in back.groups] == ["part0", "part1"] and set(back.mesh.groups) == {"part0", "part1"}
    diagonal = np.linalg.norm(np.ptp(dense.positions().reshape(-1, 3), axis=0))
    assert np.linalg.norm(back.positions() - dense.positions(), axis=-1).max() <= 1e-4 * diagonal * (1 + 1e-9)
    labels = connected_components(len(two.vertices), two.edges())
    assert len(np.unique(labels)) == 2


@needs_corpus
@pytest.mark.parametrize("tolerance, relative", [(1e-3, True), (0.01, False)])
def test_the_corpus_cloth_round_trips(tmp_path, tolerance, relative):
    positions, _, _ = read_pc2(CORPUS / (CLOTH + ".pc2"))  # the .obj gives the faces (its vertices are moved)
    mesh = core.read(CORPUS / (CLOTH + ".obj"))
    animation = encode(positions, mesh, 24, tolerance=tolerance, relative=relative)
    core.write(animation, tmp_path / "cloth.memg")
    back = core.read(tmp_path / "cloth.memg")
    limit = tolerance * (np.linalg.norm(np.ptp(positions.reshape(-1, 3), axis=0)) if relative else 1)
    assert np.linalg.norm(back.positions() - positions, axis=-1).max() <= limit * (1 + 1e-6)
    assert back.layout == "column"
    float32_frames = positions.size * 4
    assert os.path.getsize(tmp_path / "cloth.memg") < float32_frames


def test_a_rigid_motion_needs_no_basis(tmp_path):
    _, mesh = bending_bar(10)
    rigid = np.stack([mesh.vertices + [t, 2 * t, 0] for t in range(10)])
    animation = encode(rigid, mesh, 30, tolerance=1e-9)
    assert animation.groups[0].rank == 0
    core.write(animation, tmp_path / "rigid.memg")
    back = core.read(tmp_path / "rigid.memg")
    np.testing.assert_allclose(back.positions(), rigid, atol=1e-9)
    np.testing.assert_allclose(back.groups[0].local_positions(np.arange(3)).shape, (3, len(mesh.vertices), 3))


def pc2(tmp_path, positions, **header):
    write_pc2(tmp_path / "a.pc2", positions)
    data = bytearray((tmp_path / "a.pc2").read_bytes())
    for offset, value in header.items():
        data[int(offset[1:]) : int(offset[1:]) + 4] = np.array([value], "<f4").tobytes()
    (tmp_path / "a.pc2").write_bytes(bytes(data))
    return tmp_path / "a.pc2"


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_pc2_positions_must_be_finite(tmp_path, bad):
    path = pc2(tmp_path, np.zeros((3, 4, 3)))
    data = bytearray(path.read_bytes())
    at = 32 + 4 * (2 * 12 + 1 * 3 + 2)  # sample 2, point 1, z
    data[at : at + 4] = np.array([bad], "<f4").tobytes()
    path.write_bytes(bytes(data))
    with pytest.raises(core.ParseError, match="sample 2, point 1: coordinate z is") as info:
        read_pc2(path)
    assert info.value.offset == at


@pytest.mark.parametrize(
    "offset, value, what",
    [
        ("o24", 0.0, "sampling step"),
        ("o24", -1.0, "sampling step"),
        ("o24", np.nan, "sampling step"),
        ("o20", np.inf, "start frame"),
    ],
)
def test_pc2_start_and_sampling_must_be_usable(tmp_path, offset, value, what):
    with pytest.raises(core.ParseError, match=what) as info:
        read_pc2(pc2(tmp_path, np.zeros((2, 2, 3)), **{offset: value}))
    assert info.value.offset == int(offset[1:])
