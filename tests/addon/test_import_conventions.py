"""Imports behave like Blender's own (issue 26, item 3): what they leave selected and active, Auto
Scale by default with export giving back the file's numbers, option values in Blender's
convention (the plain functions still take the lower-case values of earlier versions), and
messages in an artist's words."""

import inspect
import re

import numpy as np
import pytest

from blender_scene import bpy, failed_import, fresh_scene
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import (
    asf,
    bvh,
    c3d,
    export_bvh,
    export_famc,
    export_htr,
    export_markers,
    export_memg,
    famc,
    htr,
    import_bvh,
    import_htr,
    import_markers,
    import_memg,
    memg,
    retarget,
    trc,
)
from mocap_io.addon.common import file_record
from mocap_io.core.formats.memg import write_memg
from mocap_io.core.markers import Markers
from sample_motion import cmu_like_motion


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One small file per format, made by the core: {key: path}."""
    folder = tmp_path_factory.mktemp("formats")
    walk = cmu_like_motion(core, 6)  # centimetres, 120 fps
    for ext in ("bvh", "asf", "htr"):
        core.write(walk, folder / f"walk.{ext}")
    markers = Markers(walk.skeleton.names, walk.world_positions(), walk.fps, units="cm")
    for ext in ("c3d", "trc"):
        core.write(markers, folder / f"walk.{ext}")
    core.write(two_bars(8), folder / "bars.memg")
    core.write(two_bars(8), folder / "bars.famc", tolerance=1e-3)
    return {
        "bvh": folder / "walk.bvh",
        "asf": folder / "walk.asf",
        "htr": folder / "walk.htr",
        "c3d": folder / "walk.c3d",
        "trc": folder / "walk.trc",
        "memg": folder / "bars.memg",
        "famc": folder / "bars.famc",
    }


# format: (import operator, keyword arguments from the file, export operator, type of the main object)
IMPORTS = {
    "bvh": (lambda: bpy.ops.import_anim.mocap_bvh, lambda p: {"filepath": str(p)}, "export_anim.mocap_bvh", "ARMATURE"),
    "asf": (
        lambda: bpy.ops.import_anim.mocap_asf,
        lambda p: {"directory": str(p.parent), "files": [{"name": "walk.asf"}, {"name": "walk.amc"}]},
        "export_anim.mocap_asf",
        "ARMATURE",
    ),
    "htr": (lambda: bpy.ops.import_anim.mocap_htr, lambda p: {"filepath": str(p)}, "export_anim.mocap_htr", "ARMATURE"),
    "c3d": (lambda: bpy.ops.import_anim.mocap_c3d, lambda p: {"filepath": str(p)}, "export_anim.mocap_c3d", "EMPTY"),
    "trc": (lambda: bpy.ops.import_anim.mocap_trc, lambda p: {"filepath": str(p)}, "export_anim.mocap_trc", "EMPTY"),
    "memg": (lambda: bpy.ops.import_mesh.memg, lambda p: {"filepath": str(p)}, "export_mesh.memg", "MESH"),
    "famc": (lambda: bpy.ops.import_mesh.famc, lambda p: {"filepath": str(p)}, "export_mesh.famc", "MESH"),
}


@pytest.mark.parametrize("key", list(IMPORTS))
def test_every_import_selects_what_it_made_and_makes_the_main_object_active(files, key):
    operator, arguments, export, kind = IMPORTS[key]
    fresh_scene()
    other = bpy.data.objects.new("other", None)
    bpy.context.collection.objects.link(other)
    other.select_set(True)
    bpy.context.view_layer.objects.active = other
    before = set(bpy.data.objects)
    assert operator()(**arguments(files[key])) == {"FINISHED"}
    made = set(bpy.data.objects) - before
    active = bpy.context.view_layer.objects.active
    assert active in made and active.type == kind
    assert set(bpy.context.view_layer.objects.selected) == {o for o in made if not o.hide_viewport}
    assert not other.select_get()
    category, name = export.split(".")
    assert getattr(getattr(bpy.ops, category), name).poll(), f"{export} cannot run right after the import"


def test_several_files_leave_every_new_armature_selected(files, tmp_path):
    core.write(cmu_like_motion(core, 4, seed=3), tmp_path / "other.bvh")
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(files["bvh"]), str(tmp_path / "other.bvh")])
    assert set(bpy.context.view_layer.objects.selected) == set(objects)
    assert bpy.context.view_layer.objects.active == objects[-1]


def file_numbers(path):
    motion = core.read(path)
    return motion.skeleton.offsets, motion.translations, motion.local_rotations()


def test_auto_scale_is_the_default_named_remembered_and_undone_by_export(files, tmp_path, capfd):
    fresh_scene()
    capfd.readouterr()
    assert bpy.ops.import_anim.mocap_bvh(filepath=str(files["bvh"])) == {"FINISHED"}
    assert "Info: Imported 1 BVH file(s) into 1 armature(s), in centimetres (scale 0.01)" in capfd.readouterr().out
    obj = bpy.context.active_object
    assert file_record.recall_scale(obj.data) == (0.01, "centimetres", 0.01)
    height = np.ptp([b.head_local for b in obj.data.bones], axis=0).max()
    assert 1.0 < height < 2.3  # metres: a human, not 158 m
    assert bpy.ops.export_anim.mocap_bvh(filepath=str(tmp_path / "back.bvh")) == {"FINISHED"}
    assert "in centimetres (scale 0.01) as imported" in capfd.readouterr().out
    for ours, theirs in zip(file_numbers(tmp_path / "back.bvh"), file_numbers(files["bvh"])):
        np.testing.assert_allclose(ours, theirs, atol=1e-4)  # the file's numbers, not metres
    # HTR of the same armature: CalibrationUnits as it was read, the numbers the same
    export_htr(bpy.context, obj, str(tmp_path / "back.htr"))
    htr_take = core.read(tmp_path / "back.htr")
    assert htr_take.record.calibration_units == "cm"
    original = core.read(files["bvh"]).world_positions()
    np.testing.assert_allclose(htr_take.world_positions(), original, atol=1e-3)


def test_a_typed_scale_is_exactly_the_scale(files, tmp_path, capfd):
    fresh_scene()
    capfd.readouterr()
    assert bpy.ops.import_anim.mocap_bvh(filepath=str(files["bvh"]), scale=0.02) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "read as" not in out and "Info: Imported 1 BVH file(s) into 1 armature(s), scale 0.02" in out
    obj = bpy.context.active_object
    rest = core.read(files["bvh"]).skeleton.rest_world()[1]
    heads = np.array([obj.data.bones[n].head_local for n in core.read(files["bvh"]).skeleton.names])
    assert np.ptp(heads, axis=0).max() == pytest.approx(0.02 * np.ptp(rest, axis=0).max(), rel=1e-5)
    assert file_record.recall_scale(obj.data) == (0.02, None, None)
    export_bvh(bpy.context, obj, tmp_path / "back.bvh")  # the inverse of the typed scale: the file's numbers
    np.testing.assert_allclose(file_numbers(tmp_path / "back.bvh")[0], file_numbers(files["bvh"])[0], atol=1e-4)
    # a typed export scale is exactly that scale too
    assert bpy.ops.export_anim.mocap_bvh(filepath=str(tmp_path / "double.bvh"), scale=0.01) == {"FINISHED"}
    np.testing.assert_allclose(file_numbers(tmp_path / "double.bvh")[0], 2 * file_numbers(files["bvh"])[0], atol=1e-4)
    export_bvh(bpy.context, obj, tmp_path / "metres.bvh", auto_scale=False)  # scale 1: Blender's metres
    np.testing.assert_allclose(
        file_numbers(tmp_path / "metres.bvh")[0], 0.02 * file_numbers(files["bvh"])[0], atol=1e-6
    )
    # and in a script, auto_scale=False is the old default: scale 1
    (plain,), messages = import_bvh(bpy.context, [str(files["bvh"])], auto_scale=False)
    assert not messages.notes and file_record.recall_scale(plain.data)[0] == 1.0


def test_an_htr_and_an_asf_are_read_in_the_units_they_name(files):
    fresh_scene()
    (obj,), messages = import_htr(bpy.context, [str(files["htr"])])
    assert "walk: read in mm, as the file says (scale 0.001)" in messages.notes
    assert file_record.recall_scale(obj.data) == (0.001, "mm", 0.001)


OPERATORS = [
    cls
    for module in (bvh, asf, htr, c3d, trc, memg, famc, retarget)
    for cls in module.CLASSES
    if issubclass(cls, bpy.types.Operator)
]


def properties(idname):
    category, name = idname.split(".")
    return getattr(getattr(bpy.ops, category), name).get_rna_type().properties


@pytest.mark.parametrize("operator", OPERATORS, ids=lambda cls: cls.bl_idname)
def test_option_values_are_blenders_upper_case_identifiers(operator):
    enums = [prop for prop in properties(operator.bl_idname) if prop.type == "ENUM"]
    for prop in enums:
        for item in prop.enum_items:
            assert re.fullmatch(r"-?[A-Z][A-Z0-9_]*", item.identifier), (prop.identifier, item.identifier)
    if "mocap_io" not in operator.bl_idname:  # every file operator has options to choose from
        assert enums


def test_the_plain_functions_still_take_the_values_of_earlier_versions(files, tmp_path):
    fresh_scene()
    (walk,), _ = import_bvh(bpy.context, [str(files["bvh"])], positions="replace")
    (added,), _ = import_bvh(bpy.context, [str(files["bvh"])], positions="add")
    assert walk and added
    import_htr(bpy.context, [str(files["htr"])], euler_reading="applied")
    import_markers(bpy.context, [str(files["trc"])], units="cm")
    assert export_markers(bpy.context, [bpy.context.active_object], str(tmp_path / "m.trc"), units="m").units == "m"
    obj, _ = import_memg(bpy.context, str(files["memg"]), layout="column")
    export_memg(bpy.context, obj, str(tmp_path / "c.memg"), grouping="components", tolerance=1e-2)
    assert set(core.read(tmp_path / "c.memg").mesh.groups) == {"part0", "part1"}
    written = export_famc(bpy.context, obj, str(tmp_path / "r.famc"), byte_order="reference", tolerance=1e-2)
    assert written.frame_count == 8 and (tmp_path / "r.famc").read_bytes()[:4] == b"\xf0\x01\x00\x00"


def test_the_memg_exporter_groups_as_core_write_does(files, tmp_path):
    default = inspect.signature(write_memg).parameters["grouping"].default
    assert properties("export_mesh.memg")["grouping"].default == default.upper() == "GROUPS"
    fresh_scene()
    obj, _ = import_memg(bpy.context, str(files["memg"]))
    assert bpy.ops.export_mesh.memg(filepath=str(tmp_path / "again.memg"), tolerance=1e-2) == {"FINISHED"}
    assert set(core.read(tmp_path / "again.memg").mesh.groups) == {"left", "right"}  # the file's groups back


def test_how_a_file_was_decoded_goes_to_the_console_not_the_report(files, capfd):
    fresh_scene()
    capfd.readouterr()
    assert bpy.ops.import_mesh.memg(filepath=str(files["memg"])) == {"FINISHED"}
    lines = capfd.readouterr().out.splitlines()
    assert "Mocap I/O: bars.memg: U and Q read column-major" in lines
    assert not any("U and Q" in line for line in lines if line.startswith(("Info:", "Warning:")))
    assert any(line.startswith("Info: Imported 'bars': 49 vertices, 8 frames at 24 fps") for line in lines)


def test_errors_name_the_option_to_change_not_a_python_argument(files, tmp_path):
    short = files["bvh"].read_text().replace("Frames: 6", "Frames: 7")
    (tmp_path / "short.bvh").write_text(short)
    text = failed_import(bpy.ops.import_anim.mocap_bvh, filepath=str(tmp_path / "short.bvh"))
    assert "turn Strict off to read the rows present" in text and "strict=" not in text
