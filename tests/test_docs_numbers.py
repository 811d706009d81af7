"""Numbers that README.md and docs/*.md state as facts (limits, defaults, sizes, corpus counts) hold.

Each test reads its number from the document where the sentence allows, so that the document and
the code cannot drift apart: a changed default fails here until the document says it too. Speed
figures are measurements of the benchmark scripts (labelled as such in the docs), never checked.
"""

import inspect
import pathlib
import re
import tomllib
import warnings

import numpy as np
import pytest

from corpus_files import CORPUS, manifest, needs_corpus
from mocap_io import core
from mocap_io.cli import batch, preview
from mocap_io.core import errors, frame_rate
from mocap_io.core.formats import bvh, rib, trc
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
    assert int(number(r"\((\d+) bytes per joint and frame\)", text)) == errors.BYTES_PER_JOINT_FRAME
    per_byte, floor = re.search(r"at most\s+(\d+)\s+times the file size plus\s+(\d+)\s+MiB", text).groups()
    assert int(per_byte) == errors.MEMORY_PER_BYTE and int(floor) << 20 == errors.MEMORY_FLOOR
    decimals = int(number(r"writes tabs and (\d+) decimals by default", text))
    assert inspect.signature(bvh.write_bvh).parameters["precision"].default == decimals


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


def test_readme_auto_scale_heights_and_import_slices():
    from mocap_io.addon.common import progress, units

    text = doc("README.md")
    low, high = map(float, re.search(r"makes the figure ([\d.]+)-([\d.]+) m large", " ".join(text.split())).groups())
    assert units.HUMAN_HEIGHTS == (low, high)
    assert units._HUMAN_HEIGHT == float(number(r"brings it nearest ([\d.]+) m", text))
    assert progress.SteppedImport._SLICE * 1000 == int(number(r"slices of ~(\d+) ms", text))


def test_readme_fuzz_case_count():
    import fuzz_cases

    assert number(r"a fuzz test feeds them (\w+) of mutated files", doc("README.md")) == "thousands"
    assert fuzz_cases.CASES * len(fuzz_cases.FORMATS) >= 2000


def test_htr_doc_header_keywords():
    from mocap_io.core.formats import htr

    assert number(r"the (\w+) header keywords", doc("docs/htr.md")) == "twelve" and len(htr.HEADER_KEYS) == 12


@needs_corpus
def test_htr_doc_egnaro_symmetry():
    """egnaro's base pose is mirror-symmetric across x = 0 to the stated mm with the default reading."""
    text = doc("docs/htr.md")
    close, far = re.search(
        r"x = 0 to ([\d.]+) mm \(the file's 6 decimals\) with this reading, but (\d+) mm", " ".join(text.split())
    ).groups()
    path = CORPUS / "htr/animal3d-egnaro/egnaro_skel_anim.htr"

    def asymmetry(motion):  # as tests/core/test_htr_convert.py measures it, in the file's mm
        rest, names = motion.skeleton.rest_world()[1], motion.skeleton.names
        right = [names.index(n) for n in names if n.startswith("R_")]
        left = [names.index("L_" + names[j][2:]) for j in right]
        return abs(rest[right] * [-1, 1, 1] - rest[left]).max()

    assert f"{asymmetry(core.read(path)):.4f}" == close
    assert f"{asymmetry(core.read(path, euler_reading='applied')):.0f}" == far


@needs_corpus
def test_memg_doc_corpus_cloth_layout_scores(tmp_path):
    column, row = re.search(
        r"the corpus cloth: ([\d.]+) against ([\d.]+)\)", " ".join(doc("docs/memg.md").split())
    ).groups()
    cloth = CORPUS / "mesh/gl-geometry-cloth"
    core.write(core.read(cloth / "basicCloth.pc2", obj=cloth / "basicCloth.obj"), tmp_path / "cloth.memg")
    scores = core.read(tmp_path / "cloth.memg").layout_scores
    assert (f"{scores['column']:.3f}", f"{scores['row']:.1f}") == (column, row)


