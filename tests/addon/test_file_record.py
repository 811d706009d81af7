"""The imported file remembered on the armature: it survives saving and duplication, export writes
it back by default, other layouts stay one option away, and a changed rig falls back to its bones."""

import json

import numpy as np
import pytest

from blender_scene import bpy, fresh_scene
from mocap_io import core
from mocap_io.addon import export_bvh, import_bvh
from mocap_io.addon.common.file_record import KEY
from sample_motion import cmu_like_motion


@pytest.fixture()
def mixed_file(tmp_path):
    """A take with a different channel order per joint, rotations listed before positions on the
    root, position channels on one more joint, Frame Time 0.0333667 (NTSC) and an End Site with
    8 decimals."""
    motion = cmu_like_motion(core, 20, seed=4)
    s = motion.skeleton
    orders = ["YXZ", "ZYX", "XZY", "ZXY", "YZX", "XYZ"]
    channels = []
    for j in range(s.joint_count):
        order = orders[j % len(orders)]
        rotation = tuple(a + "rotation" for a in order)
        channels.append(rotation + core.skeleton.POSITION_CHANNELS if j in (0, 3) else rotation)
    end_offsets = s.end_site_offsets.copy()
    end_offsets[0] = [0.12345678, 7.5, -1.25]
    skeleton = core.Skeleton(
        s.names,
        s.parents,
        s.offsets,
        channels=channels,
        end_site_parents=s.end_site_parents,
        end_site_offsets=end_offsets,
    )
    rotations = motion.local_rotations()
    euler = np.stack(
        [core.rotations.matrix_to_euler(rotations[:, j], orders[j % len(orders)]) for j in range(s.joint_count)], axis=1
    )
    mixed = core.Motion(
        skeleton,
        1 / 0.0333667,
        euler,
        [orders[j % len(orders)] for j in range(s.joint_count)],
        motion.translations,
        frame_time_text="0.0333667",
    )
    path = tmp_path / "mixed.bvh"
    core.write(mixed, path, precision=8)
    return path


def header(path):
    text = path.read_text()
    return text[: text.index("MOTION")], text.split("\n")[text.split("\n").index("MOTION") + 2]


def assert_same_layout(a, b):
    a, b = core.read(a), core.read(b)
    assert b.skeleton.channels == a.skeleton.channels and b.frame_time_text == a.frame_time_text
    np.testing.assert_allclose(b.skeleton.offsets, a.skeleton.offsets, atol=5e-7)
    np.testing.assert_allclose(b.skeleton.end_site_offsets, a.skeleton.end_site_offsets, atol=5e-7)
    np.testing.assert_allclose(b.world_positions(), a.world_positions(), atol=1e-4)


def test_export_writes_the_imported_file_back(mixed_file, tmp_path):
    fresh_scene()
    obj = import_bvh(bpy.context, [str(mixed_file)])[0][0]
    record = json.loads(obj.data[KEY])
    assert record["joints"]["Hips"]["channels"][:3] == ["Yrotation", "Xrotation", "Zrotation"]
    assert json.loads(obj.animation_data.action[KEY]) == {
        "frame_time": "0.0333667",
        "rate": "30000/1001",
        "frame_step": "1",
    }
    export_bvh(bpy.context, obj, tmp_path / "out.bvh", precision=8)
    assert header(tmp_path / "out.bvh") == header(mixed_file)  # byte for byte
    assert_same_layout(mixed_file, tmp_path / "out.bvh")


def test_the_record_survives_saving_and_duplication(mixed_file, tmp_path):
    fresh_scene()
    import_bvh(bpy.context, [str(mixed_file)])
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "scene.blend"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "scene.blend"))
    obj = bpy.data.objects["mixed"]
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.duplicate()
    copy = bpy.context.object
    assert copy is not obj and copy.data is not obj.data
    for armature in (obj, copy):
        export_bvh(bpy.context, armature, tmp_path / "out.bvh")
        assert_same_layout(mixed_file, tmp_path / "out.bvh")


def test_other_layouts_are_one_option_away(mixed_file, tmp_path):
    fresh_scene()
    obj = import_bvh(bpy.context, [str(mixed_file)], rotation_mode="NATIVE")[0][0]
    export_bvh(bpy.context, obj, tmp_path / "zxy.bvh", rotation_order="ZXY", position_channels="ROOT")
    zxy = core.read(tmp_path / "zxy.bvh")
    assert set(zxy.euler_orders) == {"ZXY"}
    assert zxy.skeleton.channels[0] == core.skeleton.POSITION_CHANNELS + ("Zrotation", "Xrotation", "Yrotation")
    assert all(c == ("Zrotation", "Xrotation", "Yrotation") for c in zxy.skeleton.channels[1:])
    export_bvh(bpy.context, obj, tmp_path / "native.bvh", rotation_order="NATIVE", position_channels="ALL")
    native = core.read(tmp_path / "native.bvh")
    assert native.euler_orders == core.read(mixed_file).euler_orders  # the bones' Euler modes
    assert all(len(c) == 6 and c[0] == "Xposition" for c in native.skeleton.channels)
    original = core.read(mixed_file).world_positions()
    for motion in (zxy, native):
        np.testing.assert_allclose(motion.world_positions(), original, atol=1e-4)


def test_a_changed_rig_is_exported_from_its_bones(mixed_file, tmp_path):
    fresh_scene()
    obj = import_bvh(bpy.context, [str(mixed_file)])[0][0]
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones["Spine"].head.z += 0.5  # an edited rest pose: the file's OFFSETs are stale
    bpy.ops.object.mode_set(mode="OBJECT")
    export_bvh(bpy.context, obj, tmp_path / "out.bvh")
    out = core.read(tmp_path / "out.bvh")
    assert out.skeleton.channels == core.read(mixed_file).skeleton.channels  # the layout still applies
    spine = out.skeleton.index("Spine")
    assert out.skeleton.offsets[spine] != pytest.approx(core.read(mixed_file).skeleton.offsets[spine], abs=0.1)
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones.remove(obj.data.edit_bones["Head"])  # another joint set: the record does not apply
    bpy.ops.object.mode_set(mode="OBJECT")
    export_bvh(bpy.context, obj, tmp_path / "out.bvh")
    out = core.read(tmp_path / "out.bvh")
    assert set(out.euler_orders) == {"ZXY"} and out.skeleton.channels[0][:3] == core.skeleton.POSITION_CHANNELS
