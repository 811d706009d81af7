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

(a root's parent is the world: B_p = Q_p = I, g_p = 0). For a bone without scale that inherits
fully, Q_p^T Q_j and Q_p^T (g_j - g_p) depend on the bone's own pose basis only (rotation P_j,
location l_j, rest head h_j) and the object's transform (rotation O_r, uniform scale k, matrix
O = k O_r, origin o), so export needs no chain:

    R_j = A^T B_j P_j B_j^T A,                 t_j = k A^T (h_j - h_p + B_j l_j) / s
    R_root = A^T O_r B_j P_j B_j^T A,          t_root = A^T (O (h_j + B_j l_j) + o) / s
"""

import numpy as np

from ...core.rotations import (
    euler_to_quat,
    matrix_to_quat,
    multiply_each,
    nearest_rotation,
    quat_conjugate,
    quat_product_matrix,
)


def bone_basis(motion, axes, scale, bone_rest, rest_world):
    """A function of a joint index j giving the pose-basis rotations as unit quaternions (F, 4) and
    locations (F, 3) of its bone. The rotation is a constant sandwich k q k* of the joint's
    quaternion q: one 4x4 matrix product for all frames. A scale (HTR's SF, the bone's own scale in
    Blender, which children do not inherit: see to_blender.armature.add_action) sizes the parent's frame
    in Blender but not in the file: the location is divided by it. One joint at a time: its arrays stay small
    and reuse memory (a first import in a fresh Blender pays for every new page it touches)."""
    skeleton = motion.skeleton
    parents = skeleton.parents
    world = axes @ rest_world @ axes.T
    world_parent = np.where((parents < 0)[:, None, None], np.eye(3), world[np.maximum(parents, 0)])
    k = matrix_to_quat(np.swapaxes(bone_rest, 1, 2) @ world @ axes)  # rotations: A, B and W' all are
    sandwiches = quat_product_matrix(k, left=True) @ quat_product_matrix(quat_conjugate(k), left=False)
    moves = scale * np.swapaxes(bone_rest, 1, 2) @ world_parent @ axes

    def basis(j):
        rotation = euler_to_quat(motion.euler[:, j], motion.euler_orders[j]) @ sandwiches[j].T
        translation = motion.translations[:, j]
        if motion.scales is not None and parents[j] >= 0:  # a bone's scale moves its children: undone
            translation = translation / motion.scales[:, parents[j], None]
        return rotation, (translation - skeleton.offsets[j]) @ moves[j].T

    return basis


def file_locals(parents, bone_rest, world_rotations, world_positions, axes, scale):
    """Local rotations as unit quaternions (J, F, 4) and translations (J, F, 3) of the file
    joints, joint-major.

    world_rotations (F, J, 3, 3) and world_positions (F, J, 3) are the bones' pose in world space.
    """
    frames, count = world_positions.shape[:2]
    world_rotations = np.ascontiguousarray(np.swapaxes(world_rotations, 0, 1))  # joint-major: contiguous
    world_positions = np.ascontiguousarray(np.swapaxes(world_positions, 0, 1))  # per-joint slices
    rotations = np.empty((count, frames, 4))
    translations = np.empty((count, frames, 3))
    for j, p in enumerate(parents):
        right = bone_rest[j].T @ axes
        if p < 0:
            rotations[j] = matrix_to_quat(multiply_each(axes.T, world_rotations[j], right))
            translations[j] = world_positions[j] @ axes / scale
            continue
        inverse_parent = np.swapaxes(world_rotations[p], -1, -2)
        rotations[j] = matrix_to_quat(multiply_each(axes.T @ bone_rest[p], inverse_parent @ world_rotations[j], right))
        moved = (inverse_parent @ (world_positions[j] - world_positions[p])[..., None])[..., 0]
        translations[j] = moved @ (axes.T @ bone_rest[p]).T / scale
    return rotations, translations


def basis_local(parent_rest, rest, object_matrix, basis_rotation, basis_location, axes, scale):
    """Local rotation (F, 4) and translation (F, 3) of a file joint from its bone's pose basis
    (rotation as quaternions (F, 4), location (F, 3)), for a bone without scale that inherits
    fully. The rotation is a product l q r of constant quaternions: one 4x4 matrix for all frames.

    parent_rest, rest  4x4 armature-space rest matrices of the parent bone (None for a root) and the bone
    object_matrix      4x4 world matrix of the armature object (rotation and uniform scale)
    """
    bone = rest[:3, :3]
    if parent_rest is None:  # a root: the object's transform
        turn, linear = nearest_rotation(object_matrix[:3, :3]), object_matrix[:3, :3]
        base, origin = rest[:3, 3], object_matrix[:3, 3]
    else:  # relative to the parent: the object's scale
        turn, linear = np.eye(3), np.cbrt(abs(np.linalg.det(object_matrix[:3, :3]))) * np.eye(3)
        base, origin = rest[:3, 3] - parent_rest[:3, 3], np.zeros(3)
    left, right = matrix_to_quat(np.stack([axes.T @ turn @ bone, bone.T @ axes]))
    product = quat_product_matrix(left, left=True) @ quat_product_matrix(right, left=False)
    rotation = basis_rotation @ product.T
    translation = basis_location @ (axes.T @ linear @ bone).T / scale
    translation += axes.T @ (linear @ base + origin) / scale
    return rotation, translation
