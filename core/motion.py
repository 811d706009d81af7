"""Motion: a skeleton plus per-frame arrays, with forward kinematics."""

import numpy as np

from . import rotations
from .errors import LARGEST, require_bounded, require_rate
from .fk import forward_kinematics, points_in_world
from .frame_rate import snap_rate


class Motion:
    """Skeletal animation, stored as arrays over frames.

    skeleton      the Skeleton
    fps           frame rate (float; for BVH exactly 1 / Frame Time as read)
    euler         (F, J, 3) local rotation angles in radians; euler[f, j, i] turns about axis
                  euler_orders[j][i] (see `rotations`); the angles are kept as the file gives them,
                  so a writer reproduces them and no range or branch is forced on them
    euler_orders  per joint, the Euler order (a permutation of "XYZ")
    translations  (F, J, 3) local translation of every joint (its offset where the file has no
                  position channels)
    scales        (F, J) uniform scale per joint and frame (HTR's SF), or None: it sizes the joint's
                  own segment (its End Sites, its world matrix), not its children (see fk)
    frame_time_text  the frame period as the file printed it (BVH `Frame Time`), or None; a writer
                  prints it back while it still stands for `fps` (see frame_rate.snap_rate)

    record        what the file says that the arrays cannot hold, for writers and the Blender layer:
                  a JSON-serialisable dict (for HTR its header, units, bone lengths: see formats.htr)

    The local transform of joint j is T(translations) @ R_rest @ R(euler) @ S(scales).
    """

    def __init__(
        self, skeleton, fps, euler, euler_orders, translations, scales=None, *, frame_time_text=None, record=None
    ):
        self.skeleton = skeleton
        self.fps = float(fps)
        self.euler = np.asarray(euler, dtype=float)
        self.euler_orders = [o.upper() for o in euler_orders]
        self.translations = np.asarray(translations, dtype=float)
        self.scales = None if scales is None else np.asarray(scales, dtype=float)
        self.frame_time_text = frame_time_text
        self.record = {} if record is None else record
        shape = (self.frame_count, skeleton.joint_count)
        if self.euler.shape != shape + (3,) or self.translations.shape != shape + (3,):
            raise ValueError(
                f"euler {self.euler.shape} and translations {self.translations.shape} must both be {shape + (3,)}"
            )
        if len(self.euler_orders) != skeleton.joint_count:
            raise ValueError(f"{len(self.euler_orders)} Euler orders for {skeleton.joint_count} joints")
        if self.scales is not None and self.scales.shape != shape:
            raise ValueError(f"scales {self.scales.shape} must be {shape}")
        if not 0 < self.fps < float("inf"):
            raise ValueError(f"fps must be positive and finite, not {fps}")
        if frame_time_text is not None:
            snap_rate(frame_time_text)  # raises ValueError unless it is a positive decimal

    def __repr__(self):
        return f"<Motion {self.skeleton.joint_count} joints x {self.frame_count} frames at {self.fps:g} fps>"

    @property
    def frame_count(self):
        return self.euler.shape[0]

    @property
    def frame_time(self):
        return 1.0 / self.fps

    @property
    def standard_fps(self):
        """The rate the take was captured at: the standard rate its printed frame period stands
        for (frame_rate.snap_rate: `0.008333` is 120 fps, though 1 / 0.008333 is 120.000048), else
        `fps`. Resampling keeps time on this clock, so that 120 -> 30 fps meets every 4th frame."""
        return self.fps if self.frame_time_text is None else float(snap_rate(self.frame_time_text))

    def local_rotation(self, joint):
        """(F, 3, 3) local rotations of one joint (without the rest rotation)."""
        return rotations.euler_to_matrix(self.euler[:, joint], self.euler_orders[joint])

    def euler_in(self, order):
        """(F, J, 3) the angles of every joint in Euler order `order` (a new array): as stored where
        it is the joint's order, else from its rotations, unwrapped over time."""
        euler = self.euler.copy()
        for j, old in enumerate(self.euler_orders):
            if old != order:
                euler[:, j] = rotations.unwrap_euler(rotations.matrix_to_euler(self.local_rotation(j), order))
        return euler

    def local_rotations(self):
        """(F, J, 3, 3) local rotations of every joint (without the rest rotations)."""
        return np.stack([self.local_rotation(j) for j in range(self.skeleton.joint_count)], axis=1)

    def _fk(self, scaled=True):
        s = self.skeleton
        return forward_kinematics(
            s.parents,
            lambda j, frames: rotations.euler_to_matrix_components(self.euler[frames, j], self.euler_orders[j]),
            self.translations,
            rest_rotations=s.rest_rotations,
            scales=self.scales if scaled else None,
        )

    def world_transforms(self, scaled=True):
        """World linear parts (F, J, 3, 3) (rotation, times the scales if any and `scaled`) and
        positions (F, J, 3) of every joint, file units, column vectors. A scale sizes its joint
        alone (see fk), so positions are the same either way and, unscaled, the linear parts are
        the joints' world rotations."""
        return self._fk(scaled)

    def world_matrices(self):
        """(F, J, 4, 4) world transform of every joint, file units, column vectors."""
        linear, position = self._fk()
        out = np.zeros(linear.shape[:2] + (4, 4))
        out[..., :3, :3] = linear
        out[..., :3, 3] = position
        out[..., 3, 3] = 1.0
        return out

    def world_positions(self):
        """(F, J, 3) world position of every joint, file units."""
        return self._fk()[1]

    def take(self, frames):
        """A Motion of some frames of this one (`frames`: an index array or a slice), same skeleton and rate."""
        return Motion(
            self.skeleton,
            self.fps,
            self.euler[frames],
            self.euler_orders,
            self.translations[frames],
            None if self.scales is None else self.scales[frames],
        )

    def pose_extent(self, frame=0):
        """(3,) extent of the joints and End Sites along each axis in one frame, file units."""
        pose = self.take(slice(frame, frame + 1 if frame != -1 else None))
        return np.ptp(np.vstack([pose.world_positions()[0], pose.end_site_positions()[0]]), axis=0)

    def require_writable(self):
        """Raise ValueError naming the joint (and frame) of the first number in the skeleton or the
        motion that is not finite or beyond errors.LARGEST, or a rate outside errors.RATES: what a
        reader would refuse, writers refuse before they open their output."""
        s, names = self.skeleton, self.skeleton.names
        require_rate(self.fps, "frame rate")
        require_bounded(s.offsets, lambda j, axis: f"OFFSET {'XYZ'[axis]} of joint {names[j]!r}")
        require_bounded(
            s.end_site_offsets,
            lambda e, axis: f"End Site OFFSET {'XYZ'[axis]} of joint {names[s.end_site_parents[e]]!r}",
        )
        if s.rest_rotations is not None:
            require_bounded(s.rest_rotations, lambda j, row, column: f"rest rotation of joint {names[j]!r}")
        require_bounded(  # radians, written as degrees by most formats
            self.euler, lambda f, j, i: f"rotation {i + 1} of joint {names[j]!r} at frame {f}", np.radians(LARGEST)
        )
        require_bounded(
            self.translations, lambda f, j, axis: f"translation {'XYZ'[axis]} of joint {names[j]!r} at frame {f}"
        )
        if self.scales is not None:
            require_bounded(self.scales, lambda f, j: f"scale of joint {names[j]!r} at frame {f}")

    def end_site_positions(self):
        """(F, E, 3) world position of every End Site (see Skeleton.end_site_parents)."""
        s = self.skeleton
        return points_in_world(*self._fk(), s.end_site_parents, s.end_site_offsets)
