"""The OBJ and RIB writers' bytes, pinned on a few meshes and motions: their text assembly may
change (vectorised), their output may not. The expected files (tests/core/writer_bytes/CASE/) are
the output the writers gave before that change (sha256 prefixes once pinned here, checked when the
files were stored); a file that differs fails with a diff against its expected text."""

import difflib
import pathlib

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


EXPECTED = pathlib.Path(__file__).with_name("writer_bytes")


def obj_sequence(folder):
    mesh = grid_mesh()
    sequence = MeshAnimation(mesh, 24.0, mesh.vertices + np.random.default_rng(1).normal(size=(4, 1, 3)))
    core.formats.obj.write_obj_sequence(sequence, str(folder / "seq_####.obj"))


def scaled_motion():
    motion = random_motion(frames=6, seed=3)
    motion.scales = np.random.default_rng(1).uniform(0.7, 1.4, (6, 4))
    motion.translations[2, 2] = 0.0  # a bone of length 0 in frame 2
    return motion


def markers():
    positions = np.random.default_rng(0).normal(0, 100, (5, 4, 3))
    positions[2, 1] = np.nan
    return core.Markers(['L "knee"\\1', "b", "c", "d"], positions, 100.0, units="mm")


def plain_mesh():
    return Mesh(np.random.default_rng(2).normal(size=(9, 3)), [3, 3, 3], [0, 1, 2, 3, 4, 5, 6, 7, 8])


# case: (what is written, the file name, the writer's options), or a function writing into a folder
CASES = {
    "obj_mesh": (grid_mesh, "mesh.obj", {}),
    "obj_plain": (plain_mesh, "plain.obj", {"precision": 3}),
    "obj_sequence": obj_sequence,
    "rib_walk": (lambda: cmu_like_motion(core, 12), "walk.rib", FIXED),
    "rib_scaled_blur": (scaled_motion, "s.rib", {**FIXED, "motion_blur": True, "radius": 0.5}),
    "rib_markers_blur": (markers, "m.rib", {**FIXED, "motion_blur": True}),
    "rib_bars_blur": (lambda: two_bars(frames=5), "b.rib", {**FIXED, "motion_blur": True, "precision": 4}),
    "rib_sequence": (lambda: cmu_like_motion(core, 4), "walk_####.rib", {**FIXED, "shader": "mine"}),
}


def write_case(case, folder):
    """The files `case` writes, in `folder`: {name: bytes}."""
    folder.mkdir()
    if callable(CASES[case]):
        CASES[case](folder)
    else:
        make, name, options = CASES[case]
        core.write(make(), folder / name, **options)
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def difference(name, expected, got, lines=40, width=200):
    """The first line where `got` leaves `expected` and a unified diff around it (long lines cut)."""
    old, new = expected.decode().splitlines(), got.decode().splitlines()
    first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    diff = difflib.unified_diff(old, new, f"expected {name}", f"written {name}", n=2, lineterm="")
    shown = [line if len(line) <= width else line[:width] + " ..." for line, _ in zip(diff, range(lines))]
    return "\n".join([f"{name}: first difference at line {first + 1}", *shown])


@pytest.mark.parametrize("case", CASES)
def test_the_bytes_written_are_as_before(tmp_path, case):
    got = write_case(case, tmp_path / case)
    expected = {path.name: path.read_bytes() for path in sorted((EXPECTED / case).iterdir())}
    assert list(got) == list(expected)
    changed = [difference(name, expected[name], got[name]) for name in got if got[name] != expected[name]]
    if changed:
        pytest.fail("\n".join([*changed, f"(when the change is meant: cp {tmp_path / case}/* {EXPECTED / case}/)"]))
