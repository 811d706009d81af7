"""Skeleton: joint hierarchy, rest offsets and rotations, channel layout as read, End Sites; the
tree helpers that work on parent indices; the Euler order a joint's channels give."""

import heapq
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .fk import forward_kinematics

POSITION_CHANNELS = ("Xposition", "Yposition", "Zposition")
ROTATION_CHANNELS = ("Xrotation", "Yrotation", "Zrotation")


class CyclicHierarchy(ValueError):
    """Joints that never reach a root; `loop` holds the joints of one cycle, each the parent of the one before."""

    def __init__(self, loop, names):
        self.loop = loop
        shown = " -> ".join(str(names[j])[:40] for j in [*loop, loop[0]])
        super().__init__(f"cyclic hierarchy: {shown[:200]} (each is the parent of the one before)")


def child_lists(parents, count=None):
    """The children of every joint (lists in index order); `parents` holds -1 for a root. With
    `count`, what hangs from `count` joints: child_lists(end_site_parents, joint_count) lists
    every joint's End Sites."""
    children = [[] for _ in range(len(parents) if count is None else count)]
    for j, p in enumerate(parents):
        if p >= 0:
            children[p].append(j)
    return children


def descendants(children, joint):
    """`joint` and every joint below it (depth first, from `child_lists`)."""
    out, stack = [], [joint]
    while stack:
        out.append(stack.pop())
        stack.extend(children[out[-1]])
    return out


def topmost(parents, joints):
    """The joints of `joints` (a set of indices) that have no ancestor in it, in index order: the
    tops of the subtrees a mapping drives (a retarget's mapped joints)."""
    tops = []
    for k in sorted(joints):
        p = parents[k]
        while p >= 0 and p not in joints:
            p = parents[p]
        if p < 0:
            tops.append(k)
    return tops


def parents_first(parents, names):
    """Joint indices with every parent before its children, in index order where that allows (of the
    joints whose parent is placed, the first listed comes first). Raises CyclicHierarchy (its message
    names the joints of a cycle from `names`) when some joints never reach a root."""
    children = child_lists(parents)
    order, ready = [], [j for j, p in enumerate(parents) if p < 0]  # a heap, sorted from the start
    while ready:
        j = heapq.heappop(ready)
        order.append(j)
        for child in children[j]:
            heapq.heappush(ready, child)
    if len(order) < len(parents):
        chain = [min(set(range(len(parents))) - set(order))]  # its ancestors never reach a root: a cycle
        seen = set(chain)
        while parents[chain[-1]] not in seen:
            chain.append(parents[chain[-1]])
            seen.add(chain[-1])
        raise CyclicHierarchy(chain[chain.index(parents[chain[-1]]) :], names)
    return order


def renumbered(parents, order):
    """The parent indices of the joints in `order` (from `parents_first`), as positions in that
    order (-1 for a root): the hierarchy listed parents first."""
    position = {j: k for k, j in enumerate(order)}
    return [position[parents[j]] if parents[j] >= 0 else -1 for j in order]


def euler_order(channels, default="XYZ"):
    """The Euler order (see `rotations`: "ZXY" is R = Rz @ Rx @ Ry) of a joint from its channels
    as its file lists them: its rotation axes as the matrix product is written, left to right, then
    the axes without a channel in XYZ order (their angles stay zero); `default` for a joint without
    rotation channels. The readers that take orders from channels (BVH, AMC), retargeting and the
    add-on's export take a joint's order from here.

    Channel names (BVH, HTR, Blender read back: "Zrotation Xrotation Yrotation") list the product
    left to right: "ZXY". An ASF dof list ("rx ry rz", or the root's "RX RY RZ") lists the
    rotations as they apply to a vector, the first applied first, so the product in reverse: "ZYX".
    """
    names = [c[0] for c in channels if c in ROTATION_CHANNELS]
    dofs = [d[1].upper() for d in reversed(channels) if len(d) == 2 and d[0] in "rR" and d[1].upper() in "XYZ"]
    axes = names or dofs
    return "".join(axes + [a for a in "XYZ" if a not in axes]) if axes else default


