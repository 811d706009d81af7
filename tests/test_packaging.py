"""`pip install .` gives the package `mocap_io` (the repository root) and the `mocap-io` command,
nothing else: the wheel holds the add-on's, the core's and the command line's modules, not tests/,
tools/ or benchmarks/, and imports from any folder. (`pip install -e .` is what every requirements
file does; conftest checks it.)"""

import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
_NOT_COPIED = shutil.ignore_patterns(".*", "__pycache__", "*.egg-info", "*.zip")


def not_copied(folder, names):
    """What a clean checkout lacks: hidden files, caches, and the root's build products."""
    root = {"out", "build"} & set(names) if pathlib.Path(folder) == ROOT else set()
    return _NOT_COPIED(folder, names) | root


def pip(*arguments):
    """pip offline, with the build backend of this environment (as `pip install .` would use)."""
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *arguments]
    subprocess.run([*command, "--no-index", "--no-deps", "--no-build-isolation"], check=True)


def test_pip_install_gives_the_package_and_nothing_else(tmp_path):
    source = tmp_path / "checkout"  # a copy: building writes build/ and *.egg-info beside the sources
    shutil.copytree(ROOT, source, ignore=not_copied)
    pip("wheel", "-w", str(tmp_path / "wheels"), str(source))
    (wheel,) = (tmp_path / "wheels").glob("mocap_io-*.whl")
    folders = ("core", "addon", "cli")
    modules = {p.relative_to(ROOT).as_posix() for folder in folders for p in (ROOT / folder).rglob("*.py")}
    archive = zipfile.ZipFile(wheel)
    names = {n for n in archive.namelist() if ".dist-info/" not in n}
    assert names == {f"mocap_io/{m}" for m in {"__init__.py", "__main__.py", *modules}}
    (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
    assert "mocap-io = mocap_io.cli:run" in archive.read(entry_points).decode()

    pip("install", "--target", str(tmp_path / "site"), str(wheel))
    check = (
        "import importlib.util, mocap_io.core, mocap_io.core.formats.bvh\n"
        f"assert mocap_io.__file__.startswith({str(tmp_path / 'site')!r}), mocap_io.__file__\n"
        "assert importlib.util.find_spec('mocap_io.addon') is not None\n"
        "assert not any(importlib.util.find_spec(n) for n in ('tests', 'tools', 'benchmarks'))\n"
        "print(mocap_io.core.read)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
