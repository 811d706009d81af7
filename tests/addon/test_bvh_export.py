"""The BVH exporter: what it writes, read back by the core and by Blender's importer, gives the
world joint positions Blender shows."""

import numpy as np
import pytest

from blender_scene import armature_in_edit_mode, bpy, fresh_scene, world_heads
from mocap_io import core
from mocap_io.addon import export_bvh, import_bvh
from mocap_io.addon.common.units import axis_matrix
from sample_motion import cmu_like_motion

A = axis_matrix("-Z", "Y")


@pytest.fixture()
def imported(tmp_path):
    path = tmp_path / "take.bvh"
    core.write(cmu_like_motion(core, 60, seed=2), path)
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [str(path)], auto_scale=True)
    return objects[0]


def assert_file_matches_blender(path, obj, scale, frames=(1, 2, 30, 60), first=1):
    motion = core.read(path)
    positions = scale * motion.world_positions() @ A.T
    for frame in frames:
        heads, names = world_heads(obj, frame)
        index = [motion.skeleton.index(n) for n in names]
        np.testing.assert_allclose(positions[frame - first][index], heads, atol=2e-5)


@pytest.mark.parametrize("source", ["ACTION", "EVALUATED"])
def test_export_gives_the_positions_blender_shows(imported, tmp_path, source):
    path = tmp_path / "out.bvh"
    assert bpy.ops.export_anim.mocap_bvh(filepath=str(path), scale=0.01, source=source) == {"FINISHED"}
    motion = core.read(path)
    assert motion.frame_count == 60 and motion.fps == 120
    assert motion.skeleton.channels[0][:3] == ("Xposition", "Yposition", "Zposition")
    assert all(len(c) == 3 for c in motion.skeleton.channels[1:])
    assert len(motion.skeleton.end_site_parents) == 7
    assert_file_matches_blender(path, imported, 0.01)


def test_sources_agree_and_options(imported, tmp_path):
    export_bvh(bpy.context, imported, tmp_path / "a.bvh", scale=0.01, source="ACTION")
    export_bvh(bpy.context, imported, tmp_path / "e.bvh", scale=0.01, source="EVALUATED")
    a, e = core.read(tmp_path / "a.bvh"), core.read(tmp_path / "e.bvh")
    np.testing.assert_allclose(a.world_positions(), e.world_positions(), atol=1e-4)
    export_bvh(
        bpy.context,
        imported,
        tmp_path / "o.bvh",
        scale=0.01,
        rotation_order="XYZ",
        position_channels="ALL",
        frame_start=10,
        frame_end=20,
        precision=4,
    )
    o = core.read(tmp_path / "o.bvh")
    assert o.frame_count == 11 and set(o.euler_orders) == {"XYZ"}
    assert all(len(c) == 6 for c in o.skeleton.channels)
    assert_file_matches_blender(tmp_path / "o.bvh", imported, 0.01, frames=(10, 15, 20), first=10)


def test_the_builtin_importer_reads_our_export(imported, tmp_path):
    path = tmp_path / "out.bvh"
    export_bvh(bpy.context, imported, path, scale=0.01)
    bpy.ops.import_anim.bvh(filepath=str(path), global_scale=0.01)
    builtin = bpy.context.object
    for frame in (1, 25, 60):
        ours, names = world_heads(imported, frame)
        theirs, their_names = world_heads(builtin, frame)
        np.testing.assert_allclose(ours, theirs[[their_names.index(n) for n in names]], atol=2e-5)


def test_a_hand_made_rig_with_rolls_and_a_constraint(tmp_path):
    """Any armature exports: bones with roll, an object transform, and a constraint (evaluated)."""
    armature, obj = armature_in_edit_mode("rig")
    root = armature.edit_bones.new("root")
    root.head, root.tail, root.roll = (0, 0, 1), (0, 0, 1.5), 0.7
    arm = armature.edit_bones.new("arm")
    arm.head, arm.tail, arm.roll, arm.parent = (0, 0, 1.5), (0.6, 0.1, 1.6), -1.2, root
    bpy.ops.object.mode_set(mode="OBJECT")
    obj.location, obj.rotation_euler = (1, 2, 0), (0, 0, 0.5)
    for frame, angle in ((1, 0.0), (10, 1.0), (20, -0.5)):
        obj.pose.bones["root"].rotation_quaternion = (np.cos(angle / 2), np.sin(angle / 2), 0, 0)
        obj.pose.bones["root"].location = (0.1 * angle, 0, 0)
        obj.pose.bones["arm"].rotation_quaternion = (np.cos(angle), 0, 0, np.sin(angle))
        for bone in obj.pose.bones:
            bone.keyframe_insert("rotation_quaternion", frame=frame)
        obj.pose.bones["root"].keyframe_insert("location", frame=frame)
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
    path = tmp_path / "rig.bvh"
    export_bvh(bpy.context, obj, path)
    assert_file_matches_blender(path, obj, 1.0, frames=(1, 5, 10, 15, 20))
    constraint = obj.pose.bones["arm"].constraints.new("LIMIT_ROTATION")
    constraint.use_limit_z, constraint.max_z, constraint.owner_space = True, 0.2, "LOCAL"
    export_bvh(bpy.context, obj, path)  # AUTO: the constraint makes it evaluate the scene
    assert_file_matches_blender(path, obj, 1.0, frames=(1, 5, 10, 15, 20))


def test_a_failed_export_leaves_no_file(imported, tmp_path):
    with pytest.raises(RuntimeError, match="No such file"):
        bpy.ops.export_anim.mocap_bvh(filepath=str(tmp_path / "missing" / "out.bvh"))
    assert not (tmp_path / "missing").exists()