def test_markers_doc_c3d_numbers():
    from fractions import Fraction

    from mocap_io.addon.to_blender import markers as markers_build
    from mocap_io.core.formats.c3d import reader as c3d_reader

    text = doc("docs/markers.md")
    cameras = int(number(r"camera c \+ 1 \((\d+) cameras\)", text))
    mask = f"0x{(1 << cameras) - 1:X}"
    assert f"& {mask}" in inspect.getsource(c3d_writer) and f">> 8, {mask}" in inspect.getsource(c3d_reader)
    rule, most = re.search(
        r"largest coordinate / (\d+), c3d.org's rule\), up to (\d+)\.", " ".join(text.split())
    ).groups()
    source = inspect.getsource(c3d_writer)
    assert f"largest / {rule}" in source and f"np.clip(np.rint(residual), 0, {most})" in source
    assert markers_build._SINGLE == Fraction(1, 2 ** int(number(r"\(2\^-(\d+) relative\)", text)))
    # "our 70,000-frame files": tests/core/test_c3d.py::test_more_than_65535_frames writes and reads them
    assert number(r"read our ([\d,]+)-frame files", text) == "70,000"


def test_cli_doc_input_rates_and_report_lines(tmp_path):
    import asf_samples
    from mocap_io.core.formats import obj, pc2

    text = doc("docs/cli.md")
    amc, pc2_rate, sequence = map(float, re.search(r"store no rate: (\d+), (\d+) and (\d+) by default", text).groups())
    (tmp_path / "s.asf").write_text(asf_samples.ASF)
    (tmp_path / "s.amc").write_text(asf_samples.amc_text(asf_samples.amc_values(2)))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*unknown section")
        assert core.read(tmp_path / "s.amc").fps == amc
    pc2.write_pc2(tmp_path / "c.pc2", [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2)
    (tmp_path / "c.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert core.read(tmp_path / "c.pc2").fps == pc2_rate
    assert inspect.signature(obj.read_obj_sequence).parameters["fps"].default == sequence
    assert number(r"`--input-fps` \((\d+)\) / its sampling step", text) == f"{pc2_rate:g}"
    # the batch summary: the first ten files read in part and the first ten errors
    assert re.findall(r"the first (\w+) (?:files read in part|errors)", " ".join(text.split())) == ["ten", "ten"]
    source = inspect.getsource(batch)
    assert "short[:10]" in source and "errors[:10]" in source
    dropped, declared, read = map(
        int, re.search(r"read in part: (\d+) of the (\d+) frames it declares dropped \((\d+) read\)", text).groups()
    )
    assert dropped == declared - read
    assert "read in part: {declared - frames} of the {declared} " in source


@needs_corpus
def test_cli_doc_describes_the_cmu_walk():
    from mocap_io.cli import files

    line = number(r"`wrote walk\.htr: (\d+ frames at \d+ fps, \d+ joints)`", doc("docs/cli.md"))
    assert files.describe(core.read(CORPUS / "asfamc/cmu-imusim/16_15.amc")) == line


def test_famc_doc_encoder_constants():
    from fractions import Fraction

    from mocap_io.core.formats.famc import container, skinning

    text = " ".join(doc("docs/famc.md").split())
    translation = number(r"mean vertex per frame \(DCT, quantised at ([\d/]+) of the target error\)", text)
    trajectory = number(r"four points' trajectories \(DCT, quantised at ([\d/]+) of the target error\)", text)
    assert (famc_model.TRANSLATION_STEP, famc_model.TRAJECTORY_STEP) == (Fraction(translation), Fraction(trajectory))
    assert skinning.MIN_EXTENT == float(number(r"thinner than the anchors' ([\de.-]+) floor", text))
    assert "starting at sqrt(vertices) / 2 clusters and doubling" in text
    for vertices in (1, 7, 100, 400, 5000):
        assert container._cluster_counts(vertices)[0] == max(1, round(vertices**0.5 / 2))


@needs_corpus
def test_asf_doc_motionbuilder_conversion_of_16_15():
    """The joints MotionBuilder kept of CMU 16_15 are where our reading puts the bone starts at its
    keys (every 4th frame), to the stated fraction of the height (tests/core/test_asf_corpus.py
    checks 1e-5 with the reasons; this pins the doc's figures)."""
    text = " ".join(doc("docs/asf-amc.md").split())
    joints, fraction = re.search(
        r"all (\d+) joints it kept are where our reading puts the bone starts, to ([\de.-]+) of the height", text
    ).groups()
    acclaim = core.read(CORPUS / "asfamc/cmu-imusim/16_15.amc")
    mobu = core.read(CORPUS / "bvh/motionbuilder-cmu/16_15.bvh")
    assert len(mobu.skeleton.names) == int(joints)
    index = [acclaim.skeleton.index(n) for n in mobu.skeleton.names]
    ours = acclaim.world_positions()[::4, index] * (2.54 / 0.45)
    theirs = mobu.world_positions()[::4]
    height = np.ptp(mobu.world_positions()[0], axis=0).max()
    assert abs(ours - theirs).max() / height == pytest.approx(float(fraction), abs=0.05e-6)
