"""OBJ reading and writing: every face form, groups, materials, errors with line numbers."""

import numpy as np
import pytest

from mocap_io import core

SAMPLE = """# comment\r
mtllib scene.mtl\r
o body\r
v 0 0 0 1 0 0\r
v 1 0 0 0 1 0\r
v 1 1 0 0 0 1\r
v 0 1 0 1 1 1\r
vt 0 0\r
vt 1 0\r
vt 1 1\r
vn 0 0 1\r
g left shared\r
usemtl red\r
s 1\r
f 1/1/1 2/2/1 3/3/1\r
g right shared\r
usemtl blue\r
s off\r
f -4//1 -2//1 -1//1\r
f 1/1 3/3 4/2\r
f 2 3 4 1\r
"""


def read(tmp_path, text, name="m.obj"):
    (tmp_path / name).write_bytes(text.encode() if isinstance(text, str) else text)
    return core.read(tmp_path / name)


def test_every_statement(tmp_path):
    m = read(tmp_path, SAMPLE)
    assert len(m.vertices) == 4 and m.colours is not None and m.colours[2].tolist() == [0, 0, 1]
    assert m.face_sizes.tolist() == [3, 3, 3, 4]
    assert m.face_vertices.tolist() == [0, 1, 2, 0, 2, 3, 0, 2, 3, 1, 2, 3, 0]  # negative indices resolved
    assert m.face_uvs.tolist()[:9] == [0, 1, 2, -1, -1, -1, 0, 2, 1]
    assert m.face_normals.tolist()[:6] == [0, 0, 0, 0, 0, 0]
    assert {k: v.tolist() for k, v in m.groups.items()} == {"left": [0], "shared": [0, 1, 2, 3], "right": [1, 2, 3]}
    assert m.materials == ["red", "blue"] and m.face_materials.tolist() == [0, 1, 1, 1]
    assert m.material_libraries == ["scene.mtl"] and list(m.objects) == ["body"]
    assert m.face_smooth.tolist() == [1, 0, 0, 0]
    assert m.group_vertices("left").tolist() == [0, 1, 2]
    assert len(m.edges()) == 5


def test_write_read_round_trip(tmp_path):
    m = read(tmp_path, SAMPLE)
    core.write(m, tmp_path / "out.obj")
    back = core.read(tmp_path / "out.obj")
    for name in (
        "vertices",
        "colours",
        "uvs",
        "normals",
        "face_sizes",
        "face_vertices",
        "face_uvs",
        "face_normals",
        "face_materials",
        "face_smooth",
    ):
        np.testing.assert_array_equal(getattr(back, name), getattr(m, name), err_msg=name)
    assert {k: v.tolist() for k, v in back.groups.items()} == {k: v.tolist() for k, v in m.groups.items()}
    assert back.materials == m.materials and back.material_libraries == m.material_libraries


@pytest.mark.parametrize(
    "bad, what",
    [
        ("f 1 2 9", "v index 9 out of range (1..4)"),  # forward references count
        ("f 1 2", "at least 3 corners"),
        ("f 1 2 x", "not an index"),
        ("f 1/5 2 3", "vt index 5 out of range"),
        ("f 0 1 2", "v index 0 out of range"),
        ("f -4 1 2", "v index -4 out of range"),
        ("f 1/1/1/1 2 3", "bad face corner"),
    ],
)
def test_face_errors_name_the_line(tmp_path, bad, what):
    with pytest.raises(core.ParseError) as info:
        read(tmp_path, "v 0 0 0\nv 1 0 0\nv 0 1 0\n" + bad + "\nv 5 5 5\n")
    assert what in str(info.value) and info.value.line == 4


def test_vertex_errors(tmp_path):
    with pytest.raises(core.ParseError) as info:
        read(tmp_path, "v 0 0 0\nv 1 x 0\n")
    assert info.value.line == 2 and "'v' value 2: expected a finite number, found 'x'" in str(info.value)
    with pytest.raises(core.ParseError) as info:
        read(tmp_path, "v 0 0 0\nv 1 0\n")
    assert info.value.line == 2 and "'v' needs 3 to 7 numbers, found 2" in str(info.value)


