"""Fill Gaps and Filter on imported markers in Blender (mocap_io.fill_gaps, mocap_io.filter_markers):
the keys become the core's fill_gaps and filter_markers of the take, filled keys are GENERATED,
gaps left stay gaps (constant key, hidden), undo gives the keys back, errors change nothing; a
point cloud is filled from its file again, and filtered, into a new cache."""

import re

import numpy as np
import pytest

from blender_scene import bpy, fresh_scene
from mocap_io import core
from mocap_io.addon import clean_markers, import_markers
from mocap_io.addon.common import compat
from mocap_io.core.markers import Markers

GENERATED, KEYFRAME = (
    bpy.types.Keyframe.bl_rna.properties["type"].enum_items[name].value for name in ("GENERATED", "KEYFRAME")
)


def take_file(tmp_path, frames=120):
    """A C3D (mm, Z up, 100 Hz) of five markers on a body turning and moving, with noise: "a" has
    a gap of 8 frames (filled by default), "b" one of 40 (longer than the default Max Gap)."""
    rng = np.random.default_rng(3)
    t = np.arange(frames) / 100
    angle = 2 * t
    turn = np.stack([np.cos(angle), -np.sin(angle), np.sin(angle), np.cos(angle)], axis=1).reshape(-1, 2, 2)
    body = rng.normal(0, 150, (5, 3))
    positions = np.empty((frames, 5, 3))
    positions[..., :2] = np.einsum("fij,mj->fmi", turn, body[:, :2]) + (300 * t)[:, None, None]
    positions[..., 2] = body[:, 2] + 900
    positions += rng.normal(0, 0.5, positions.shape)
    positions[50:58, 0] = np.nan
    positions[60:100, 1] = np.nan
    path = tmp_path / "take.c3d"
    core.write(Markers(list("abcde"), positions.astype(np.float32), 100.0, units="mm"), path)
    return path


def imported(path, **options):
    """(the parent, its empties in file order) of an import of `path` from an empty scene, the
    parent selected, and the take as the operators read it: metres, C3D's axes are Blender's."""
    fresh_scene()
    (parent,), _ = import_markers(bpy.context, [str(path)], **options)
    markers = core.read(path)
    seen_in_blender = Markers(markers.names, markers.positions.astype(float) * 0.001, markers.rate, units="m")
    return parent, sorted(parent.children, key=lambda o: o.name), seen_in_blender


def keys(obj):
    """(frames, values (K, 3), key types, interpolations) of an empty's location keys."""
    curves = {(c.data_path, c.array_index): c for c in compat.action_fcurves(obj)}
    arrays = [compat.key_arrays(curves["location", i]) for i in range(3)]
    types = np.empty(len(arrays[0][0]), dtype=np.uint8)
    curves["location", 0].keyframe_points.foreach_get("type", types)
    return arrays[0][0], np.stack([a[1] for a in arrays], axis=1), types, arrays[0][2]


def hidden(obj, frames):
    curve = next(c for c in compat.action_fcurves(obj) if c.data_path == "hide_viewport")
    return compat.sample(curve, frames, 0.0) > 0.5


def test_fill_keys_the_cores_fill_as_generated_keys_and_leaves_long_gaps(tmp_path):
    parent, empties, take = imported(take_file(tmp_path))
    assert bpy.ops.mocap_io.fill_gaps() == {"FINISHED"}
    expected, report = core.fill_gaps(take)
    assert len(report.filled) == 1 and len(report.unfilled) == 1
    frames = np.arange(1, 121, dtype=float)
    a, b = empties[0], empties[1]
    key_frames, values, types, _ = keys(a)
    np.testing.assert_array_equal(key_frames, frames)  # every frame keyed now
    np.testing.assert_allclose(values, expected.positions[:, 0], atol=2e-6)
    assert (types[50:58] == GENERATED).all() and (np.delete(types, range(50, 58)) == KEYFRAME).all()
    assert not hidden(a, frames).any()
    key_frames, _, types, kinds = keys(b)  # the long gap: still unkeyed, hidden, its key before constant
    np.testing.assert_array_equal(key_frames, np.r_[frames[:60], frames[100:]])
    assert (types == KEYFRAME).all() and kinds[59] == compat.interpolations(1, "CONSTANT")[0]
    np.testing.assert_array_equal(hidden(b, frames), (frames > 60) & (frames <= 100))
    # a fill of any length fills it too, on top: the first fill's keys stay GENERATED
    assert bpy.ops.mocap_io.fill_gaps(any_length=True, method="RIGID") == {"FINISHED"}
    assert (keys(b)[2][60:100] == GENERATED).all() and (keys(a)[2][50:58] == GENERATED).all()
    assert not hidden(b, frames).any()


def test_filter_keys_the_cores_filter_and_keeps_gaps_and_key_types(tmp_path):
    parent, empties, take = imported(take_file(tmp_path))
    assert bpy.ops.mocap_io.fill_gaps() == {"FINISHED"}
    filled, _ = core.fill_gaps(take)
    assert bpy.ops.mocap_io.filter_markers(cutoff=8.0, order=2) == {"FINISHED"}
    expected = core.filter_markers(filled, 8.0, 2)
    for m, empty in enumerate(empties):
        key_frames, values, types, _ = keys(empty)
        at = (key_frames - 1).astype(int)
        np.testing.assert_allclose(values, expected.positions[at, m], atol=2e-6)
        assert (types == GENERATED).sum() == (8 if m == 0 else 0)
    np.testing.assert_array_equal(keys(empties[1])[0], np.r_[np.arange(1, 61), np.arange(101, 121)])


