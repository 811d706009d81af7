"""The .memg reader: hand-built files in both byte orders and layouts, corrupt and truncated files."""

import warnings

import numpy as np
import pytest

from mocap_io import core
from mocap_io.core.errors import FileNote
from mocap_io.core.mesh import GroupBasis, Mesh, MeshAnimation

OBJ = """# two groups sharing nothing
v 0 0 0
v 1 0 0
v 0 1 0
v 5 5 5
v 6 5 5
g left
f 1 2 3
g right
f 4 5 1
"""


def block(
    order,
    layout,
    *,
    name=b"left",
    mapping=(1, 2, 3),
    parent=0,
    u=None,
    q=None,
    rows=None,
    q_rows=None,
    q_columns=None,
    name_length=None,
):
    """The bytes of one group block; u is (3v, r), q is (r, T)."""
    i, d = order + "i4", order + "f8"
    u = np.asarray(u, float)
    q = np.asarray(q, float)
    mean = np.arange(3 * len(mapping), dtype=float) * 0.1
    return b"".join(
        [
            np.array([len(name) if name_length is None else name_length], i).tobytes(),
            name,
            np.array([len(mapping)], i).tobytes(),
            np.array(mapping, i).tobytes(),
            mean.astype(d).tobytes(),
            np.array([parent, u.shape[0] if rows is None else rows, u.shape[1]], i).tobytes(),
            (u if layout == "row" else u.T).astype(d).tobytes(),
            np.array(
                [q.shape[0] if q_rows is None else q_rows, q.shape[1] if q_columns is None else q_columns], i
            ).tobytes(),
            (q if layout == "row" else q.T).astype(d).tobytes(),
        ]
    )


def header(order, frames=2, steps=2, fps=30):
    transforms = np.zeros((steps, frames, 3, 4))
    transforms[..., :3, :3] = np.eye(3)
    transforms[1, 0, :, 3] = [10, 0, 0]  # frame 0 moves by +10 x at timestep 1
    transforms[:, 1, :, 3] = [0, 0, -1]  # frame 1 sits 1 below
    return np.array([1, fps, frames, steps], order + "i4").tobytes() + transforms.astype(order + "f8").tobytes()


U = np.arange(18, dtype=float).reshape(9, 2) / 10  # 3 vertices, rank 2
Q = np.array([[1.0, 2.0], [0.5, -1.0]])  # rank 2 x 2 timesteps


def expected_left(t):
    mean = np.arange(9) * 0.1
    local = (mean + U @ Q[:, t]).reshape(3, 3)
    return local + ([10, 0, 0] if t == 1 else [0, 0, 0])


