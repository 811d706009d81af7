"""Every failed import ends as one report naming the file (and the place when known), never a
traceback, with nothing left in bpy.data; nothing non-finite reaches Blender; names beyond
Blender's 63-byte limit are shortened the way Blender does and still matched."""

import re
import struct

import numpy as np
import pytest

from blender_scene import (
    armature_in_edit_mode,
    bpy,
    evaluated_vertices,
    failed_import,
    fresh_scene,
    mutants_import_or_fail_cleanly,
    world_heads,
)
from bvh_samples import SIMPLE
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import export_bvh, import_bvh
from mocap_io.addon.common import compat
from mocap_io.addon.common.names import blender_names
from mocap_io.addon.operators import bvh
from mocap_io.addon.to_blender import motions
from mocap_io.core.mesh import GroupBasis, Mesh, MeshAnimation


@pytest.fixture()
def two_files(tmp_path):
    (tmp_path / "good.bvh").write_text(SIMPLE)
    (tmp_path / "other.bvh").write_text(SIMPLE)
    return {"files": [{"name": "good.bvh"}, {"name": "other.bvh"}], "directory": str(tmp_path)}


@pytest.mark.parametrize(
    "error",
    [
        RecursionError("maximum recursion depth exceeded"),
        MemoryError(),
        OverflowError("int too large"),
        KeyError("x" * 70),
    ],
)
def test_any_error_while_reading_names_the_file(two_files, monkeypatch, error):
    read = core.read

    def failing(path, **options):
        if str(path).endswith("other.bvh"):
            raise error
        return read(path, **options)

    monkeypatch.setattr(bvh.core, "read", failing)
    text = failed_import(bpy.ops.import_anim.mocap_bvh, **two_files)
    assert "other.bvh: " in text and "good.bvh" not in text


def test_an_error_while_building_names_the_file_it_was_building(two_files, monkeypatch):
    build = motions.build_armature
    calls = []

    def failing(context, skeleton, name, *args):
        calls.append(name)
        if name == "other":
            raise KeyError("bone")
        return build(context, skeleton, name, *args)

    monkeypatch.setattr(motions, "build_armature", failing)
    text = failed_import(bpy.ops.import_anim.mocap_bvh, **two_files)
    assert calls == ["good", "other"] and "other.bvh: unexpected KeyError: 'bone'" in text


@pytest.mark.parametrize(
    "change, expected",
    [
        # refused by the reader, beyond errors.LARGEST (the addon's own float-range checks stay behind it)
        (("OFFSET 0 10 0", "OFFSET 0 1e308 0"), r"t\.bvh, line 8: a number of OFFSET is 1e\+308: expected a finite"),
        (("4 5 6 90", "4 5e300 6 90"), r"t\.bvh, line 20: value 2 of this frame line is 5e\+300: expected a finite"),
        (("Frame Time: 0.0333333", "Frame Time: 1e-320"), r"t\.bvh, line 18: Frame Time .* is too small"),
    ],
)
def test_nothing_non_finite_reaches_blender(tmp_path, change, expected):
    (tmp_path / "t.bvh").write_text(SIMPLE.replace(*change))
    text = failed_import(bpy.ops.import_anim.mocap_bvh, filepath=str(tmp_path / "t.bvh"), frame_rate="EXACT")
    assert re.search(expected, text), text


def test_a_memg_of_16_bytes_fails_cleanly(tmp_path):
    core.write(two_bars(), tmp_path / "bars.memg")
    (tmp_path / "bars.memg").write_bytes(np.array([1, 30, 0, 2**31 - 1], "<i4").tobytes())
    text = failed_import(bpy.ops.import_mesh.memg, filepath=str(tmp_path / "bars.memg"))
    assert "bars.memg, byte 8: 2147483647 timesteps but no local frames" in text


@pytest.mark.parametrize("mode", ["BASIS", "BAKED"])
def test_memg_values_beyond_float32_are_refused(tmp_path, mode):
    animation = two_bars()
    animation.groups[0].basis[1, 3, 0] = 1234.5  # writers refuse 1e300: patched into the file
    core.write(animation, tmp_path / "bars.memg")
    data = (tmp_path / "bars.memg").read_bytes()
    assert data.count(struct.pack("<d", 1234.5)) == 1
    (tmp_path / "bars.memg").write_bytes(data.replace(struct.pack("<d", 1234.5), struct.pack("<d", 1e300)))
    text = failed_import(bpy.ops.import_mesh.memg, filepath=str(tmp_path / "bars.memg"), mode=mode)
    assert "bars.memg, byte " in text and "is 1e+300: expected a finite number of magnitude at most 1e+15" in text
    assert not (tmp_path / "bars.pc2").exists()


LONG = ["L" * 70, "L" * 63 + "-other", "é" * 40, "名前" * 20, "short"]