def test_a_marker_selected_stands_for_its_set_and_undo_gives_the_keys_back(tmp_path):
    parent, empties, _ = imported(take_file(tmp_path))
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == empties[2])
    before = [keys(e) for e in empties]
    bpy.ops.ed.undo_push(message="imported")
    assert bpy.ops.mocap_io.fill_gaps("EXEC_DEFAULT", True) == {"FINISHED"}
    assert len(keys(bpy.data.objects["a"])[0]) == 120  # the selected marker's set: "a" filled
    bpy.ops.ed.undo()
    restored = sorted(bpy.data.objects["take"].children, key=lambda o: o.name)
    for empty, (frames, values, types, _) in zip(restored, before, strict=True):
        after = keys(empty)
        np.testing.assert_array_equal(after[0], frames)
        np.testing.assert_array_equal(after[1], values)
        np.testing.assert_array_equal(after[2], types)


def test_errors_change_nothing(tmp_path):
    parent, empties, _ = imported(take_file(tmp_path))
    before = [keys(e)[1] for e in empties]
    with pytest.raises(RuntimeError, match="cutoff 60 Hz must lie between 0 and half the rate"):
        bpy.ops.mocap_io.filter_markers(cutoff=60.0)
    for empty, values in zip(empties, before):
        np.testing.assert_array_equal(keys(empty)[1], values)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(False)
    assert not bpy.ops.mocap_io.fill_gaps.poll()
    lone = bpy.data.objects.new("lone", None)  # an empty without keys
    bpy.context.collection.objects.link(lone)
    lone.select_set(True)
    with pytest.raises(RuntimeError, match="lone: no keys to clean"):
        bpy.ops.mocap_io.fill_gaps()


def point_cloud(path):
    """(the point cloud of an import of `path` from an empty scene, selected; its cache's path)."""
    fresh_scene()
    (cloud,), _ = import_markers(bpy.context, [str(path)], representation="POINT_CLOUD")
    return cloud, bpy.path.abspath(cloud.modifiers["Markers"].filepath)


def test_a_point_cloud_is_filled_from_its_file_into_a_new_cache_then_filtered(tmp_path):
    path = take_file(tmp_path)
    cloud, old = point_cloud(path)
    expected, report = core.fill_gaps(core.read(path))
    done, warned = clean_markers(bpy.context, [cloud], "FILL")
    new = bpy.path.abspath(cloud.modifiers["Markers"].filepath)
    assert new == old[:-4] + "_filled1.pc2" and done == [f"take: {report} into {new}"] and not warned
    assert str(report).startswith("1 gap filled (") and ", 1 left: longer than max_gap" in str(report)
    before, filled = core.formats.pc2.read_pc2(old)[0], core.formats.pc2.read_pc2(new)[0]
    np.testing.assert_allclose(filled[50:58, 0], expected.positions[50:58, 0] * 0.001, rtol=0, atol=1e-6)
    seen = np.ones(filled.shape[:2], dtype=bool)
    seen[50:58, 0] = False
    np.testing.assert_array_equal(filled[seen], before[seen])  # seen frames, and "b" held through its gap
    np.testing.assert_array_equal(filled[60:100, 1], np.broadcast_to(before[59, 1], (40, 3)))
    # a filter then filters the filled cache
    assert bpy.ops.mocap_io.filter_markers(cutoff=10.0) == {"FINISHED"}
    last = bpy.path.abspath(cloud.modifiers["Markers"].filepath)
    assert last == new[:-4] + "_filtered1.pc2"
    smooth = core.filter_markers(Markers(list("abcde"), filled, 100.0), 10.0).positions
    np.testing.assert_array_equal(core.formats.pc2.read_pc2(last)[0], smooth)


def test_a_point_cloud_whose_file_is_gone_or_changed_is_left_as_it_is(tmp_path):
    path = take_file(tmp_path)
    cloud, old = point_cloud(path)
    caches = sorted((tmp_path / "mocap_io_cache").iterdir())
    path.rename(tmp_path / "moved.c3d")
    with pytest.raises(RuntimeError, match=re.escape(f"take: its file {path} is gone")):
        bpy.ops.mocap_io.fill_gaps()
    take_file(tmp_path, frames=100)  # another take in its place
    with pytest.raises(RuntimeError, match="no longer matches it: 100 frames of 5 markers, the cloud 120 frames"):
        bpy.ops.mocap_io.fill_gaps()
    assert bpy.path.abspath(cloud.modifiers["Markers"].filepath) == old
    assert sorted((tmp_path / "mocap_io_cache").iterdir()) == caches


def test_the_panel_draws_both_operators():
    from types import SimpleNamespace

    drawn = []
    layout = SimpleNamespace(column=lambda **_: layout, operator=lambda idname, **_: drawn.append(idname))
    panel = bpy.types.VIEW3D_PT_mocap_io_markers
    assert (panel.bl_space_type, panel.bl_region_type, panel.bl_category) == ("VIEW_3D", "UI", "Mocap I/O")
    panel.draw(SimpleNamespace(layout=layout), bpy.context)
    assert drawn == ["mocap_io.fill_gaps", "mocap_io.filter_markers"]
    for idname in drawn:
        getattr(bpy.ops.mocap_io, idname.split(".")[1]).get_rna_type()  # registered
