"""A failed import for want of a companion file (the .asf of an .amc, the .obj of a .memg or .famc)
says so in one line that names the companion and the imported file once each, and what to do in
the add-on's terms; nothing is left behind (issue 28, item 12)."""

import pytest

from asf_samples import amc_text, amc_values
from blender_scene import bpy, failed_import
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.core.mesh import MeshAnimation


def test_an_amc_without_its_asf_names_the_amc_once(tmp_path):
    amc = tmp_path / "walk.amc"
    amc.write_text(amc_text(amc_values(3)))
    text = failed_import(bpy.ops.import_anim.mocap_asf, files=[{"name": "walk.amc"}], directory=str(tmp_path))
    assert text.count(str(amc)) == 1 and text.count("walk.amc") == 1, text
    assert f"{tmp_path / '*.asf'}: No such file or directory: the skeleton of {amc}" in text
    assert text.rstrip().endswith("import the .asf with the .amc files")


@pytest.mark.parametrize("ext", [".memg", ".famc"])
@pytest.mark.parametrize("given", [False, True])
def test_a_mesh_animation_without_its_obj_names_both_once(tmp_path, ext, given):
    animation = two_bars(frames=4)
    if ext == ".famc":
        animation = MeshAnimation(animation.mesh, 24, animation.positions())
    path = tmp_path / f"take{ext}"
    core.write(animation, path)
    (tmp_path / "take.obj").unlink()
    obj = tmp_path / ("chosen.obj" if given else "take.obj")
    options = {"obj_path": str(obj)} if given else {}
    operator = bpy.ops.import_mesh.memg if ext == ".memg" else bpy.ops.import_mesh.famc
    text = failed_import(operator, filepath=str(path), **options)
    assert text.count(str(path)) == 1 and text.count(str(obj)) == 1, text
    assert f"{obj}: No such file or directory: the mesh of {path}; name it in the OBJ option" in text
