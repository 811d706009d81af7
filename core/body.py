"""A skeleton read as a standing body: which way is up and forward, where its floor, hip sockets and
feet are, how long its legs are. What retargeting aligns and scales by (retarget.py, feet.py); the
one guess of a take's up direction (take_up: retargeting, drawing)."""

import numpy as np

from . import rotations
from .bone_map import find_roles, up_from_roles
from .feet import across
from .fk import points_in_world
from .skeleton import child_lists, descendants


class Body:
    """The rest pose of `skeleton` as a body (roles from bone_map.find_roles).

    up        (3,) unit up direction: `up` if given, else the axis nearest hips -> head, else +Y
    feet      {"L"/"R": (joints, end sites)}: the foot joint, every joint below it and their End
              Sites (indices into the skeleton's joints and End Sites)
    floor     the rest pose's lowest foot point along `up` (lowest point of all without feet)
    sockets   (left, right) thigh joints (the hip sockets), or None
    legs      mean leg length from the hip socket to the floor: thigh + shin + ankle height (the
              rest height of the sockets without legs)
    bones     mean thigh + shin length: what a step's length grows with
    lateral   (3,) unit left direction across the body on the floor plane: right -> left hip
              socket, else shoulder, else None
    flat_feet whether the rest pose stands on both feet, soles on the floor (a rest pose of bones
              laid along their joints' axes, as Bandai Namco's, or with feet pointing down along
              the shins, as MotionBuilder's CMU conversions, does not); one answer for both feet
    """

    def __init__(self, skeleton, up=None):
        self.skeleton = skeleton
        self.roles = find_roles(skeleton)
        self.rest_rotations, self.rest = skeleton.rest_world()
        if up is None:
            up = up_from_roles(self.roles, self.rest[None])
        self.up = np.array([0.0, 1.0, 0.0]) if up is None else np.asarray(up, dtype=float) / np.linalg.norm(up)
        children = child_lists(skeleton.parents)
        self.feet = {}
        for side in "LR":
            foot = self.roles.get(f"foot.{side}")
            if foot is not None:
                joints = np.array(descendants(children, foot), dtype=np.intp)
                self.feet[side] = (joints, np.flatnonzero(np.isin(skeleton.end_site_parents, joints)))
        heights = self.points(self.rest_rotations[None], self.rest[None])[0] @ self.up
        self.floor = float(heights.min())
        thighs = [self.roles.get(f"thigh.{side}") for side in "LR"]
        self.sockets = None if None in thighs else tuple(thighs)
        self.flat_feet = bool(self.feet) and all(self._stands_on(side) for side in self.feet)
        self.legs, self.bones = self._legs()
        self.lateral = self._lateral()

    def points(self, linear, position, side=None):
        """(F, N, 3) foot points (the foot joint, the joints below it, then their End Sites) of one
        side, else of both, from world transforms (linear (F, J, 3, 3), positions (F, J, 3)); every
        joint and End Site of a skeleton without feet."""
        s = self.skeleton
        if not self.feet:
            joints, ends = np.arange(s.joint_count), np.arange(len(s.end_site_parents))
        else:
            chosen = [self.feet[side]] if side else list(self.feet.values())
            joints = np.concatenate([j for j, _ in chosen])
            ends = np.concatenate([e for _, e in chosen])
        tips = points_in_world(linear, position, s.end_site_parents[ends], s.end_site_offsets[ends])
        return np.concatenate([position[:, joints], tips], axis=1)

    def height(self, points):
        """Heights (...,) of points (..., 3) above the rest floor."""
        return points @ self.up - self.floor

    def horizontal(self, vectors):
        """vectors (..., 3) without their part along `up`."""
        return across(vectors, self.up)

    def frame(self):
        """(3, 3) columns lateral, up, forward (lateral x up): the body's standing frame; None
        without a lateral direction."""
        if self.lateral is None:
            return None
        return np.stack([self.lateral, self.up, np.cross(self.lateral, self.up)], axis=1)

    def toes(self, side):
        """(3,) unit horizontal direction from the ankle (the foot joint) towards the mean of the
        foot's other points at rest; None without them."""
        if side not in self.feet:
            return None
        points = self.points(self.rest_rotations[None], self.rest[None], side)[0]
        forward = self.horizontal(points[1:].mean(axis=0) - points[0]) if len(points) > 1 else np.zeros(3)
        norm = np.linalg.norm(forward)
        return forward / norm if norm > 1e-9 * np.ptp(self.rest, axis=0).max() else None

    def _stands_on(self, side):
        """Whether the rest pose stands on this foot: the leg points down (within 45 degrees) and the
        toes forward (within 70 degrees of the floor plane: CesiumMan's toe joint lies 64 degrees
        below its ankle, MotionBuilder's CMU feet point 75 to 77 degrees down, along the shin)."""
        thigh, foot, toes = self.roles.get(f"thigh.{side}"), self.roles.get(f"foot.{side}"), self.toes(side)
        if thigh is None or foot is None or toes is None:
            return False
        leg = self.rest[foot] - self.rest[thigh]
        points = self.points(self.rest_rotations[None], self.rest[None], side)[0]
        along = points[1:].mean(axis=0) - points[0]
        down = leg @ self.up < -np.cos(np.pi / 4) * np.linalg.norm(leg)
        return bool(down and np.linalg.norm(self.horizontal(along)) > np.cos(np.radians(70.0)) * np.linalg.norm(along))

    def _legs(self):
        """(legs, bones): mean socket-to-floor length and mean thigh + shin length."""
        if self.sockets is None:
            height = float(max(self.rest @ self.up) - self.floor) or 1.0
            return height, height
        lengths, bones = [], []
        for side, thigh in zip("LR", self.sockets):
            shin, foot = self.roles.get(f"shin.{side}"), self.roles.get(f"foot.{side}")
            if shin is None or foot is None:
                bones.append(self.height(self.rest[thigh]))
                lengths.append(bones[-1])
                continue
            bones.append(sum(np.linalg.norm(self.rest[b] - self.rest[a]) for a, b in ((thigh, shin), (shin, foot))))
            lengths.append(bones[-1] + self._ankle_height(side))
        length = float(np.mean(lengths))
        if not length > 0:
            raise ValueError(f"{self.skeleton!r} has legs of no length: cannot scale root motion by them")
        return length, float(np.mean(bones)) or length

    def _ankle_height(self, side):
        """The foot joint's height above the lowest point of its foot at rest; where the rest pose
        does not stand on that foot, 0.4 of the foot's length (ankle to farthest foot point)."""
        points = self.points(self.rest_rotations[None], self.rest[None], side)[0]
        if self.flat_feet:
            return float(points[0] @ self.up - (points @ self.up).min())
        return 0.4 * float(np.linalg.norm(points - points[0], axis=1).max())

    def _lateral(self):
        for role in ("thigh", "upper_arm", "clavicle"):
            left, right = self.roles.get(f"{role}.L"), self.roles.get(f"{role}.R")
            if left is not None and right is not None:
                across = self.horizontal(self.rest[left] - self.rest[right])
                if np.linalg.norm(across) > 1e-9 * self.legs:
                    return across / np.linalg.norm(across)
        return None


