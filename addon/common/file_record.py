"""What an imported file had that an armature and its action cannot hold, remembered on them so
that export can write it back: each joint's name as written (Blender cuts names to 63 bytes), its
channel list as read, its OFFSET and End Sites exactly as printed (Blender keeps bones in single
precision), and the Frame Time text; a marker's label as written and its place in the file, a
marker file's rate; the file a point cloud was imported from, and its axes and scale.

The record is a JSON string in the custom property `mocap_io` of the armature data (joints), of
the action (Frame Time) and of a marker's empty, its parent or a point cloud's object: users see
it under Custom Properties, and it survives saving, linking and duplication with the data it
describes.
"""

import json
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...core.skeleton import child_lists
from .names import blender_names

KEY = "mocap_io"


def remember_skeleton(armature, skeleton, axes, scale, unit=None):
    """Store the joints of `skeleton` (file units) on the armature data built from it with the
    axis matrix `axes` and `scale` (Blender units per file unit); `unit`: (its name, metres per
    file unit) when known (chosen by Auto Scale or named by the file), else None."""
    ends = child_lists(skeleton.end_site_parents, skeleton.joint_count)
    bones = blender_names(skeleton.names)
    joints = {
        bone: {
            "name": name,
            "parent": bones[p] if p >= 0 else None,
            "channels": list(channels),
            "offset": offset.tolist(),
            "end_sites": skeleton.end_site_offsets[ends[j]].tolist(),
        }
        for j, (bone, name, p, channels, offset) in enumerate(
            zip(bones, skeleton.names, skeleton.parents, skeleton.channels, skeleton.offsets)
        )
    }
    record = {"axes": np.asarray(axes).tolist(), "scale": scale, "joints": joints}
    if unit is not None:
        record["unit"], record["metres"] = unit[0], unit[1]
    armature[KEY] = json.dumps(record)


def recall_scale(armature):
    """(scale, unit name, metres per file unit) the armature data was built with (the names None
    where unknown), or None without a record."""
    try:
        record = json.loads(armature[KEY])
        scale = float(record["scale"])
    except (KeyError, TypeError, ValueError):
        return None
    metres = record.get("metres")
    return scale, record.get("unit"), float(metres) if isinstance(metres, (int, float)) else None


def remember_take(action, motion, rate=None, step=None):
    """Store on the action made from `motion` its Frame Time text and the take's timing: `rate`
    (a Fraction, the rate it was imported at) and `step` (scene frames per file frame)."""
    facts = {}
    if motion.frame_time_text is not None:
        facts["frame_time"] = motion.frame_time_text
    if rate is not None:
        facts["rate"] = str(rate)
        facts["frame_step"] = str(Fraction(step if step is not None else 1))
    if facts:
        action[KEY] = json.dumps(facts)


def take_facts(frame_start, count, rate, step=1):
    """The facts `remember` stores for a take of `count` frames at `rate` (a Fraction) frames per
    second keyed from scene frame `frame_start`, `step` (a Fraction) scene frames apart: what
    common.timing.recorded_take gives back."""
    return {
        "rate": str(Fraction(rate)),
        "frame_start": float(frame_start),
        "frames": int(count),
        "frame_step": str(step),
    }


@dataclass
class Recalled:
    """The record of an armature's joints, in the units and axes of an export.

    names             per joint (in the export's joint order), its name as written in the file
    channels          per joint (in the export's joint order), the channel names as read
    offsets           (J, 3) OFFSETs as read
    end_site_parents  (E,) joint index of each End Site as read
    end_site_offsets  (E, 3)
    """

    names: list
    channels: list
    offsets: np.ndarray
    end_site_parents: np.ndarray
    end_site_offsets: np.ndarray


def recall_skeleton(armature, names, parents, axes, scale):
    """The record of the armature data for the bones `names` (with parent indices `parents`),
    converted to an export with axis matrix `axes` and `scale`; None when there is no record or
    the bones are no longer the joints it describes."""
    try:
        record = json.loads(armature[KEY])
        joints = record["joints"]
        if sorted(joints) != sorted(names) or any(
            joints[name]["parent"] != (names[p] if p >= 0 else None) for name, p in zip(names, parents)
        ):
            return None
        # file units of the import -> Blender -> file units of the export
        convert = np.asarray(axes).T @ np.asarray(record["axes"]) * (record["scale"] / scale)
        ends = [(j, offset) for j, name in enumerate(names) for offset in joints[name]["end_sites"]]
        return Recalled(
            names=[joints[name].get("name", name) for name in names],
            channels=[tuple(joints[name]["channels"]) for name in names],
            offsets=np.array([joints[name]["offset"] for name in names], dtype=float) @ convert.T,
            end_site_parents=np.array([j for j, _ in ends], dtype=np.intp),
            end_site_offsets=np.array([o for _, o in ends], dtype=float).reshape(-1, 3) @ convert.T,
        )
    except (KeyError, TypeError, ValueError):  # no record, or not one of ours
        return None


def recall_frame_time(action):
    """The Frame Time text remembered on `action` (None when there is none)."""
    return recall(action).get("frame_time")


def remember(owner, **facts):
    """Store facts of an imported file on `owner` (JSON values): on a marker's empty its `label`
    as written and its `index` in the file; on the parent empty, point-cloud or animated mesh
    object the file's `rate` (a Fraction's text) and frames (take_facts) and, for a point cloud,
    the `labels` of its vertices, its `source` file (an absolute path) and the `axes` (3x3, file ->
    Blender) and `scale` (metres per file unit) its positions were converted with."""
    owner[KEY] = json.dumps(facts)


def recall_source(owner):
    """(source file, the 3x3 matrix scale x axes) a point cloud was imported from and with, or None
    without a record of them (imported before they were recorded)."""
    facts = recall(owner)
    try:
        return str(facts["source"]), float(facts["scale"]) * np.asarray(facts["axes"], dtype=float).reshape(3, 3)
    except (KeyError, TypeError, ValueError):
        return None


def recall(owner):
    """The facts stored on `owner` ({} when there are none, or not ours)."""
    try:
        facts = json.loads(owner[KEY])
    except (KeyError, TypeError, ValueError):
        return {}
    return facts if isinstance(facts, dict) else {}
