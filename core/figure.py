"""Any model as points and line segments over frames, for drawing it (previews, the RIB camera):
a skeleton's joints and End Sites joined by its bones, markers alone, a mesh's vertices and edges."""

import warnings

import numpy as np

from .body import sample_frames, take_up
from .fk import points_in_world
from .markers import Markers
from .mesh import Mesh, MeshAnimation
from .motion import Motion

_BLOCK = 1 << 20  # points per block of frames when scanning a long take for its bounds


class Figure:
    """A Motion, Markers, Mesh or MeshAnimation seen as points.

    kind       "skeleton", "markers" or "mesh"
    names      a name per point (joints, then "<joint> End Site"; markers; none for meshes)
    segments   (S, 2) point indices joined by a line: bones (parent to child), mesh edges
    fps, frame_count
    up         (3,) the up direction, a signed coordinate axis: a skeleton's from body.take_up (HTR's
               GlobalAxisofGravity, else the axis nearest its hips-to-head direction), else the
               axis along which the points spread most in the median frame; +Y for meshes (OBJ's)
    """

    def __init__(self, data):
        self.data = data
        if isinstance(data, Motion):
            s = data.skeleton
            self.kind, self.fps, self.frame_count = "skeleton", data.fps, data.frame_count
            self.names = s.names + [f"{s.names[j]} End Site" for j in s.end_site_parents]
            children = np.flatnonzero(s.parents >= 0)
            ends = s.joint_count + np.arange(len(s.end_site_parents))
            self.segments = np.concatenate(
                [np.stack([s.parents[children], children], 1), np.stack([s.end_site_parents, ends], 1)]
            ).astype(np.intp)
        elif isinstance(data, Markers):
            self.kind, self.fps, self.frame_count = "markers", data.rate, data.frame_count
            self.names, self.segments = list(data.names), np.zeros((0, 2), dtype=np.intp)
        elif isinstance(data, (Mesh, MeshAnimation)):
            self.mesh = data if isinstance(data, Mesh) else data.mesh
            self.kind, self.names, self.segments = "mesh", [], self.mesh.edges()
            self.fps, self.frame_count = (data.fps, data.frame_count) if isinstance(data, MeshAnimation) else (1.0, 1)
        else:
            raise TypeError(f"cannot draw {type(data).__name__}: expected a Motion, Markers, Mesh or MeshAnimation")
        self.up = np.eye(3)[self._up()] if self.kind != "skeleton" else self._skeleton_up()

    def __repr__(self):
        return f"<Figure {self.kind}: {self.point_count} points x {self.frame_count} frames>"

    @property
    def point_count(self):
        return len(self.mesh.vertices) if self.kind == "mesh" else len(self.names)

    def points(self, frames=None):
        """(F, N, 3) point positions for the frame indices `frames` (None: all); NaN where a
        marker is missing."""
        index = np.arange(self.frame_count)[slice(None) if frames is None else frames]
        index = np.atleast_1d(index)
        data = self.data
        if self.kind == "skeleton":
            linear, position = data.take(index).world_transforms()
            s = data.skeleton
            return np.concatenate(
                [position, points_in_world(linear, position, s.end_site_parents, s.end_site_offsets)], 1
            )
        if self.kind == "markers":
            return np.asarray(data.positions[index], dtype=float)
        if isinstance(data, Mesh):
            return np.broadcast_to(data.vertices, (len(index),) + data.vertices.shape)
        return data.positions(index)

    def blocks(self):
        """(first frame, points (f, N, 3)) over every frame, a block of frames at a time."""
        step = max(1, _BLOCK // max(1, self.point_count))
        for start in range(0, self.frame_count, step):
            yield start, self.points(slice(start, start + step))

    def bounds(self):
        """(low (3,), high (3,)): the box holding every point of every frame (NaNs ignored); zeros
        when there is no point."""
        low, high = np.full(3, np.inf), np.full(3, -np.inf)
        for _, points in self.blocks():
            seen = points[np.isfinite(points).all(axis=-1)]
            if len(seen):
                low, high = np.minimum(low, seen.min(axis=0)), np.maximum(high, seen.max(axis=0))
        if not np.isfinite(low).all():
            return np.zeros(3), np.zeros(3)
        return low, high

    def _skeleton_up(self):
        up = take_up(self.data)
        return np.eye(3)[self._up()] if up is None else up

    def _up(self):
        """The axis along which the points spread most in the median of up to 25 frames."""
        if self.kind == "mesh" or not self.frame_count or not self.point_count:
            return 1
        sample = self.points(sample_frames(self.frame_count))
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # frames where every marker is missing
            spread = np.nanmax(sample, axis=1) - np.nanmin(sample, axis=1)
            median = np.nanmedian(spread, axis=0)
        return int(np.argmax(np.nan_to_num(median, nan=-1.0)))