def test_blender_names_are_the_names_blender_gives():
    """Our shortening agrees with Blender's own: bones created from the raw names (Blender 4.2
    cuts inside a UTF-8 character, so there only ASCII names are compared)."""
    raw = LONG + ["L" * 59 + ".001xx", "L" * 63]
    if bpy.app.version < (5, 0, 0):
        raw = [n for n in raw if n.isascii()]
    armature, obj = armature_in_edit_mode("names")
    for name in raw:
        armature.edit_bones.new(name).tail = (0, 1, 0)
    bpy.ops.object.mode_set(mode="OBJECT")
    assert [b.name for b in armature.bones] == blender_names(raw)
    assert all(len(n.encode()) <= 63 for n in blender_names(raw))


def test_long_joint_names_import_keyed_and_export(tmp_path):
    text = SIMPLE.replace("ROOT Hips", f"ROOT {LONG[0]}").replace("JOINT Chest", f"JOINT {LONG[1]}")
    text = text.replace(
        "\t\tEnd Site",
        f"\t\tJOINT {LONG[2]}\n\t\t{{\n\t\t\tOFFSET 0 1 0\n\t\t\tCHANNELS 3 "
        "Zrotation Xrotation Yrotation\n\t\t\tEnd Site",
        1,
    )
    text = text.replace("\t\t\tOFFSET 0 5 0\n\t\t}\n", "\t\t\tOFFSET 0 5 0\n\t\t}\n\t\t}\n", 1)
    text = text.replace("1 2 3 0 0 0 0 0 0", "1 2 3 0 0 0 0 0 0 0 0 0").replace(
        "4 5 6 90 0 0 0 0 90", "4 5 6 90 0 0 0 0 90 0 30 0"
    )
    path = tmp_path / "long.bvh"
    path.write_bytes(text.encode("utf-8"))
    motion = core.read(path)
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(path)], scale=1.0)
    obj = objects[0]
    names = blender_names(motion.skeleton.names)
    assert [b.name for b in obj.data.bones] == names and names[1] == "L" * 59 + ".001"
    paths = {c.data_path for c in compat.action_fcurves(obj)}
    assert all(any(f'"{n}"' in p for p in paths) for n in names)  # every bone keyed
    heads, order = world_heads(obj, 2)
    expected = motion.world_positions()[1] @ np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]]).T
    np.testing.assert_allclose(heads, expected[[names.index(n) for n in order]], atol=1e-5)
    fresh_scene()
    shared, _ = import_bvh(bpy.context, [str(path), str(path)], one_armature=True)
    assert len(shared) == 1  # the second file's skeleton matched by the shortened names
    obj = shared[0]
    export_bvh(bpy.context, obj, str(tmp_path / "out.bvh"))
    assert core.read(tmp_path / "out.bvh").skeleton.names == motion.skeleton.names  # the file's names, remembered
    obj.data.pop("mocap_io")
    export_bvh(bpy.context, obj, str(tmp_path / "bones.bvh"))
    assert core.read(tmp_path / "bones.bvh").skeleton.names == names  # without the record: the bones' names


def test_long_group_names_import_with_matching_bones_and_vertex_groups(tmp_path):
    animation = two_bars()
    long_names = ["G" * 70, "G" * 63 + "+right"]  # equal in their first 63 bytes
    mesh = animation.mesh
    renamed = Mesh(
        mesh.vertices,
        mesh.face_sizes,
        mesh.face_vertices,
        groups={long_names[0]: mesh.groups["left"], long_names[1]: mesh.groups["right"]},
    )
    groups = [
        GroupBasis(n, g.vertices, g.mean, g.basis, g.coefficients, g.frame)
        for n, g in zip(long_names, animation.groups)
    ]
    core.write(
        MeshAnimation(renamed, animation.fps, groups=groups, transforms=animation.transforms), tmp_path / "long.memg"
    )
    fresh_scene()
    assert bpy.ops.import_mesh.memg(filepath=str(tmp_path / "long.memg")) == {"FINISHED"}
    obj = bpy.data.objects["long"]
    names = blender_names(long_names)
    assert [b.name for b in obj.parent.data.bones] == names == ["G" * 63, "G" * 59 + ".001"]
    assert names == [g.name for g in obj.vertex_groups][:2]
    expected = animation.positions()
    for frame in (0, 17):
        np.testing.assert_allclose(evaluated_vertices(obj, 1 + frame), expected[frame], atol=1e-4)


@pytest.mark.parametrize("fmt", ["bvh", "memg", "famc"])
def test_mutants_import_or_fail_cleanly(tmp_path, fmt):
    """The Blender-side fuzz (blender_scene) through the import operators; deep nesting and many
    lines are the core fuzz's (slow to build in Blender)."""
    operator = {
        "bvh": bpy.ops.import_anim.mocap_bvh,
        "memg": bpy.ops.import_mesh.memg,
        "famc": bpy.ops.import_mesh.famc,
    }[fmt]
    mutants_import_or_fail_cleanly(
        tmp_path, fmt, lambda path, case: operator(filepath=str(path)), skip=("nest", "many lines")
    )
