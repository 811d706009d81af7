"""Vectorised forward kinematics: world transforms of every joint for all frames at once."""

import numpy as np


def forward_kinematics(parents, local_rotation, translations, *, rest_rotations=None, scales=None):
    """World linear parts (F, J, 3, 3) and positions (F, J, 3), column-vector convention.

    Each joint's local transform is ``T(translations[:, j]) @ R_rest[j] @ local_rotation(j) @ S``
    with S a uniform scale ``scales[:, j]``; ``G_child = G_parent @ L_child``. `local_rotation(j)`
    returns the (F, 3, 3) rotations of joint j, so the (F, J, 3, 3) local array is never built.
    The loop runs over joints; every step is vectorised over frames.
    """
    frames, count = translations.shape[:2]
    linear = np.empty((count, frames, 3, 3))  # joint-major so every per-joint slice is contiguous
    position = np.empty((count, frames, 3))
    for j in range(count):
        local = local_rotation(j)
        if rest_rotations is not None:
            local = rest_rotations[j] @ local
        if scales is not None:
            local = local * scales[:, j, None, None]
        p = parents[j]
        if p < 0:
            linear[j] = local
            position[j] = translations[:, j]
        else:
            np.matmul(linear[p], local, out=linear[j])
            np.matmul(linear[p], translations[:, j, :, None], out=position[j, :, :, None])
            position[j] += position[p]
    return linear.transpose(1, 0, 2, 3), position.transpose(1, 0, 2)


def points_in_world(linear, position, joints, offsets):
    """World positions (F, N, 3) of points given by `offsets` (N, 3) in the frames of `joints` (N,)."""
    return np.einsum("fnij,nj->fni", linear[:, joints], offsets) + position[:, joints]
