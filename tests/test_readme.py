"""Every code block of README.md runs, so the README cannot drift from the code.

Blocks are fenced with their language. Python blocks run verbatim in a scratch copy of the
checkout holding walk.bvh (a generated take), a folder takes/ of a few more and bars.famc (a
generated mesh animation, its bars.obj beside it). Shell blocks run
there command by command: `.venv/bin/python` is this test's interpreter, a `pip install -r` is
checked against the running environment (the one those commands made), `mocap-io` is the command
line of this checkout, and `blender --background --python-expr EXPR` runs EXPR in the bpy module
with the add-on registered, as the installed extension is in Blender.
"""

import importlib.metadata
import importlib.util
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

import mocap_io
from ensemble_samples import two_bars
from mocap_io import core
from sample_motion import cmu_like_motion

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCED = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
BLOCKS = FENCED.findall(README)
HAS_BPY = importlib.util.find_spec("bpy") is not None
NOT_COPIED = shutil.ignore_patterns(".*", "__pycache__", "out", "build", "*.egg-info", "*.zip")


def test_every_code_block_is_fenced_with_a_language_the_test_runs():
    unfenced = FENCED.sub("", README)
    assert not re.search(r"\n\n(    |\t)\S", unfenced), "an indented code block: fence it with its language"
    assert BLOCKS and {language for language, _ in BLOCKS} <= {"sh", "python"}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A copy of the checkout's files (no venvs, caches or outputs) with walk.bvh, takes/ and
    bars.famc in it."""
    folder = tmp_path_factory.mktemp("readme") / "mocap_io"
    shutil.copytree(ROOT, folder, ignore=NOT_COPIED)
    core.write(cmu_like_motion(core, 120), folder / "walk.bvh")
    (folder / "takes" / "run").mkdir(parents=True)
    core.write(cmu_like_motion(core, 60, seed=1), folder / "takes" / "walk.bvh")
    core.write(cmu_like_motion(core, 90, fps=30.0, seed=2), folder / "takes" / "run" / "jog.htr")
    core.write(two_bars(), folder / "bars.famc")
    return folder


def run(command, folder):
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, f"{command}\n{done.stdout}{done.stderr}"


def check_requirements(path):
    """The running environment is what `pip install -r path` installs: the pins and this checkout."""
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.split("[")[0] == "-e .":  # this checkout, with or without extras
            assert pathlib.Path(mocap_io.__file__).parent == ROOT
        elif line:
            name, version = line.split("==")
            assert importlib.metadata.version(name) == version, f"{path.name}: {line}"


def run_shell_command(words, folder):
    match words:
        case ["python3.11", "-m", "venv", ".venv"]:
            pass  # the interpreter running this test lives in such a venv
        case [".venv/bin/pip", "install", *_, "-r", requirements]:
            check_requirements(folder / requirements)
        case [".venv/bin/python", "-m", "pytest", "tests"]:
            pass  # this run
        case [".venv/bin/python", script, *arguments]:
            run([sys.executable, script, *arguments], folder)
        case ["mocap-io", *arguments]:
            run([sys.executable, "-m", "mocap_io", *arguments], folder)
        case ["blender", "--background", "--python-expr", expression]:
            run([sys.executable, "-c", f"import bpy, mocap_io; mocap_io.register(); {expression}"], folder)
        case _:
            pytest.fail(f"a README command this test does not know how to run: {shlex.join(words)}")


@pytest.mark.parametrize("language, code", BLOCKS, ids=[f"{language}{i}" for i, (language, _) in enumerate(BLOCKS)])
def test_readme_code_block_runs(language, code, checkout):
    if not HAS_BPY and (language == "sh" or "import bpy" in code):
        pytest.skip("needs the bpy module")
    if language == "python":
        run([sys.executable, "-c", code], checkout)
        return
    for line in code.splitlines():
        for command in line.split(" && "):
            run_shell_command(shlex.split(command), checkout)