class Skeleton:
    """A joint hierarchy in file units: names, parents, rest offsets and rotations, the channel
    layout as read, End Sites.

    Parameters
    ----------
    names : sequence of str
        Joint names in file order, unique; parents come before their children.
    parents : array_like of int, shape (J,)
        Each joint's parent index, -1 for a root (a file may hold several roots).
    offsets : array_like, shape (J, 3)
        Rest translation of each joint in its parent's frame.
    channels : sequence of sequence of str, optional
        Per joint, the channel names as the file lists them, so that a writer can reproduce the
        layout, e.g. ``("Xposition", "Yposition", "Zposition", "Zrotation", ...)``. Default: none.
    end_site_parents : array_like of int, shape (E,), optional
        The joint of each End Site: the tip of a chain, reachable through the skeleton but not a
        joint.
    end_site_offsets : array_like, shape (E, 3), optional
        Each End Site's offset from its joint.
    rest_rotations : array_like, shape (J, 3, 3), optional
        Rotation between the parent's frame and the joint's zero pose; None for identity (BVH).
        ASF axes and HTR base rotations go here.
    record : object, optional
        What a format keeps beyond the model so that its writer can reproduce the file (for ASF an
        AsfRecord with units, axis orders, limits, documentation), or None.

    Raises
    ------
    ValueError
        If names repeat, a parent does not come before its child, or the arrays' lengths differ.

    Examples
    --------
    >>> from mocap_io.core import Skeleton
    >>> skeleton = Skeleton(
    ...     ["hips", "spine", "head"],
    ...     [-1, 0, 1],
    ...     [[0, 90, 0], [0, 10, 0], [0, 30, 0]],
    ...     channels=[["Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"]]
    ...     + [["Zrotation", "Xrotation", "Yrotation"]] * 2,
    ...     end_site_parents=[2],
    ...     end_site_offsets=[[0, 20, 0]],
    ... )
    >>> skeleton
    <Skeleton 3 joints, 1 end sites>
    >>> skeleton.index("spine"), skeleton.children(0), skeleton.roots
    (1, array([1]), array([0]))
    >>> skeleton.rest_world()[1]
    array([[  0.,  90.,   0.],
           [  0., 100.,   0.],
           [  0., 130.,   0.]])
    >>> skeleton.euler_orders(), skeleton.has_positions(0), skeleton.has_positions(1)
    (['ZXY', 'ZXY', 'ZXY'], True, False)
    """

    def __init__(
        self,
        names: Sequence[str],
        parents: ArrayLike,
        offsets: ArrayLike,
        *,
        channels: Sequence[Sequence[str]] | None = None,
        end_site_parents: ArrayLike = (),
        end_site_offsets: ArrayLike | None = None,
        rest_rotations: ArrayLike | None = None,
        record: Any = None,
    ) -> None:
        self.names = [str(n) for n in names]
        count = len(self.names)
        self.parents = np.asarray(parents, dtype=np.intp).reshape(count)
        self.offsets = np.asarray(offsets, dtype=float).reshape(count, 3)
        self.channels = [tuple(c) for c in channels] if channels is not None else [()] * count
        self.end_site_parents = np.asarray(end_site_parents, dtype=np.intp).reshape(-1)
        self.end_site_offsets = (
            np.zeros((0, 3)) if end_site_offsets is None else np.asarray(end_site_offsets, dtype=float).reshape(-1, 3)
        )
        self.rest_rotations = None if rest_rotations is None else np.asarray(rest_rotations, float).reshape(count, 3, 3)
        self.record = record
        if len(self.channels) != count:
            raise ValueError(f"{len(self.channels)} channel lists for {count} joints")
        if len(set(self.names)) != count:
            raise ValueError("joint names must be unique")
        if np.any(self.parents >= np.arange(count)) or np.any(self.parents < -1):
            raise ValueError("every parent must come before its child")
        if len(self.end_site_parents) != len(self.end_site_offsets):
            raise ValueError("end_site_parents and end_site_offsets differ in length")

    def __repr__(self) -> str:
        return f"<Skeleton {len(self.names)} joints, {len(self.end_site_parents)} end sites>"

    @property
    def joint_count(self) -> int:
        """Number of joints (J)."""
        return len(self.names)

    def index(self, name: str) -> int:
        """Index of the joint called `name`.

        Raises
        ------
        KeyError
            If there is no such joint.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no joint named {name!r}") from None

    def children(self, joint: int) -> np.ndarray:
        """Indices of the direct children of `joint`, in index order."""
        return np.flatnonzero(self.parents == joint)

    @property
    def roots(self) -> np.ndarray:
        """Indices of the joints without a parent."""
        return np.flatnonzero(self.parents < 0)

    def rest_world(self) -> tuple[np.ndarray, np.ndarray]:
        """World rotations and positions of the zero pose (every channel zero).

        Returns
        -------
        rotation : ndarray, shape (J, 3, 3)
        position : ndarray, shape (J, 3)
        """
        linear, position = forward_kinematics(
            self.parents, lambda j, frames: np.eye(3)[..., None], self.offsets[None], rest_rotations=self.rest_rotations
        )
        return linear[0], position[0]

    def euler_orders(self, default: str = "XYZ") -> list[str]:
        """The Euler order of every joint from its channels (see `euler_order`); `default` for a joint
        without rotation channels."""
        return [euler_order(c, default) for c in self.channels]

    def has_positions(self, joint: int) -> bool:
        """Whether the file gives `joint` position channels."""
        return any(c in POSITION_CHANNELS for c in self.channels[joint])
