"""Differences between Blender versions, behind one small interface.

Blender 4.4 introduced slotted (layered) actions; 5.0 removed `Action.fcurves`. Everything that
creates or reads F-curves goes through here, so no other module tests the version.
"""

import bpy
import numpy as np

from ...core.errors import first_nonfinite

SLOTTED_ACTIONS = bpy.app.version >= (4, 4, 0)
_INTERPOLATION = {
    item.identifier: item.value
    for item in bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items  # pyright: ignore[reportAttributeAccessIssue]
}


def new_action(owner, name):
    """A new action assigned to the ID `owner`; returns (action, F-curve collection to add to)."""
    action = bpy.data.actions.new(name)
    animation = owner.animation_data_create()
    if not SLOTTED_ACTIONS:
        animation.action = action
        return action, action.fcurves
    slot = action.slots.new(owner.id_type, "Slot")  # pyright: ignore[reportAttributeAccessIssue]
    strip = action.layers.new("Layer").strips.new(type="KEYFRAME")  # pyright: ignore[reportAttributeAccessIssue]
    fcurves = strip.channelbag(slot, ensure=True).fcurves
    animation.action = action
    animation.action_slot = slot
    return action, fcurves


def action_fcurves(owner):
    """The F-curves of the action assigned to `owner` (empty when there is none)."""
    animation = owner.animation_data
    action = animation.action if animation else None
    if action is None:
        return []
    if not SLOTTED_ACTIONS:
        return list(action.fcurves)
    slot = animation.action_slot
    for layer in action.layers:
        for strip in layer.strips:
            channelbag = strip.channelbag(slot) if slot else None
            if channelbag:
                return list(channelbag.fcurves)
    return []


def add_keys(fcurves, data_path, index, group, frames, values, interpolation="LINEAR"):
    """One F-curve with a key per (frame, value), written in bulk (no per-key Python call).

    The frames must be increasing; a frame or value that is not finite in float32 (NaN, infinity,
    beyond 3.4e38) raises ValueError naming the curve and the frame, before anything is added.
    FCurve.update() is not called: the keys arrive sorted, and its handle recalculation (more than
    half the cost) does not matter to linear or constant keys; Blender recalculates handles when
    keys are edited.
    """
    co = np.empty(2 * len(frames), dtype=np.float32)
    with np.errstate(over="ignore"):  # beyond float32: refused below
        co[0::2] = frames
        co[1::2] = values
    bad = first_nonfinite(co)
    if bad is not None:
        key = bad[0] // 2
        raise ValueError(
            f"{group}: {data_path}[{index}] at frame {frames[key]:g} would be {values[key]:g}, "
            "beyond Blender's float range"
        )
    if SLOTTED_ACTIONS:
        curve = fcurves.new(data_path, index=index, group_name=group)
    else:
        curve = fcurves.new(data_path, index=index, action_group=group)
    points = curve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", co)
    # uint8 is how Blender stores it: a direct copy, ten times faster than int32
    points.foreach_set("interpolation", np.full(len(frames), _INTERPOLATION[interpolation], dtype=np.uint8))
    return curve
