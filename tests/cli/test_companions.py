"""A missing companion file (the .asf of an .amc, the .obj of a .memg, .famc or .pc2) is a missing
file: exit code 5 (OS_ERROR), one line naming the companion, whose companion it is, and the option
that names another (issue 28, item 12)."""

import pytest

from asf_samples import amc_text, amc_values
from command_line import run
from ensemble_samples import without_obj
from mocap_io import cli


@pytest.mark.parametrize("ext", [".memg", ".famc", ".pc2"])
@pytest.mark.parametrize("command", ["info", "convert"])
def test_a_missing_obj_exits_with_the_os_error_code(capsys, tmp_path, ext, command):
    path = without_obj(tmp_path, ext)
    target = tmp_path / ("out.memg" if ext == ".pc2" else "out.pc2")  # a mesh animation's format: the read fails
    out = [target] if command == "convert" else []
    code, _, err = run(capsys, command, path, *out)
    obj = tmp_path / "take.obj"
    assert code == cli.OS_ERROR == 5
    assert err.startswith(f"mocap-io: error: {obj}: No such file or directory: the mesh of {path}")
    assert err.endswith("; give --obj OBJ\n") and err.count(str(path)) == 1 and len(err.splitlines()) == 1
    code, _, err = run(capsys, command, path, *out, "--obj", tmp_path / "other.obj")
    assert code == cli.OS_ERROR and err.startswith(f"mocap-io: error: {tmp_path / 'other.obj'}: No such file")
    assert not target.exists()


@pytest.mark.parametrize("command", ["info", "convert"])
def test_a_missing_asf_exits_with_the_os_error_code(capsys, tmp_path, command):
    amc = tmp_path / "walk.amc"
    amc.write_text(amc_text(amc_values(3)))
    out = [tmp_path / "walk.bvh"] if command == "convert" else []
    code, _, err = run(capsys, command, amc, *out)
    assert code == cli.OS_ERROR
    assert err == (
        f"mocap-io: error: {tmp_path / '*.asf'}: No such file or directory: the skeleton of {amc} "
        "(no .asf file in its folder); give --skeleton x.asf\n"
    )
    code, _, err = run(capsys, command, amc, *out, "--skeleton", tmp_path / "other.asf")
    assert code == cli.OS_ERROR and err == (
        f"mocap-io: error: {tmp_path / 'other.asf'}: No such file or directory: the skeleton of {amc}; "
        "give --skeleton x.asf\n"
    )


def test_a_missing_file_with_a_companion_is_named_itself(capsys, tmp_path):
    for name in ("gone.amc", "gone.memg"):
        code, _, err = run(capsys, "info", tmp_path / name)
        assert code == cli.OS_ERROR and err == f"mocap-io: error: {tmp_path / name}: No such file or directory\n"