def take_up(motion, roles=None, positions=None):
    """(3,) the up direction of a take, a signed coordinate axis, or None when nothing tells: the
    file's own where it names one (HTR's GlobalAxisofGravity, `motion.record.up_axis`), else the
    axis nearest the direction from the hips to the head over up to 25 frames spread evenly over
    the take, the rest pose for a take of no frames (bone_map.up_from_roles). Retargeting and
    drawing (figure.Figure.up) take a take's up from here; each has its own answer for None.

    roles      find_roles(motion.skeleton), when the caller has them (else found here)
    positions  (F, J, 3) the take's world joint positions, when the caller has them (else only the
               frames looked at are computed)
    """
    axis = str(getattr(motion.record, "up_axis", None) or "").upper()  # an HtrRecord's
    if axis in ("X", "Y", "Z"):
        return np.eye(3)["XYZ".index(axis)]
    roles = find_roles(motion.skeleton) if roles is None else roles
    frames = sample_frames(motion.frame_count)
    if not len(frames):
        points = motion.skeleton.rest_world()[1][None]
    elif positions is not None:
        points = positions[frames]
    else:
        points = motion.take(frames).world_positions()
    return up_from_roles(roles, points)


def sample_frames(frames, count=25):
    """Up to `count` frame indices spread evenly over `frames` frames, the first and the last
    among them (none for no frames)."""
    return np.unique(np.linspace(0, frames - 1, min(frames, count)).astype(int))


def upright_turn(source, target):
    """(3, 3) the rotation that stands `target` (a Body) in `source`'s world as the source stands:
    its up onto theirs and its left onto theirs (the smallest turn of up alone where either lacks
    a left)."""
    mine, theirs = target.frame(), source.frame()
    if mine is None or theirs is None:
        return rotations.rotation_between(target.up, source.up)
    return theirs @ mine.T
