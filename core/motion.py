"""Motion: a skeleton plus per-frame arrays, with forward kinematics."""

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from . import rotations
from .errors import LARGEST, require_bounded, require_rate
from .fk import forward_kinematics, points_in_world
from .frame_rate import snap_rate
from .skeleton import Skeleton


class Motion:
    """Skeletal animation: a Skeleton and per-frame arrays of every joint's local transform.

    The local transform of joint j is ``T(translations) @ R_rest @ R(euler) @ S(scales)``: a
    translation, the skeleton's rest rotation, the frame's Euler rotation, the joint's scale.

    Parameters
    ----------
    skeleton : Skeleton
        The joints.
    fps : float
        Frame rate, positive and finite (for BVH exactly 1 / Frame Time as read).
    euler : array_like, shape (F, J, 3)
        Local rotation angles in radians; ``euler[f, j, i]`` turns about axis ``euler_orders[j][i]``
        (see `rotations`). The angles are kept as the file gives them, so that a writer reproduces
        them: no range or branch is forced on them.
    euler_orders : sequence of str
        Per joint, the Euler order (a permutation of "XYZ", either case).
    translations : array_like, shape (F, J, 3)
        Local translation of every joint (its offset where the file has no position channels).
    scales : array_like, shape (F, J), optional
        Uniform scale per joint and frame (HTR's SF): it sizes the joint's own segment (its End
        Sites, its world matrix), not its children (see `fk`). None: no scales.
    frame_time_text : str, optional
        The frame period as the file printed it (BVH ``Frame Time``); a writer prints it back while
        it still stands for `fps` (see `frame_rate.snap_rate`).
    record : object, optional
        What the file says that the arrays cannot hold, for writers and the Blender layer: a
        format's record (HTR: an HtrRecord, see `formats.htr`); None: an empty dict.

    Raises
    ------
    ValueError
        If the arrays' shapes do not fit the skeleton and each other, `fps` is not positive and
        finite, or `frame_time_text` is not a positive decimal number.

    Examples
    --------
    A knee bending over three frames, its shin ending 40 units below it:

    >>> import numpy as np
    >>> from mocap_io.core import Motion, Skeleton
    >>> skeleton = Skeleton(
    ...     ["hips", "knee"], [-1, 0], [[0, 90, 0], [0, -45, 0]], end_site_parents=[1], end_site_offsets=[[0, -40, 0]]
    ... )
    >>> euler = np.zeros((3, 2, 3))
    >>> euler[:, 1, 1] = np.radians([0, 45, 90])  # the knee's X angle (the 2nd of "ZXY")
    >>> motion = Motion(skeleton, 30, euler, ["ZXY", "ZXY"], np.broadcast_to(skeleton.offsets, (3, 2, 3)))
    >>> motion
    <Motion 2 joints x 3 frames at 30 fps>
    >>> motion.world_positions()[-1]
    array([[ 0., 90.,  0.],
           [ 0., 45.,  0.]])
    >>> motion.end_site_positions()[:, 0].round(6)
    array([[  0.      ,   5.      ,   0.      ],
           [  0.      ,  16.715729, -28.284271],
           [  0.      ,  45.      , -40.      ]])
    >>> motion.take(slice(1, None)).frame_count
    2
    >>> np.allclose(motion.local_rotation(1)[2], [[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    True
    >>> motion.euler_in("XYZ")[:, 1, 0].round(6)
    array([0.      , 0.785398, 1.570796])
    """

    def __init__(
        self,
        skeleton: Skeleton,
        fps: float,
        euler: ArrayLike,
        euler_orders: Sequence[str],
        translations: ArrayLike,
        scales: ArrayLike | None = None,
        *,
        frame_time_text: str | None = None,
        record: object = None,
    ) -> None:
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

    def __repr__(self) -> str:
        return f"<Motion {self.skeleton.joint_count} joints x {self.frame_count} frames at {self.fps:g} fps>"

    @property
    def frame_count(self) -> int:
        """Number of frames (F)."""
        return self.euler.shape[0]

    @property
    def frame_time(self) -> float:
        """Seconds per frame: 1 / fps."""
        return 1.0 / self.fps

    @property
    def standard_fps(self) -> float:
        """The rate the take was captured at: the standard rate its printed frame period stands for
        (`frame_rate.snap_rate`: ``0.008333`` is 120 fps, though 1 / 0.008333 is 120.000048), else
        `fps`. Resampling keeps time on this clock, so that 120 -> 30 fps meets every 4th frame."""
        return self.fps if self.frame_time_text is None else float(snap_rate(self.frame_time_text))

    def local_rotation(self, joint: int) -> np.ndarray:
        """Local rotations of one joint over the frames, without its rest rotation.

        Parameters
        ----------
        joint : int
            The joint's index.

        Returns
        -------
        ndarray, shape (F, 3, 3)
        """
        return rotations.euler_to_matrix(self.euler[:, joint], self.euler_orders[joint])

    def euler_in(self, order: str) -> np.ndarray:
        """The angles of every joint in one Euler order: as stored where that is the joint's order,
        else from its rotations, unwrapped over time.

        Parameters
        ----------
        order : str
            A permutation of "XYZ", upper case.

        Returns
        -------
        ndarray, shape (F, J, 3)
            A new array, radians.
        """
        euler = self.euler.copy()
        for j, old in enumerate(self.euler_orders):
            if old != order:
                euler[:, j] = rotations.unwrap_euler(rotations.matrix_to_euler(self.local_rotation(j), order))
        return euler

    def local_rotations(self) -> np.ndarray:
        """Local rotations of every joint, without the rest rotations.

        Returns
        -------
        ndarray, shape (F, J, 3, 3)
        """
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

    def world_transforms(self, scaled: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """World linear parts and positions of every joint (file units, column vectors).

        A scale sizes its joint alone (see `fk`), so positions are the same either way and, unscaled,
        the linear parts are the joints' world rotations.

        Parameters
        ----------
        scaled : bool, optional
            Multiply the linear parts by the joints' scales, if any (default).

        Returns
        -------
        linear : ndarray, shape (F, J, 3, 3)
        position : ndarray, shape (F, J, 3)
        """
        return self._fk(scaled)

    def world_matrices(self) -> np.ndarray:
        """World transform of every joint (file units, column vectors).

        Returns
        -------
        ndarray, shape (F, J, 4, 4)
        """
        linear, position = self._fk()
        out = np.zeros(linear.shape[:2] + (4, 4))
        out[..., :3, :3] = linear
        out[..., :3, 3] = position
        out[..., 3, 3] = 1.0
        return out

    def world_positions(self) -> np.ndarray:
        """World position of every joint, file units.

        Returns
        -------
        ndarray, shape (F, J, 3)
        """
        return self._fk()[1]

    def take(self, frames: slice | Sequence[int] | np.ndarray) -> "Motion":
        """Some frames of this motion, with the same skeleton and rate.

        Parameters
        ----------
        frames : slice or array_like of int
            The frames to keep.

        Returns
        -------
        Motion
        """
        return Motion(
            self.skeleton,
            self.fps,
            self.euler[frames],
            self.euler_orders,
            self.translations[frames],
            None if self.scales is None else self.scales[frames],
        )

    def pose_extent(self, frame: int = 0) -> np.ndarray:
        """Extent of the joints and End Sites along each axis in one frame, file units.

        Parameters
        ----------
        frame : int, optional
            The frame (default the first; -1 the last).

        Returns
        -------
        ndarray, shape (3,)
        """
        pose = self.take(slice(frame, frame + 1 if frame != -1 else None))
        return np.ptp(np.vstack([pose.world_positions()[0], pose.end_site_positions()[0]]), axis=0)

    def require_writable(self) -> None:
        """Refuse what a reader would refuse; writers call this before they open their output.

        Raises
        ------
        ValueError
            Naming the joint (and frame) of the first number in the skeleton or the motion that is not
            finite or beyond `errors.LARGEST`, or a frame rate outside `errors.RATES`.
        """
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

    def end_site_positions(self) -> np.ndarray:
        """World position of every End Site (see `Skeleton.end_site_parents`), file units.

        Returns
        -------
        ndarray, shape (F, E, 3)
        """
        s = self.skeleton
        return points_in_world(*self._fk(), s.end_site_parents, s.end_site_offsets)
