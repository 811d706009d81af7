"""File-joint transforms <-> pose-bone values: the numpy math between the core model and Blender.

Notation (all 3x3 rotations, column vectors). A: file axes -> Blender axes; s: file units -> Blender
units. W_j: the joint's zero-pose world rotation in the file (identity for BVH), W'_j = A W_j A^T.
B_j: the bone's rest rotation in armature space (bone.matrix_local), so Blender's pose basis of
a bone that turns with its joint is

    rotation  = M_j (A R_j A^T) M_j^T          with M_j = B_j^T W'_j
    location  = s B_j^T W'_parent A (t_j - offset_j)

where R_j, t_j are the joint's local rotation and translation. Export inverts this from the
world-space pose of every bone (rotation Q_j, position g_j), for any armature:

    R_j = A^T B_p Q_p^T Q_j B_j^T A,    t_j = A^T B_p Q_p^T (g_j - g_p) / s

(a root's parent is the world: B_p = Q_p = I, g_p = 0).
"""

import numpy as np

from ..core.rotations import matrix_to_quat, quat_conjugate, quat_multiply, sandwich


def bone_basis(motion, joint, axes, scale, bone_rest, rest_world):
    """Pose-basis rotations as unit quaternions (F, 4) and locations (F, 3) of one joint's bone."""
    skeleton = motion.skeleton
    parent = skeleton.parents[joint]
    w = axes @ rest_world[joint] @ axes.T
    w_parent = np.eye(3) if parent < 0 else axes @ rest_world[parent] @ axes.T
    k = matrix_to_quat(bone_rest[joint].T @ w @ axes)  # a rotation: A, B and W' all are
    rotation = quat_multiply(quat_multiply(k, motion.local_quaternion(joint)), quat_conjugate(k))
    moved = motion.translations[:, joint] - skeleton.offsets[joint]
    location = scale * moved @ (bone_rest[joint].T @ w_parent @ axes).T
    return rotation, location


def file_locals(parents, bone_rest, world_rotations, world_positions, axes, scale):
    """Local rotations (F, J, 3, 3) and translations (F, J, 3) of the file joints.

    world_rotations (F, J, 3, 3) and world_positions (F, J, 3) are the bones' pose in world space.
    """
    frames, count = world_positions.shape[:2]
    rotations = np.empty((frames, count, 3, 3))
    translations = np.empty((frames, count, 3))
    for j, p in enumerate(parents):
        right = bone_rest[j].T @ axes
        if p < 0:
            rotations[:, j] = sandwich(axes.T, world_rotations[:, j], right)
            translations[:, j] = world_positions[:, j] @ axes / scale
            continue
        inverse_parent = np.swapaxes(world_rotations[:, p], -1, -2)
        rotations[:, j] = sandwich(axes.T @ bone_rest[p], inverse_parent @ world_rotations[:, j], right)
        moved = (inverse_parent @ (world_positions[:, j] - world_positions[:, p])[..., None])[..., 0]
        translations[:, j] = moved @ (axes.T @ bone_rest[p]).T / scale
    return rotations, translations
