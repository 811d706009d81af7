"""Imports run as steps: a user's import runs a slice per timer tick (modal), Esc cancels and leaves
nothing; scripts get the whole import in one call. The modal operator needs a window, so these
tests drive the same methods the event loop calls, with timer and Esc events."""

from types import SimpleNamespace

import numpy as np
import pytest

from blender_scene import bpy, data_counts, fresh_scene, world_heads
from ensemble_samples import two_bars
from mocap_io import core
from mocap_io.addon import import_bvh
from mocap_io.addon.common.progress import SteppedImport
from mocap_io.addon.operators.bvh import import_bvh_steps
from mocap_io.addon.to_blender.ensemble import import_memg_steps
from sample_motion import cmu_like_motion


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    path = tmp_path_factory.mktemp("stepped") / "take.bvh"
    core.write(cmu_like_motion(core, 120), path)
    return path


class Driver(SteppedImport):
    """An unregistered stand-in for an operator: the mixin's methods, with reports collected."""

    bl_label = "Import Test"

    def __init__(self, work):
        self.work, self.reports, self.result, self.interactive = work, [], None, True

    def steps(self, context):
        return self.work

    def finished(self, context, result):
        self.result = result

    def report(self, kind, message):
        self.reports.append((kind, message))

    def is_repeat(self):
        return False


def tick(driver, kind="TIMER"):
    return driver.modal(bpy.context, SimpleNamespace(type=kind, value="PRESS"))


def test_timer_ticks_finish_the_import_like_one_call(sample):
    fresh_scene()
    reference, _ = import_bvh(bpy.context, [str(sample)])
    expected = world_heads(reference[0], 30)[0]
    fresh_scene()
    driver = Driver(import_bvh_steps(bpy.context, [str(sample)]))
    driver._SLICE = 0.0  # one step per tick
    driver._start(bpy.context)
    ticks = 1
    while (outcome := tick(driver)) == {"RUNNING_MODAL"} and ticks < 1000:  # the event loop's part
        ticks += 1
    assert outcome == {"FINISHED"} and ticks > 10  # a step per tick: the file, the armature, each bone
    objects, _ = driver.result
    np.testing.assert_allclose(world_heads(objects[0], 30)[0], expected, atol=1e-6)


def test_other_events_wait_and_escape_cancels_leaving_nothing(sample):
    fresh_scene()
    before = data_counts()
    driver = Driver(import_bvh_steps(bpy.context, [str(sample)]))
    driver._SLICE = 0.0
    driver._start(bpy.context)
    for _ in range(8):  # the armature exists and some bones are keyed
        assert tick(driver) == {"RUNNING_MODAL"}
    assert data_counts() != before
    assert tick(driver, "MOUSEMOVE") == {"RUNNING_MODAL"}
    assert tick(driver, "ESC") == {"CANCELLED"}
    assert data_counts() == before
    assert "cancelled" in driver.reports[-1][1]


def test_a_bad_file_reports_and_cancels(tmp_path):
    bad = tmp_path / "bad.bvh"
    bad.write_text(
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n}\n"
        "MOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0\n0 zero 0\n"
    )
    fresh_scene()
    before = data_counts()
    driver = Driver(import_bvh_steps(bpy.context, [str(bad)]))
    driver._start(bpy.context)
    assert tick(driver) == {"CANCELLED"}
    assert data_counts() == before
    kind, message = driver.reports[-1]
    assert kind == {"ERROR"} and "line 11" in message


def test_scripts_and_the_background_run_at_once(sample):
    fresh_scene()
    driver = Driver(import_bvh_steps(bpy.context, [str(sample)]))
    assert bpy.app.background and driver.execute(bpy.context) == {"FINISHED"}
    assert driver.result[0][0].type == "ARMATURE"


def test_mesh_ensemble_import_cancels_leaving_nothing(tmp_path):
    path = tmp_path / "bars.memg"
    core.write(two_bars(), path)
    fresh_scene()
    before = data_counts()
    work = import_memg_steps(bpy.context, str(path))
    for _ in range(2):
        next(work)
    assert data_counts() != before
    work.close()
    assert data_counts() == before
