"""Leaving Python after documented usage exits cleanly on every supported Blender (bpy 4.2 crashed
with rc 139 when the add-on was still registered at exit)."""

import subprocess
import sys

import pytest

pytest.importorskip("bpy")


@pytest.mark.parametrize(
    "script",
    [
        "import bpy, mocap_io; mocap_io.register()",
        "import bpy, mocap_io; mocap_io.register(); mocap_io.unregister()",
        "import bpy, mocap_io; mocap_io.register(); mocap_io.unregister(); mocap_io.register()",
    ],
)
def test_exit_after_register(script, tmp_path):
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