def test_a_large_mesh_reads_in_bulk(tmp_path):
    n = 120
    xs, ys = np.meshgrid(np.arange(n), np.arange(n))
    vertices = np.stack([xs.ravel(), ys.ravel(), np.zeros(n * n)], 1)
    q = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    mesh = core.mesh.Mesh(vertices, np.full(len(q), 4), np.stack([q, q + 1, q + n + 1, q + n], 1).ravel())
    core.write(mesh, tmp_path / "grid.obj")
    back = core.read(tmp_path / "grid.obj")
    np.testing.assert_array_equal(back.face_vertices, mesh.face_vertices)
    np.testing.assert_array_equal(back.vertices, vertices)


TRIANGLE = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"


@pytest.mark.parametrize(
    "face",
    [
        "f 1 2 9223372036854775808",
        "f 1 2 -9223372036854775808",
        "f 1 2 99999999999999999999999",
        "f 1/9223372036854775807 2/1 3/1",
        "f 1//-9223372036854775808 2//1 3//1",
    ],
)
def test_huge_face_indices_are_out_of_range_at_their_line(tmp_path, face):
    with pytest.raises(core.ParseError, match="index .* out of range") as info:
        read(tmp_path, TRIANGLE + "vt 0 0\nvn 0 0 1\n" + face + "\n")
    assert info.value.line == 6


@pytest.mark.parametrize("face", ["f 1 2 1_0", "f 1 2 ٣"])
def test_face_indices_are_ascii_digits(tmp_path, face):
    with pytest.raises(core.ParseError, match="not an index") as info:
        read(tmp_path, TRIANGLE + face + "\n")
    assert info.value.line == 4


def test_smoothing_groups(tmp_path):
    mesh = read(tmp_path, TRIANGLE + "s 7\nf 1 2 3\ns off\nf 1 2 3\ns group_name\nf 1 2 3\ns ²\nf 1 2 3\n")
    assert mesh.face_smooth.tolist() == [7, 0, 1, 1]
    with pytest.raises(core.ParseError, match="smoothing group 99999999999999999999: expected off or a number") as info:
        read(tmp_path, TRIANGLE + "s 99999999999999999999\nf 1 2 3\n")
    assert info.value.line == 4


def test_uvs_of_one_two_or_three_numbers_stay_aligned(tmp_path):
    """'vt u' means (u, 0) and 'vt u v w' drops w (OBJ spec): every uv keeps its own row."""
    mesh = read(tmp_path, TRIANGLE + "vt 0.5\nvt 0.25 0.75 0.125\nvt 0.1 0.2\nf 1/1 2/2 3/3\n")
    assert mesh.uvs.tolist() == [[0.5, 0], [0.25, 0.75], [0.1, 0.2]]
    only_u = read(tmp_path, TRIANGLE + "vt 0.5\nvt 0.25\nvt 1\nf 1/1 2/2 3/3\n")
    assert only_u.uvs.tolist() == [[0.5, 0], [0.25, 0], [1, 0]]
    rows = "".join(f"vt {i}\nvt {i} {i}\n" for i in range(200))  # counts vary on every row
    assert read(tmp_path, TRIANGLE + rows + "f 1/1 2/2 3/3\n").uvs[:4].tolist() == [[0, 0], [0, 0], [1, 0], [1, 1]]


@pytest.mark.parametrize(
    "key, row",
    [("v", "v 1 nan 0"), ("v", "v 1 1_0 0"), ("vt", "vt inf 0"), ("vn", "vn 0 0 1e999"), ("v", "v 0 0 0 1 1 -inf")],
)
def test_non_finite_numbers_name_their_line(tmp_path, key, row):
    with pytest.raises(core.ParseError, match=f"'{key}' value .: expected a finite number") as info:
        read(tmp_path, TRIANGLE + "vt 0 0\nvn 0 0 1\n" + row + "\nf 1 2 3\n")
    assert info.value.line == 6