def write_pair(tmp_path, data, obj=OBJ):
    (tmp_path / "a.obj").write_text(obj)
    (tmp_path / "a.memg").write_bytes(data)
    return tmp_path / "a.memg"


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("layout", ["row", "column"])
def test_hand_built_files_decode_exactly(tmp_path, order, layout):
    u_right = np.array([[1.0], [0], [0], [0], [1], [0], [0], [0], [1]])  # rank 1: both layouts agree
    data = (
        header(order)
        + block(order, layout, u=U, q=Q)
        + block(order, layout, name=b"right", mapping=(4, 5, 1), parent=1, u=u_right, q=[[2.0, 3.0]])
    )
    path = write_pair(tmp_path, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        animation = core.read(path, layout=layout)
    assert [w.category for w in caught if "big-endian" in str(w.message)] == [FileNote] * (order == ">")  # sound file
    assert animation.byte_swapped == (order == ">") and animation.layout == layout
    assert animation.frame_count == 2 and animation.fps == 30
    positions = animation.positions()
    assert positions.shape == (2, 5, 3)
    for t in range(2):  # vertex 1 (index 0) belongs to both groups: "right" owns it
        np.testing.assert_allclose(positions[t, 1:3], expected_left(t)[1:])
    # "right": vertices 4, 5, 1 (0-based 3, 4, 0); vertex 1 is in both groups: the later group wins
    right_local = (np.arange(9) * 0.1 + u_right[:, 0] * 3.0).reshape(3, 3)
    np.testing.assert_allclose(positions[1, [3, 4, 0]], right_local + [0, 0, -1])
    np.testing.assert_allclose(animation.positions(1), positions[1])
    np.testing.assert_allclose(animation.positions([1, 0]), positions[::-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the byte-swap warning, checked above
        auto = core.read(path)  # smoothness decides; rank-2 data this small is too close to call: column
    assert auto.layout in ("row", "column")


def test_auto_layout_finds_the_stored_order_on_smooth_data(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    grid = np.stack(np.meshgrid(np.arange(n), np.arange(n)), -1).reshape(-1, 2)
    vertices = np.hstack([grid, np.zeros((n * n, 1))]).astype(float)
    q = (np.arange(n - 1)[:, None] * n + np.arange(n - 1)[None, :]).ravel()
    mesh = Mesh(
        vertices,
        np.full(len(q), 4),
        np.stack([q, q + 1, q + n + 1, q + n], 1).ravel(),
        groups={"sheet": np.arange(len(q))},
    )
    t = np.linspace(0, 2 * np.pi, 90)
    basis = rng.normal(size=(3, n * n, 3)) * 0.01
    basis[0, :, 2] = np.sin(vertices[:, 0] / 5)  # smooth waves
    basis[1, :, 2] = np.cos(vertices[:, 1] / 7)
    coefficients = np.stack([np.sin(t), np.cos(2 * t), 0.1 * np.sin(3 * t)])
    transforms = np.broadcast_to(np.eye(4), (1, 90, 4, 4)).copy()
    animation = MeshAnimation(
        mesh,
        30,
        groups=[GroupBasis("sheet", np.arange(n * n), vertices, basis, coefficients, 0)],
        transforms=transforms,
    )
    for layout in ("row", "column"):
        core.write(animation, tmp_path / f"{layout}.memg", layout=layout)
        back = core.read(tmp_path / f"{layout}.memg")
        assert back.layout == layout, back.layout_scores
        np.testing.assert_allclose(back.positions(), animation.positions(), atol=1e-12)


def valid_file():
    return header("<") + block("<", "column", u=U, q=Q)


def test_every_truncation_raises_a_parse_error_with_an_offset(tmp_path):
    data = valid_file()
    (tmp_path / "a.obj").write_text(OBJ)
    for end in range(len(data)):
        (tmp_path / "a.memg").write_bytes(data[:end])
        if end == len(header("<")):  # the header alone is a valid file without group blocks
            assert core.read(tmp_path / "a.memg").groups == []
            continue
        with pytest.raises(core.ParseError) as info:
            core.read(tmp_path / "a.memg")
        assert info.value.offset is not None and "byte" in str(info.value)


@pytest.mark.parametrize(
    "data, field, offset",
    [
        (header("<") + block("<", "row", u=U, q=Q, mapping=(1, 2, 9)), "index 9 is not an .obj vertex", None),
        (
            header("<") + block("<", "row", u=U, q=Q, name=b"nowhere"),
            "group 'nowhere' is not a group of the .obj",
            None,
        ),
        (header("<") + block("<", "row", u=U, q=Q, rows=8), "8 rows, expected 3 x 3 vertices", None),
        (header("<") + block("<", "row", u=U, q=Q, q_rows=3), "3 rows, but U has 2 columns", None),
        (header("<") + block("<", "row", u=U, q=Q, q_columns=3), "3 columns, expected 2 timesteps", None),
        (header("<") + block("<", "row", u=U, q=Q, parent=2), "parent frame of group 'left': 2", None),
        (header("<") + block("<", "row", u=U, q=Q, name_length=2**31 - 1), "group name: needs 2147483647 bytes", None),
        (np.array([1, 30, 2**30, 2**30], "<i4").tobytes(), "local frame transforms: needs", 16),
        (np.array([7, 30, 0, 0], "<i4").tobytes(), "endian flag: expected 1", 0),
        (np.array([1, -5, 0, 0], "<i4").tobytes(), "frame rate", 4),
        (valid_file() + b"\x01\x00", "group name length: needs 4 bytes", None),
    ],
)
def test_corrupt_fields_are_named_with_their_byte_offset(tmp_path, data, field, offset):
    with pytest.raises(core.ParseError) as info:
        core.read(write_pair(tmp_path, data))
    assert field in str(info.value)
    assert info.value.offset is not None
    if offset is not None:
        assert info.value.offset == offset


def test_missing_obj_is_a_clear_error(tmp_path):
    (tmp_path / "b.memg").write_bytes(valid_file())
    with pytest.raises(FileNotFoundError, match="the mesh of .*b.memg"):
        core.read(tmp_path / "b.memg")


# Hostile files (found by mutation): counts with no data behind them, non-finite or singular numbers


def test_timesteps_without_local_frames_hold_no_data(tmp_path):
    """16 bytes that declared 2,147,483,647 frames: every timestep must be held by bytes."""
    path = write_pair(tmp_path, np.array([1, 30, 0, 2**31 - 1], "<i4").tobytes())
    with pytest.raises(core.ParseError, match="2147483647 timesteps but no local frames") as info:
        core.read(path)
    assert info.value.offset == 8


def test_counts_beyond_the_bytes_left_are_refused(tmp_path):
    path = write_pair(tmp_path, np.array([1, 30, 2**31 - 1, 2**31 - 1], "<i4").tobytes())
    with pytest.raises(core.ParseError, match=f"needs {96 * (2**31 - 1) ** 2} bytes, only 0 left"):
        core.read(path)


def transforms_with(value, step, frame):
    data = bytearray(header("<") + block("<", "column", u=U, q=Q))
    at = 16 + 96 * (2 * step + frame)
    data[at : at + 96] = (np.eye(3, 4) * value if np.isscalar(value) else value).astype("<f8").tobytes()
    return bytes(data), at


@pytest.mark.parametrize("value", [0.0, 1e-120])
def test_singular_transforms_are_refused(tmp_path, value):
    data, at = transforms_with(value, 1, 0)
    with pytest.raises(core.ParseError, match="transform of local frame 0 at timestep 1 is singular") as info:
        core.read(write_pair(tmp_path, data))
    assert info.value.offset == at


def test_transforms_whose_determinant_overflows_are_refused(tmp_path):
    data, at = transforms_with(1e200, 0, 1)  # refused as read, beyond errors.LARGEST: no determinant overflows
    with pytest.raises(core.ParseError, match=r"value 13 is 1e\+200: expected a finite number") as info:
        core.read(write_pair(tmp_path, data))
    assert info.value.offset == at


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_double_is_named_at_its_own_offset(tmp_path, bad):
    data = bytearray(header("<") + block("<", "column", u=U, q=Q))
    at = len(data) - 8 * 3  # the second coefficient of the last timestep
    data[at : at + 8] = np.array([bad], "<f8").tobytes()
    with pytest.raises(core.ParseError, match=f"Q of group 'left': value 2 is {bad}") as info:
        core.read(write_pair(tmp_path, bytes(data)))
    assert info.value.offset == at


def test_a_group_may_appear_once(tmp_path):
    data = header("<") + block("<", "row", u=U, q=Q) + block("<", "row", u=U, q=Q)
    with pytest.raises(core.ParseError, match="group 'left' appears twice"):
        core.read(write_pair(tmp_path, data))


def test_a_static_mesh_writes_a_local_frame_per_timestep(tmp_path):
    """With no moving group the writer still backs each frame with data (an identity frame)."""
    (tmp_path / "a.obj").write_text(OBJ)
    mesh = core.read(tmp_path / "a.obj")
    still = core.mesh.MeshAnimation(mesh, 25, np.broadcast_to(mesh.vertices, (6, 5, 3)))
    core.write(still, tmp_path / "still.memg", tolerance=1e-6, relative=False)
    back = core.read(tmp_path / "still.memg")
    assert back.frame_count == 6 and np.allclose(back.positions(), mesh.vertices)
