"""Every BVH in the shared corpus: `expect ok` files load with finite positions and survive a
write/read round trip; `expect error` files raise ParseError with a line number."""

import io

import numpy as np
import pytest

from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
from mocap_io.core import numtext

ROWS = manifest("bvh")
OK = [r["path"] for r in ROWS if r["expect"] == "ok"]
ERRORS = [r["path"] for r in ROWS if r["expect"].startswith("error")]


def test_the_corpus_has_bvh_files():
    if not CORPUS.is_dir():
        pytest.skip("no corpus")
    assert len(OK) >= 10 and ERRORS


@needs_corpus
@pytest.mark.parametrize("name", OK)
def test_reads_and_round_trips(name, tmp_path):
    motion = core.read(CORPUS / name)
    positions = motion.world_positions()
    assert motion.frame_count > 0 and np.isfinite(positions).all()
    assert np.isfinite(motion.end_site_positions()).all()
    core.write(motion, tmp_path / "again.bvh")
    again = core.read(tmp_path / "again.bvh")
    assert again.skeleton.names == motion.skeleton.names
    assert again.skeleton.channels == motion.skeleton.channels
    assert again.fps == pytest.approx(motion.fps, rel=1e-12)
    height = np.ptp(positions[0], axis=0).max()
    np.testing.assert_allclose(again.world_positions(), positions, atol=1e-6 * max(height, 1.0))


@needs_corpus
@pytest.mark.parametrize("name", ERRORS)
def test_bad_files_raise_with_a_line_number(name):
    with pytest.raises(core.ParseError) as info:
        core.read(CORPUS / name)
    assert info.value.line is not None and name.split("/")[-1] in str(info.value)
    with pytest.warns(UserWarning):
        assert core.read(CORPUS / name, strict=False).frame_count > 0


@needs_corpus
def test_frame_rates_are_exactly_one_over_frame_time():
    assert core.read(CORPUS / "bvh/mocapbank/test_mocapbank.bvh").fps == 1 / 0.033333
    assert core.read(CORPUS / "bvh/cmu-cgspeed/cmu_12_01_walk.bvh").fps == 1 / 0.0083333
    assert core.read(CORPUS / "bvh/pybvh/full_precision_frame_time.bvh").fps == 1 / 0.0417083750417


@needs_corpus
def test_position_channels_replace_the_offset():
    """The evidence for the default: producers that write position channels on a joint write its
    OFFSET there (so adding them would double every bone)."""
    bandai = core.read(CORPUS / "bvh/bandai-namco/dataset-1_dash_normal_001.bvh")
    spine = bandai.skeleton.index("Spine")
    np.testing.assert_allclose(
        bandai.translations[:, spine],
        np.broadcast_to(bandai.skeleton.offsets[spine], (bandai.frame_count, 3)),
        atol=1e-4,
    )
    mobu = core.read(CORPUS / "bvh/motionbuilder-cmu/16_15.bvh")
    np.testing.assert_allclose(mobu.translations[0, 0], mobu.skeleton.offsets[0])


@needs_corpus
def test_rotation_first_root_and_no_end_sites():
    m = core.read(CORPUS / "bvh/pybvh/rotation_first_root.bvh")
    assert m.skeleton.channels[0][:3] == ("Zrotation", "Xrotation", "Yrotation")
    fair = core.read(CORPUS / "bvh/fairmotion/sinusoidal.bvh")
    assert len(fair.skeleton.end_site_parents) == 0 and fair.skeleton.names[0] == "base"


@needs_corpus
def test_fast_number_parser_agrees_with_loadtxt_on_every_file():
    """The exact decimal fast path reads real files bit for bit as numpy.loadtxt does, and takes
    most of them (the others fall back to the general path)."""
    taken = 0
    for name in OK:
        data = numtext.normalize_newlines((CORPUS / name).read_bytes())
        start = data.index(b"\n", data.lower().index(b"frame time")) + 1
        reference = np.loadtxt(io.BytesIO(data[start:]), ndmin=2)
        found = numtext._decimal_table(numtext._Memory(data, start), reference.shape[1])
        if found is not None:
            taken += 1
            assert np.array_equal(found[0].view(np.int64), reference.view(np.int64)), name
    assert taken >= 0.8 * len(OK)  # all but 17-digit repr() files (beyond 2**53: no exact fast path)
