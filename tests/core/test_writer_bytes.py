"""The OBJ and RIB writers' bytes, pinned by digest on a few meshes and motions: their text
assembly may change (vectorised), their output may not. The digests are of the output the
writers gave before that change."""

import hashlib

import numpy as np
import pytest

from bvh_samples import random_motion
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.core.mesh import Mesh, MeshAnimation
from sample_motion import cmu_like_motion

FIXED = {"user": "tester", "date": "Mon Nov 23 12:00:00 2026"}


def grid_mesh(n=6, seed=0):
    """Quads and triangles with colours, UVs and normals (some corners without), groups, objects,
    materials and smoothing changing along the faces; numbers small, negative and past a million."""
    rng = np.random.default_rng(seed)
    vertices = rng.normal(0, 3, (n * n, 3)) * rng.choice([1e-4, 1.0, 1e3, 2e6], (n * n, 1))
    quads = np.array(
        [[r * n + c, r * n + c + 1, (r + 1) * n + c + 1, (r + 1) * n + c] for r in range(n - 1) for c in range(n - 1)]
    )
    sizes = np.where(np.arange(len(quads)) % 3 == 0, 3, 4)
    corners = np.concatenate([q[:s] for q, s in zip(quads, sizes)])
    faces = len(sizes)
    face_uvs = np.where(rng.random(len(corners)) < 0.2, -1, rng.integers(0, 7, len(corners)))
    face_normals = np.where(rng.random(len(corners)) < 0.3, -1, rng.integers(0, 5, len(corners)))
    return Mesh(
        vertices,
        sizes,
        corners,
        colours=rng.random((n * n, 3)),
        uvs=rng.random((7, 2)),
        normals=rng.normal(size=(5, 3)),
        face_uvs=face_uvs,
        face_normals=face_normals,
        face_materials=np.arange(faces) // 4 % 3 - 1,
        materials=["red", "blue"],
        material_libraries=["scene.mtl"],
        groups={"left": np.arange(0, faces, 2), "shared": np.arange(faces), "tail": np.arange(faces - 5, faces)},
        objects={"body": np.arange(faces // 2), "arm": np.arange(faces // 2, faces)},
        face_smooth=np.arange(faces) // 5 % 2,
    )


def digest(paths):
    hashed = hashlib.sha256()
    for path in paths:
        hashed.update(open(path, "rb").read())
    return hashed.hexdigest()[:16]


def obj_cases(tmp_path):
    mesh = grid_mesh()
    plain = Mesh(np.random.default_rng(2).normal(size=(9, 3)), [3, 3, 3], [0, 1, 2, 3, 4, 5, 6, 7, 8])
    sequence = MeshAnimation(mesh, 24.0, mesh.vertices + np.random.default_rng(1).normal(size=(4, 1, 3)))
    core.write(mesh, tmp_path / "mesh.obj")
    core.write(plain, tmp_path / "plain.obj", precision=3)
    yield "obj mesh", [tmp_path / "mesh.obj"]
    yield "obj plain", [tmp_path / "plain.obj"]
    yield "obj sequence", core.formats.obj.write_obj_sequence(sequence, str(tmp_path / "seq_####.obj"))


def rib_cases(tmp_path):
    scaled = random_motion(frames=6, seed=3)
    scaled.scales = np.random.default_rng(1).uniform(0.7, 1.4, (6, 4))
    scaled.translations[2, 2] = 0.0  # a bone of length 0 in frame 2
    positions = np.random.default_rng(0).normal(0, 100, (5, 4, 3))
    positions[2, 1] = np.nan
    markers = core.Markers(['L "knee"\\1', "b", "c", "d"], positions, 100.0, units="mm")
    cases = {
        "walk": (cmu_like_motion(core, 12), "walk.rib", {}),
        "scaled blur": (scaled, "s.rib", {"motion_blur": True, "radius": 0.5}),
        "markers blur": (markers, "m.rib", {"motion_blur": True}),
        "bars blur": (two_bars(frames=5), "b.rib", {"motion_blur": True, "precision": 4}),
        "rib sequence": (cmu_like_motion(core, 4), "walk_####.rib", {"shader": "mine"}),
    }
    for case, (data, name, options) in cases.items():
        yield case, core.write(data, tmp_path / name, **FIXED, **options)


DIGESTS = {
    "obj mesh": "12d322acc7e53a27",
    "obj plain": "aa8453ce4d3dea2b",
    "obj sequence": "5b09364b9c43c445",
    "walk": "33234922698247ee",
    "scaled blur": "4f94a14aef523b0c",
    "markers blur": "100026c7f9df4b18",
    "bars blur": "68c4ae13ccc75267",
    "rib sequence": "b920469f7bc468d9",
}


@pytest.mark.parametrize("cases", [obj_cases, rib_cases])
def test_the_bytes_written_are_as_before(tmp_path, cases):
    got = {case: digest(paths) for case, paths in cases(tmp_path)}
    assert got == {case: DIGESTS[case] for case in got}
