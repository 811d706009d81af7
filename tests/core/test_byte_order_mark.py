"""core.inputs.without_bom: every text reader drops a UTF-8 byte-order mark in one place, the AMC
reader keeping the file's byte offsets (three spaces in its place)."""

import numpy as np
import pytest

from asf_samples import ASF, amc_text, amc_values
from bvh_samples import SIMPLE
from htr_samples import SAMPLE as HTR
from mocap_io import core
from mocap_io.core.formats import asf
from mocap_io.core.inputs import BOM, without_bom

TRC = (
    "PathFileType\t4\t(X/Y/Z)\tt.trc\n"
    "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n"
    "120\t120\t2\t1\tmm\t120\t1\t2\n"
    "Frame#\tTime\ta\n"
    "\t\tX1\tY1\tZ1\n"
    "1\t0\t1\t2\t3\n"
    "2\t0.00833\t4\t5\t6\n"
)
pytestmark = pytest.mark.filterwarnings("ignore:.*unknown section")  # the ASF sample's :skin


def test_without_bom_drops_the_mark_or_keeps_offsets_with_spaces():
    assert without_bom(BOM + b"HIERARCHY") == b"HIERARCHY" and without_bom(b"HIERARCHY") == b"HIERARCHY"
    assert without_bom(BOM + b"1\nroot", keep_offsets=True) == b"   1\nroot"
    data = bytearray(BOM + b"MOTION")
    assert without_bom(data) is data and data == b"MOTION"  # a bytearray changes in place
    data = bytearray(BOM + b"x")
    assert without_bom(data, keep_offsets=True) is data and data == b"   x"
    assert without_bom(b"\xef\xbbx") == b"\xef\xbbx"  # only the whole mark


@pytest.mark.parametrize(
    "name, text", [("t.bvh", SIMPLE), ("t.htr", HTR), ("t.trc", TRC), ("t.asf", ASF)], ids=["bvh", "htr", "trc", "asf"]
)
def test_every_text_reader_reads_a_file_with_a_mark_as_without(tmp_path, name, text):
    plain, marked = tmp_path / name, tmp_path / f"marked_{name}"
    plain.write_bytes(text.encode("latin-1"))
    marked.write_bytes(BOM + text.encode("latin-1"))
    a, b = core.read(plain), core.read(marked)
    if isinstance(a, core.Markers):
        assert a.names == b.names and np.array_equal(a.positions, b.positions)
    else:
        assert a.skeleton.names == b.skeleton.names and np.array_equal(a.world_positions(), b.world_positions())


def test_an_amc_with_a_mark_reads_alike_and_names_the_same_lines(tmp_path):
    (tmp_path / "s.asf").write_text(ASF)
    skeleton = asf.read_asf(tmp_path / "s.asf")
    text = amc_text(amc_values(3)).encode()
    (tmp_path / "plain.amc").write_bytes(text)
    (tmp_path / "marked.amc").write_bytes(BOM + text)
    plain, marked = asf.read_amc(tmp_path / "plain.amc", skeleton), asf.read_amc(tmp_path / "marked.amc", skeleton)
    assert np.array_equal(plain.euler, marked.euler) and np.array_equal(plain.translations, marked.translations)
    broken = text.replace(b"\n2\n", b"\n2\nnobody 1 2 3\n")
    for name, data in (("plain.amc", broken), ("marked.amc", BOM + broken)):
        (tmp_path / name).write_bytes(data)
    lines = []
    for name in ("plain.amc", "marked.amc"):
        with pytest.raises(core.ParseError) as info:
            asf.read_amc(tmp_path / name, skeleton)
        lines.append((info.value.line, info.value.what))
    assert lines[0] == lines[1] and lines[0][0] is not None
