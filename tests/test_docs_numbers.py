"""Numbers that README.md and docs/*.md state as facts (limits, defaults, sizes, corpus counts) hold.

Each test reads its number from the document where the sentence allows, so that the document and
the code cannot drift apart: a changed default fails here until the document says it too. Speed
figures are measurements of the benchmark scripts (labelled as such in the docs), never checked.
"""

import inspect
import pathlib
import re
import tomllib

import pytest

from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
from mocap_io.cli import batch, preview
from mocap_io.core import errors, frame_rate
from mocap_io.core.formats import rib, trc
from mocap_io.core.formats.bvh import reader as bvh_reader
from mocap_io.core.formats.c3d import writer as c3d_writer
from mocap_io.core.formats.famc import model as famc_model
from mocap_io.core.formats.famc import syntax as famc_syntax

ROOT = pathlib.Path(__file__).resolve().parents[1]


def doc(name):
    return (ROOT / name).read_text(encoding="utf-8")


def number(pattern, text):
    """The first group of `pattern` in `text`, its runs of whitespace (line breaks) read as one space."""
    found = re.search(pattern, " ".join(text.split()))
    assert found, f"the document no longer says {pattern!r}: update this test with it"
    return found.group(1)


def test_readme_names_the_zip_of_the_manifests_version():
    version = tomllib.loads(doc("blender_manifest.toml"))["version"]
    assert number(r"It writes `mocap_io-([\d.]+)\.zip`", doc("README.md")) == version


def test_readme_frame_time_examples_stand_for_their_rates():
    # also under bpy: tests/addon/test_frame_rates.py
    text = number(r"judged by its digits: (.*?), `fps`", doc("README.md"))
    examples = re.findall(r"([\d.]+) is ([\d./]+)(?: fps)?", text)
    assert len(examples) == 4, text
    for period, rate in examples:
        num, _, den = rate.partition("/")
        expected = frame_rate.Fraction(num) / frame_rate.Fraction(den or 1)
        assert frame_rate.snap_rate(period) == expected, (period, rate)


def test_bvh_doc_limits():
    text = doc("docs/bvh.md")
    assert int(number(r"\((\d+) bytes per joint and frame\)", text)) == bvh_reader._BYTES_PER_JOINT_FRAME
    per_byte, floor = re.search(r"at most\s+(\d+)\s+times the file size plus\s+(\d+)\s+MiB", text).groups()
    assert int(per_byte) == errors.MEMORY_PER_BYTE and int(floor) << 20 == errors.MEMORY_FLOOR
    decimals = int(number(r"writes tabs and (\d+) decimals by default", text))
    assert inspect.signature(core.formats.bvh.write_bvh).parameters["precision"].default == decimals


def test_markers_doc_limits():
    text = doc("docs/markers.md")
    assert int(number(r"chunks of whole lines \((\d+) kB\)", text)) << 10 == trc._CHUNK
    assert int(number(r"would take more than (\d+) x the file size", text)) == errors.MEMORY_PER_BYTE
    assert int(number(r"more than (\d+) frames gets POINT:FRAMES", text)) == c3d_writer._FRAMES_CAP


def test_famc_doc_limits():
    text = doc("docs/famc.md")
    frames = int(number(r"segments of more than ([\d,]+) frames", text).replace(",", ""))
    values = 2 ** int(number(r"or 2\^(\d+) vertex-frames", text))
    assert (frames, values) == (famc_model.MAX_FRAMES, famc_model.MAX_VALUES)
    assert famc_syntax.MAX_SLOTS == values  # "weights over more than 2^23 vertex-cluster slots"
    source = inspect.getsource(core.formats.famc.container)
    low, high = re.search(r"(\d+) to (\d+) frames: small meshes", text).groups()
    per_segment = 2 ** int(number(r"about 2\^(\d+) vertex-frames", text))
    assert f"np.clip(2**{per_segment.bit_length() - 1} // vertices, {low}, {high})" in source


def test_rib_doc_defaults():
    text = doc("docs/rib.md")
    options = inspect.signature(rib.write_rib).parameters
    assert options["fov"].default == float(number(r"`--fov` \((\d+) degrees", text))
    assert options["precision"].default == int(number(r"`precision` \(decimals, (\d+)\)", text))


