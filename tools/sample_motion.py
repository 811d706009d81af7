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
