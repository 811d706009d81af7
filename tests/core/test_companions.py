"""One rule for a file read with a companion (an .amc and its .asf; a .memg, .famc or .pc2 and its
.obj): a missing companion is a FileNotFoundError whose filename is the companion, saying whose
companion it is and how to name another (skeleton=, obj=), whether found beside the file or given
(issue 28, item 12). A missing file itself is named as itself, not as a file without a companion."""

import errno

import pytest

from asf_samples import ASF, amc_text, amc_values
from ensemble_samples import without_obj
from mocap_io import core

MESHES = {".memg": "", ".famc": "", ".pc2": " (a PC2 cache holds no faces)"}  # what the message adds


def _the_rule(caught, companion, owner, what, keyword):
    error = caught.value
    assert type(error) is FileNotFoundError and isinstance(error, OSError) and error.errno == errno.ENOENT
    assert error.filename == str(companion)
    assert error.strerror.startswith(f"No such file or directory: the {what} of {owner}")
    assert error.strerror.endswith(f"; pass {keyword}")
    assert str(owner) in str(error) and not isinstance(error, core.ParseError)


@pytest.mark.parametrize("ext", list(MESHES))
def test_a_missing_obj_is_a_missing_file_named_as_the_mesh_of_its_file(tmp_path, ext):
    path = without_obj(tmp_path, ext)
    with pytest.raises(FileNotFoundError) as caught:
        core.read(path)
    _the_rule(caught, tmp_path / "take.obj", path, "mesh", "obj=...")
    assert caught.value.strerror == f"No such file or directory: the mesh of {path}{MESHES[ext]}; pass obj=..."
    with pytest.raises(FileNotFoundError) as caught:  # given, and not there: the same rule
        core.read(path, obj=tmp_path / "elsewhere.obj")
    _the_rule(caught, tmp_path / "elsewhere.obj", path, "mesh", "obj=...")


@pytest.mark.parametrize("ext", list(MESHES))
def test_a_link_to_nothing_as_the_obj_is_a_missing_mesh(tmp_path, ext):
    path = without_obj(tmp_path, ext)
    (tmp_path / "take.obj").symlink_to(tmp_path / "gone.obj")
    with pytest.raises(FileNotFoundError) as caught:
        core.read(path)
    _the_rule(caught, tmp_path / "take.obj", path, "mesh", "obj=...")


@pytest.mark.filterwarnings("ignore:.*unknown section")  # the sample ASF's :skin
def test_an_amc_without_an_asf_beside_it_names_the_asf_it_looked_for(tmp_path):
    amc = tmp_path / "walk.amc"
    amc.write_text(amc_text(amc_values(3)))
    with pytest.raises(FileNotFoundError) as caught:
        core.read(amc)
    _the_rule(caught, tmp_path / "*.asf", amc, "skeleton", 'skeleton="x.asf"')
    assert "(no .asf file in its folder)" in caught.value.strerror
    with pytest.raises(FileNotFoundError) as caught:  # given, and not there: the same rule
        core.read(amc, skeleton=tmp_path / "elsewhere.asf")
    _the_rule(caught, tmp_path / "elsewhere.asf", amc, "skeleton", 'skeleton="x.asf"')
    (tmp_path / "walk.asf").write_text(ASF)
    assert core.read(amc).frame_count == 3


@pytest.mark.parametrize("name", ["take.memg", "take.famc", "take.pc2", "walk.amc"])
def test_a_missing_file_is_named_itself_not_as_one_without_its_companion(tmp_path, name):
    path = tmp_path / name
    with pytest.raises(FileNotFoundError) as caught:
        core.read(path)
    assert caught.value.filename == str(path) and caught.value.strerror == "No such file or directory"


def test_a_companion_that_is_there_but_unreadable_keeps_its_own_error(tmp_path):
    path = without_obj(tmp_path, ".memg")
    (tmp_path / "take.obj").mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        core.read(path)
    assert caught.value.filename == str(tmp_path / "take.obj")
