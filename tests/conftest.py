"""Test set-up: the helpers in tests/ and tools/ are importable; `mocap_io` must be this checkout
(installed with `pip install -e .`, as requirements*.txt do); temporary files must not outlive the run."""

import pathlib
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]

import mocap_io  # noqa: E402

if pathlib.Path(mocap_io.__file__).resolve().parent != ROOT:
    raise pytest.UsageError(
        f"mocap_io is imported from {mocap_io.__file__}, not this checkout {ROOT}: "
        f"run `pip install -e {ROOT}` in this venv"
    )


@pytest.fixture(scope="session", autouse=True)
def temporary_folder(tmp_path_factory):
    """Point `tempfile` at a folder of this run and fail the run if anything is left in it: tests
    leave nothing in /tmp beyond pytest's own tmp_path folders. (Not TMPDIR: Blender would move its
    session folder there, which it removes only when the process ends.)"""
    folder = tmp_path_factory.mktemp("tempfile")
    default, tempfile.tempdir = tempfile.tempdir, str(folder)
    yield folder
    tempfile.tempdir = default
    left = sorted(p.name for p in folder.iterdir())
    assert not left, f"temporary files left behind in {folder}: {left}"
