"""A deterministic CMU-like walking skeleton (31 joints, centimetres, Y up) for demos, tests and
benchmarks: the project ships no third-party motion, so it generates its own."""

import numpy as np

# name, parent, offset (cm): the CMU/cgspeed hierarchy, lengths of a 1.75 m adult
_JOINTS = [
    ("Hips", None, (0, 0, 0)),
    ("LHipJoint", "Hips", (0, 0, 0)),
    ("LeftUpLeg", "LHipJoint", (9.0, -8.0, 2.0)),
    ("LeftLeg", "LeftUpLeg", (0, -42.0, 0)),
    ("LeftFoot", "LeftLeg", (0, -41.0, 0)),
    ("LeftToeBase", "LeftFoot", (0, -4.0, 13.0)),
    ("RHipJoint", "Hips", (0, 0, 0)),
    ("RightUpLeg", "RHipJoint", (-9.0, -8.0, 2.0)),
    ("RightLeg", "RightUpLeg", (0, -42.0, 0)),
    ("RightFoot", "RightLeg", (0, -41.0, 0)),
    ("RightToeBase", "RightFoot", (0, -4.0, 13.0)),
    ("LowerBack", "Hips", (0, 0, 0)),
    ("Spine", "LowerBack", (0, 11.0, -1.0)),
    ("Spine1", "Spine", (0, 11.0, 0)),
    ("Neck", "Spine1", (0, 11.0, 0)),
    ("Neck1", "Neck", (0, 8.0, 0)),
    ("Head", "Neck1", (0, 8.0, 1.0)),
    ("LeftShoulder", "Spine1", (0, 0, 0)),
    ("LeftArm", "LeftShoulder", (16.0, 4.0, 0)),
    ("LeftForeArm", "LeftArm", (28.0, 0, 0)),
    ("LeftHand", "LeftForeArm", (25.0, 0, 0)),
    ("LeftFingerBase", "LeftHand", (0, 0, 0)),
    ("LeftHandIndex1", "LeftFingerBase", (5.0, 0, 0)),
    ("LThumb", "LeftHand", (2.0, 0, 3.0)),
    ("RightShoulder", "Spine1", (0, 0, 0)),
    ("RightArm", "RightShoulder", (-16.0, 4.0, 0)),
    ("RightForeArm", "RightArm", (-28.0, 0, 0)),
    ("RightHand", "RightForeArm", (-25.0, 0, 0)),
    ("RightFingerBase", "RightHand", (0, 0, 0)),
    ("RightHandIndex1", "RightFingerBase", (-5.0, 0, 0)),
    ("RThumb", "RightHand", (-2.0, 0, 3.0)),
]
_ENDS = {
    "LeftToeBase": (0, 0, 5.0),
    "RightToeBase": (0, 0, 5.0),
    "Head": (0, 10.0, 0),
    "LeftHandIndex1": (4.0, 0, 0),
    "LThumb": (3.0, 0, 0),
    "RightHandIndex1": (-4.0, 0, 0),
    "RThumb": (-3.0, 0, 0),
}


def cmu_like_motion(core, frames, fps=120.0, seed=0):
    """A Motion of `frames` frames: a walk cycle of sines with small deterministic noise.

    `core` is the package's core module (passed in, so this file needs no import path set-up).
    """
    names = [j[0] for j in _JOINTS]
    parents = [-1 if p is None else names.index(p) for _, p, _ in _JOINTS]
    skeleton = core.Skeleton(
        names,
        parents,
        [o for _, _, o in _JOINTS],
        channels=[("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")]
        + [("Zrotation", "Xrotation", "Yrotation")] * (len(names) - 1),
        end_site_parents=[names.index(n) for n in _ENDS],
        end_site_offsets=list(_ENDS.values()),
    )
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / fps
    phase = 2 * np.pi * 0.9 * t[:, None]
    amplitude = rng.uniform(2, 25, (1, len(names), 3))
    offset = rng.uniform(0, 2 * np.pi, (1, len(names), 3))
    degrees = amplitude * np.sin(phase[..., None] + offset) + rng.normal(0, 0.3, (frames, len(names), 3))
    translations = np.broadcast_to(skeleton.offsets, (frames, len(names), 3)).copy()
    translations[:, 0] = np.stack([3 * np.sin(phase[:, 0]), 95 + 2 * np.sin(2 * phase[:, 0]), 120 * t], axis=1)
    return core.Motion(skeleton, fps, np.radians(degrees), ["ZXY"] * len(names), translations)


def restyled_skeleton(core, skeleton, *, names=None, scale=1.0, a_pose=0.0, seed=None, up="Y"):
    """`skeleton` rebuilt as another rig would hold it: the same bones in the world, but each
    joint's rest frame turned at random (seeded; bone rolls and axes, offsets given in those frames),
    the arms lowered by `a_pose` degrees into an A pose (about Z, the axis the toes point along),
    every length times `scale`, joints renamed by `names` {old: new}, and the rig turned Z up
    (Blender's axes: Y up becomes Z up, +Z forward becomes -Y) when `up` is "Z"."""
    rotation = core.rotations
    world, position = skeleton.rest_world()
    ends = np.einsum("eij,ej->ei", world[skeleton.end_site_parents], skeleton.end_site_offsets)
    ends += position[skeleton.end_site_parents]
    names_of = skeleton.names
    for side, sign in (("Left", -1.0), ("Right", 1.0)):
        arm = names_of.index(f"{side}Arm")
        below = {arm}
        for j in range(arm + 1, len(names_of)):
            if skeleton.parents[j] in below:
                below.add(j)
        turn = rotation.axis_rotation("Z", sign * np.radians(a_pose))
        moved = sorted(below - {arm})
        position[moved] = (position[moved] - position[arm]) @ turn.T + position[arm]
        at = np.isin(skeleton.end_site_parents, sorted(below))
        ends[at] = (ends[at] - position[arm]) @ turn.T + position[arm]
    to_z = rotation.axis_rotation("X", np.pi / 2) if up == "Z" else np.eye(3)
    position, ends = scale * position @ to_z.T, scale * ends @ to_z.T
    frames = np.broadcast_to(np.eye(3), (len(names_of), 3, 3))
    if seed is not None:
        turns = np.random.default_rng(seed).normal(size=(len(names_of), 4))
        frames = rotation.quat_to_matrix(rotation.quat_normalize(turns))
    parents = skeleton.parents
    parent_frames = np.where((parents >= 0)[:, None, None], frames[np.maximum(parents, 0)], np.eye(3))
    parent_positions = np.where((parents >= 0)[:, None], position[np.maximum(parents, 0)], 0.0)
    offsets = np.einsum("kji,kj->ki", parent_frames, position - parent_positions)
    end_offsets = np.einsum("eji,ej->ei", frames[skeleton.end_site_parents], ends - position[skeleton.end_site_parents])
    return core.Skeleton(
        [(names or {}).get(n, n) for n in names_of],
        parents,
        offsets,
        channels=skeleton.channels,
        end_site_parents=skeleton.end_site_parents,
        end_site_offsets=end_offsets,
        rest_rotations=np.einsum("kji,kjl->kil", parent_frames, frames),
    )