def test_cli_doc_defaults():
    text = doc("docs/cli.md")
    sheet = tuple(map(int, number(r"The sheet \(default (\d+x\d+)\)", text).split("x")))
    gif = tuple(map(int, number(r"GIF \(default (\d+x\d+)\)", text).split("x")))
    comparison = tuple(map(int, number(r"A still image \(default (\d+x\d+)\)", text).split("x")))
    source = inspect.getsource(preview)
    assert f"size or {sheet}" in source and f"size or {gif}" in source and f"size or {comparison}" in source
    poses, mesh_poses = re.search(r"evenly spaced frames \((\d+); meshes (\d+),", text).groups()
    assert f'poses or ({mesh_poses} if figure.kind == "mesh" else {poses})' in source
    assert inspect.signature(preview.preview).parameters["gif_fps"].default == float(
        number(r"`--gif-fps` \((\d+)\)", text)
    )
    assert preview._MAX_GIF_FRAMES == int(number(r"frames a second and (\d+) frames", text))
    assert preview._MAX_EDGES == int(number(r"draw at most ([\d,]+) edges", text).replace(",", ""))
    quality = int(number(r"\(JPEG, quality (\d+)\)", text))
    assert preview.IMAGES[".jpg"] == preview.IMAGES[".jpeg"] == ("JPEG", {"quality": quality})
    chunk = number(r"in chunks of up to (\d+) files", text)
    assert f"min({chunk}, len(tasks)" in inspect.getsource(batch)


def test_htr_doc_seed_arithmetic():
    """The seed example's SF values are the child's translation over the segment's BoneLength."""
    text = doc("docs/htr.md")
    for sf, a, sign, b, length in re.findall(
        r"SF ([\d.]+) is \(([\d.]+) ([+-]) ([\d.]+)\) / ([\d.]+)", re.sub(r"\s+", " ", text)
    ):
        child = float(a) + float(b) if sign == "+" else float(a) - float(b)
        assert f"{child / float(length):.6f}" == sf


@needs_corpus
def test_asf_doc_cmu_unit():
    text = doc("docs/asf-amc.md")
    metres = float(number(r"units of 1/0.45 inch \(([\d.]+) m\)", text))
    unit = core.read(CORPUS / "asfamc/cmu/02.asf").skeleton.record.metres_per_unit
    assert unit == pytest.approx(0.0254 / 0.45) and round(unit, 5) == metres


@needs_corpus
def test_rib_doc_corpus_walk(tmp_path):
    text = " ".join(doc("docs/rib.md").split())
    found = re.search(
        r"The (\d+) frames of the corpus CMU walk \((\d+) joints, (\d+) End Sites\) make ([\d.]+) MB", text
    )
    frames, joints, end_sites, megabytes = found.groups()
    walk = core.read(CORPUS / "bvh/cmu-cgspeed/cmu_12_01_walk.bvh")
    counts = walk.frame_count, len(walk.skeleton.names), walk.end_site_positions().shape[1]
    assert counts == (int(frames), int(joints), int(end_sites))
    (written,) = core.write(walk, tmp_path / "walk.rib")
    assert f"{pathlib.Path(written).stat().st_size / 1e6:.1f}" == megabytes


@needs_corpus
def test_markers_doc_corpus_counts():
    text = " ".join(doc("docs/markers.md").split())
    # the outputs of tests/core/test_trc.py: the C3D files read (leniently where strict reading
    # refuses) and the TRC files read, each written to TRC
    outputs = [r for r in manifest("c3d") if r["expect"].startswith(("ok", "error (strict)"))]
    outputs += [r for r in manifest("trc") if r["expect"] == "ok"]
    assert len(outputs) == int(number(r"reads all (\d+) and gives the same values", text))
    mac = next(CORPUS / r["path"] for r in outputs if r["path"].endswith("/MACsample.c3d"))
    with pytest.warns(UserWarning, match="disagree"):  # its two scales (docs/markers.md, "Scale")
        names = list(core.read(mac).names)
    assert number(r"MACsample has (\w+) `RTHI`", text) == "three" and names.count("RTHI") == 3
