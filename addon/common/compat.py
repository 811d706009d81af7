"""Differences between Blender versions, behind one small interface.

Blender 4.4 introduced slotted (layered) actions; 5.0 removed `Action.fcurves`. Everything that
creates or reads F-curves goes through here, so no other module tests the version.
"""

import bpy
import numpy as np

from ...core.errors import first_nonfinite

SLOTTED_ACTIONS = bpy.app.version >= (4, 4, 0)
# a file path property that takes "//" (relative to the .blend) must say so in newer Blenders (5.0 warns
# without it); 4.2 has no such flag and takes "//" anyway
BLEND_RELATIVE = (
    {"PATH_SUPPORTS_BLEND_RELATIVE"}
    if "is_path_supports_blend_relative" in bpy.types.Property.bl_rna.properties
    else set()
)


def _keyframe_values(name):
    """{identifier: value} of a Keyframe enum property: the numbers foreach_get and foreach_set use."""
    enum = bpy.types.Keyframe.bl_rna.properties[name]
    return {item.identifier: item.value for item in enum.enum_items}  # pyright: ignore[reportAttributeAccessIssue]


INTERPOLATIONS = _keyframe_values("interpolation")  # Keyframe.interpolation: "LINEAR", "CONSTANT", ...
KEY_TYPES = _keyframe_values("type")  # Keyframe.type: "KEYFRAME", "GENERATED", ...


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


def assignment(owner):
    """(action, slot) assigned to the ID `owner`, for `assign` to give back: (None, None) without an
    action; the slot is None before 4.4."""
    animation = owner.animation_data
    if animation is None or animation.action is None:
        return None, None
    return animation.action, animation.action_slot if SLOTTED_ACTIONS else None


def assign(owner, action, slot=None):
    """Assign `action` (None: none) and, from 4.4, its `slot` to the ID `owner`."""
    animation = owner.animation_data_create()
    animation.action = action
    if SLOTTED_ACTIONS and action is not None:
        animation.action_slot = slot


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


def key_points(frames, values, labels):
    """Keyframe coordinates (C, 2F) float32, frame and value interleaved as foreach_set("co")
    takes them, for the C columns of `values` (F, C) at `frames` (F,). Pure numpy: any thread.

    A frame or value that is not finite in float32 (NaN, infinity, beyond 3.4e38) raises
    ValueError naming the curve (labels[c], e.g. 'Hips: pose.bones["Hips"].location[0]') and the frame.
    """
    values = np.asarray(values).reshape(len(frames), -1)
    co = np.empty((values.shape[1], len(frames), 2), dtype=np.float32)
    with np.errstate(over="ignore"):  # beyond float32: refused below
        co[:, :, 0] = frames
        co[:, :, 1] = values.T
    bad = first_nonfinite(co)
    if bad is not None:
        column, key = bad[:2]
        raise ValueError(
            f"{labels[column]} at frame {frames[key]:g} would be {values[key, column]:g}, beyond Blender's float range"
        )
    return co.reshape(values.shape[1], -1)


def interpolations(count, kind="LINEAR"):
    """(count,) of the Keyframe.interpolation value of `kind`, for add_curve (one array serves many
    curves): uint8, as Blender stores it, so foreach_set copies it directly."""
    return np.full(count, INTERPOLATIONS[kind], dtype=np.uint8)


def add_curve(fcurves, data_path, index, group, co, interpolation):
    """One F-curve with the keys `co` (from key_points), written in bulk (no per-key Python call).

    The frames must be increasing. FCurve.update() is not called: the keys arrive sorted, and its
    handle recalculation (more than half the cost) does not matter to linear or constant keys;
    Blender recalculates handles when keys are edited.
    """
    if SLOTTED_ACTIONS:
        curve = fcurves.new(data_path, index=index, group_name=group)
    else:
        curve = fcurves.new(data_path, index=index, action_group=group)
    set_keys(curve, co, interpolation)
    return curve


def set_keys(curve, co, interpolation, types=None):
    """Give the F-curve `curve` (without keys) the keys `co` (from key_points), their interpolation
    values (at least one per key: the first ones are taken) and keyframe types (KEY_TYPES values;
    None: keyframes), in bulk."""
    points = curve.keyframe_points
    points.add(len(co) // 2)
    points.foreach_set("co", co)
    points.foreach_set("interpolation", interpolation[: len(co) // 2])
    if types is not None:
        points.foreach_set("type", types)


def add_keys(fcurves, data_path, index, group, frames, values, interpolation="LINEAR"):
    """One F-curve with a linear key per (frame, value); see key_points and add_curve."""
    co = key_points(frames, values, [f"{group}: {data_path}[{index}]"])[0]
    return add_curve(fcurves, data_path, index, group, co, interpolations(len(frames), interpolation))


def key_arrays(curve):
    """(frames, values) float64 and interpolation values (Keyframe.interpolation, uint8) of the
    keys of an F-curve."""
    points = curve.keyframe_points
    co = np.empty(2 * len(points), dtype=np.float32)
    points.foreach_get("co", co)
    kinds = np.empty(len(points), dtype=np.uint8)
    points.foreach_get("interpolation", kinds)
    return co[0::2].astype(float), co[1::2].astype(float), kinds


def sample(curve, frames, default):
    """Values of an F-curve at `frames`: the keys themselves when they sit on those frames, numpy
    when every key is linear or constant (and the curve plain: constant extrapolation, no
    modifiers), else Blender's own evaluation. `default` without a curve or keys."""
    if curve is None or not len(curve.keyframe_points):
        return np.full(len(frames), float(default))
    keys, values, kinds = key_arrays(curve)
    plain = not curve.modifiers
    if plain and len(keys) == len(frames) and np.array_equal(keys, frames):
        return values
    linear, constant = INTERPOLATIONS["LINEAR"], INTERPOLATIONS["CONSTANT"]
    if plain and curve.extrapolation == "CONSTANT" and ((kinds[:-1] == linear) | (kinds[:-1] == constant)).all():
        before = np.clip(np.searchsorted(keys, frames, side="right") - 1, 0, len(keys) - 1)
        return np.where(kinds[before] == constant, values[before], np.interp(frames, keys, values))
    return np.array([curve.evaluate(float(f)) for f in frames])
