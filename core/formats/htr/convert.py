"""HTR's segments in the model: the skeleton of a read file or a conversion, every segment's
BoneLength, and the conversions from and to BVH's identity rest pose and to GTR's global segments.

The BVH -> HTR conversion is the one of Meredith and Maddock, "Motion Capture File Formats
Explained", chapter 4 (bones along one axis, base rotations from the offsets, eqs. 4.1-4.9).
"""

from collections.abc import Sequence

import numpy as np

from ... import rebase, rotations
from ...motion import Motion
from ...skeleton import POSITION_CHANNELS, Skeleton
from .header import DEFAULTS, HEADER_KEYS, HtrRecord


def segments(
    names: Sequence[str],
    parents,
    offsets,
    orders: Sequence[str],
    end_site_parents,
    end_site_offsets,
    rest_rotations=None,
) -> Skeleton:
    """An HTR skeleton: position and rotation channels on roots, rotation channels elsewhere,
    each segment's rotations in its Euler order."""
    channels = [
        (POSITION_CHANNELS if p < 0 else ()) + tuple(a + "rotation" for a in o) for o, p in zip(orders, parents)
    ]
    return Skeleton(
        names,
        parents,
        offsets,
        channels=channels,
        end_site_parents=end_site_parents,
        end_site_offsets=end_site_offsets,
        rest_rotations=rest_rotations,
    )


def bones_along(skeleton: Skeleton, axis: str) -> np.ndarray:
    """(J,) length of every segment's bone (rebase.bone_vectors: the first child with an offset,
    else the End Site) along `axis` ("X", "Y" or "Z"), signed."""
    return rebase.bone_vectors(skeleton)[0][:, "XYZ".index(axis)]


def drawn_lengths(skeleton: Skeleton, lengths, axis: str) -> dict[int, float]:
    """{joint: BoneLength} of the `lengths` (J,) the skeleton's bones along `axis` do not give."""
    return {int(j): float(lengths[j]) for j in np.flatnonzero(lengths != bones_along(skeleton, axis))}


def bone_lengths(motion: Motion) -> np.ndarray:
    """(J,) BoneLength of every segment of a motion in HTR's base pose: its bone along
    BoneLengthAxis, or the length read where the file draws it otherwise (`HtrRecord.drawn_lengths`)."""
    record = motion.record if isinstance(motion.record, HtrRecord) else HtrRecord()
    lengths = bones_along(motion.skeleton, record.bone_length_axis)
    for j, length in record.drawn_lengths.items():
        lengths[j] = length
    return lengths


def bvh_to_htr(motion: Motion, *, bone_axis: str = "Y", order: str | None = None) -> Motion:
    """The motion with HTR's base pose: every segment's bone (toward its first child with an
    offset, else its End Site) along `bone_axis` of its own frame, base rotations recovered from
    the offsets (Meredith and Maddock, eqs. 4.1-4.9), frame rotations re-based onto them, all in
    one Euler `order` (default: the first joint's, as their chapter 4 does). World joint
    positions are unchanged. Works on any Motion (a BVH, or one with rest rotations of its own,
    which are folded in first).

    SF of a segment is its bone child's distance over its bone length in each frame (1 when the
    distance does not change): the Motion Analysis convention (docs/htr.md).
    """
    count = motion.skeleton.joint_count
    order = (order or motion.euler_orders[0]).upper() if count else "ZYX"
    result, lengths = rebase.bone_rest(motion, bone_axis, [order] * count)
    _, children = rebase.bone_vectors(motion.skeleton)
    scales = np.ones((motion.frame_count, count))
    joints = np.flatnonzero(children >= 0)
    scales[:, joints] = np.linalg.norm(motion.translations[:, children[joints]], axis=-1) / lengths[joints]
    s = result.skeleton
    skeleton = segments(
        s.names, s.parents, s.offsets, [order] * count, s.end_site_parents, s.end_site_offsets, s.rest_rotations
    )
    header = dict(DEFAULTS, EulerRotationOrder=order, BoneLengthAxis=bone_axis.upper())
    record = HtrRecord(header=tuple((key, header[key]) for key in HEADER_KEYS if key in header))
    return Motion(
        skeleton,
        motion.fps,
        result.euler,
        result.euler_orders,
        result.translations,
        scales,
        frame_time_text=motion.frame_time_text,
        record=record,
    )


def htr_to_bvh(motion: Motion) -> Motion:
    """The motion with identity rest rotations (BVH's rest pose is HTR's base pose), each
    segment's rotations in its Euler order: position and rotation channels on roots, rotation
    channels elsewhere (the BVH writer adds position channels where translations move). World
    joint positions are unchanged; SF stays in `scales`, which BVH cannot hold."""
    result = rebase.identity_rest(motion)
    s = result.skeleton
    skeleton = segments(s.names, s.parents, s.offsets, result.euler_orders, s.end_site_parents, s.end_site_offsets)
    return Motion(skeleton, result.fps, result.euler, result.euler_orders, result.translations, result.scales)


def all_global(motion: Motion) -> Motion:
    """The motion with every segment a root (GTR): its world rest frame as base, its world motion
    as frames."""
    s = motion.skeleton
    rest, positions = s.rest_world()
    world, position = motion.world_transforms(scaled=False)
    euler = np.empty_like(motion.euler)
    for j, order in enumerate(motion.euler_orders):
        turned = rotations.multiply_each(rest[j].T, world[:, j], np.eye(3))
        euler[:, j] = rotations.unwrap_euler(rotations.matrix_to_euler(turned, order))
    roots = np.full(s.joint_count, -1)
    skeleton = segments(s.names, roots, positions, motion.euler_orders, s.end_site_parents, s.end_site_offsets, rest)
    return Motion(skeleton, motion.fps, euler, motion.euler_orders, position, motion.scales)
