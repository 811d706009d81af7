"""Re-basing: the same world motion on another rest pose. Folding rest rotations into the frame
rotations gives BVH's identity rest (HTR or ASF -> BVH); the reverse lays every bone along one axis
of its own frame (BVH -> HTR, equations 4.1-4.9 of "Motion Capture File Formats Explained").

Every joint's world frame changes by a constant rotation C (W' = W @ C), so joint positions, End
Site positions and scales are unchanged; a joint whose frame does not change keeps its angles as
they are (no round trip through matrices).
"""

import numpy as np

from . import rotations
from .motion import Motion
from .skeleton import Skeleton

_AXES = {"X": 0, "Y": 1, "Z": 2}


def identity_rest(motion, orders=None):
    """The motion with identity rest rotations (BVH's convention: the rest pose has every frame
    aligned with the world), each joint's rotations in `orders` (default: as they are)."""
    rest = motion.skeleton.rest_world()[0]
    return rebase(motion, np.swapaxes(rest, 1, 2), None, orders)


def bone_vectors(skeleton):
    """((J, 3) bone of every joint in its own frame, (J,) the child joint it points at or -1): the
    offset of its first child with a non-zero offset, else of its first non-zero End Site, else 0."""
    vectors, children = np.zeros((skeleton.joint_count, 3)), np.full(skeleton.joint_count, -1)
    for j, p in reversed(list(enumerate(skeleton.parents))):  # the first child is seen last
        if p >= 0 and skeleton.offsets[j].any():
            vectors[p], children[p] = skeleton.offsets[j], j
    for e in reversed(range(len(skeleton.end_site_parents))):
        j = skeleton.end_site_parents[e]
        if children[j] < 0 and skeleton.end_site_offsets[e].any():
            vectors[j] = skeleton.end_site_offsets[e]
    return vectors, children


def bone_rest(motion, axis="Y", orders=None):
    """(motion, lengths): the motion with rest rotations that lay every joint's bone (see
    bone_vectors) along `axis` ("X", "Y" or "Z") of its own frame, each the smallest turn from its
    parent's frame (no added twist); lengths (J,) are the bones' lengths (0 for a joint without a
    bone, whose frame stays its parent's). Offsets become the parents' frames' (eq. 4.1 of Meredith
    and Maddock, "Motion Capture File Formats Explained"), the frame rotations are re-based onto the
    new rest (its eqs. 4.5-4.9)."""
    if motion.skeleton.rest_rotations is not None:
        motion = identity_rest(motion)
    skeleton = motion.skeleton
    vectors, _ = bone_vectors(skeleton)
    lengths = np.linalg.norm(vectors, axis=1)
    unit = np.eye(3)[_AXES[axis.upper()]]
    world, local = np.empty((skeleton.joint_count, 3, 3)), np.empty((skeleton.joint_count, 3, 3))
    for j, p in enumerate(skeleton.parents):
        parent = np.eye(3) if p < 0 else world[p]
        local[j] = _arc(unit, parent.T @ vectors[j] / lengths[j]) if lengths[j] else np.eye(3)
        world[j] = parent @ local[j]
    return rebase(motion, world, local, orders), lengths


def rebase(motion, change, rest_rotations, orders=None):
    """The motion with rest rotations `rest_rotations` (J, 3, 3) (None: identity) whose every joint's
    world frame is its old one times the constant rotation change[j]: W'_j = W_j @ C_j.

    With W_j = W_p @ R0_j @ R_j, the new frame rotation is R'_j = R0'_j^T C_p^T R0_j R_j C_j, the
    translation (and offset) t'_j = C_p^T t_j and End Site offsets e' = C_j^T e.
    """
    s = motion.skeleton
    orders = motion.euler_orders if orders is None else [o.upper() for o in orders]
    old = np.broadcast_to(np.eye(3), (s.joint_count, 3, 3)) if s.rest_rotations is None else s.rest_rotations
    new = np.broadcast_to(np.eye(3), (s.joint_count, 3, 3)) if rest_rotations is None else rest_rotations
    parent_change = np.array([np.eye(3) if p < 0 else change[p] for p in s.parents])
    translations = np.einsum("jki,fjk->fji", parent_change, motion.translations)
    euler = np.empty_like(motion.euler)
    for j in range(s.joint_count):
        left = new[j].T @ parent_change[j].T @ old[j]
        if (
            np.array_equal(left, np.eye(3))
            and np.array_equal(change[j], np.eye(3))
            and orders[j] == motion.euler_orders[j]
        ):
            euler[:, j] = motion.euler[:, j]
        else:
            turned = rotations.multiply_each(left, motion.local_rotation(j), change[j])
            euler[:, j] = rotations.unwrap_euler(rotations.matrix_to_euler(turned, orders[j]))
    ends = s.end_site_parents
    skeleton = Skeleton(
        s.names,
        s.parents,
        np.einsum("jki,jk->ji", parent_change, s.offsets),
        channels=s.channels,
        end_site_parents=ends,
        end_site_offsets=np.einsum("eki,ek->ei", change[ends], s.end_site_offsets),
        rest_rotations=rest_rotations,
    )
    return Motion(
        skeleton, motion.fps, euler, orders, translations, motion.scales, frame_time_text=motion.frame_time_text
    )


def _arc(a, b):
    """The smallest rotation taking unit vector a to unit vector b (half a turn about an axis
    perpendicular to a when b = -a)."""
    cross, cos = np.cross(a, b), float(a @ b)
    if cos < -1 + 1e-12:
        axis = np.cross(a, np.eye(3)[np.argmin(np.abs(a))])
        axis /= np.linalg.norm(axis)
        return 2.0 * np.outer(axis, axis) - np.eye(3)
    skew = np.array([[0, -cross[2], cross[1]], [cross[2], 0, -cross[0]], [-cross[1], cross[0], 0]])
    return np.eye(3) + skew + skew @ skew / (1.0 + cos)
