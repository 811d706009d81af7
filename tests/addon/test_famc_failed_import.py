"""A FAMC stream that reads but fails when decoded (issue 28, item 7): the import fails with the
byte offset and leaves nothing, not even an empty mocap_io_cache/ folder."""

import pytest

from blender_scene import bpy, data_counts, fresh_scene
from ensemble_samples import two_bars
from mocap_io import core


@pytest.fixture()
def corrupt_body(tmp_path):
    """bars.famc (+ .obj) whose last byte, in the residuals' arithmetic code, is flipped: core.read
    checks headers only, so the stream reads and fails once decoded."""
    path = tmp_path / "bars.famc"
    core.write(two_bars(), path, tolerance=1e-4)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    animation = core.read(path)
    with pytest.raises(core.ParseError, match=r"bars\.famc, byte \d+"):
        animation.positions()
    return path


def test_a_stream_failing_in_decoding_leaves_no_cache_folder(corrupt_body):
    fresh_scene()
    before = data_counts()
    with pytest.raises(RuntimeError, match=r"bars\.famc, byte \d+"):
        bpy.ops.import_mesh.famc(filepath=str(corrupt_body), mode="CACHE")
    assert data_counts() == before
    assert sorted(p.name for p in corrupt_body.parent.iterdir()) == ["bars.famc", "bars.obj"]


def test_a_cache_folder_already_there_stays_as_it_was(corrupt_body):
    folder = corrupt_body.parent / "mocap_io_cache"
    folder.mkdir()
    (folder / "other.pc2").write_bytes(b"another import's cache")
    fresh_scene()
    with pytest.raises(RuntimeError, match=r"bars\.famc, byte \d+"):
        bpy.ops.import_mesh.famc(filepath=str(corrupt_body), mode="CACHE")
    assert [p.name for p in folder.iterdir()] == ["other.pc2"]
    folder.joinpath("other.pc2").unlink()
    fresh_scene()
    with pytest.raises(RuntimeError, match=r"bars\.famc, byte \d+"):
        bpy.ops.import_mesh.famc(filepath=str(corrupt_body), mode="CACHE")
    assert folder.is_dir()  # the user's (empty) folder: not this import's to remove
