"""Meshes and mesh animations: a rest mesh plus positions per frame, dense or factored."""

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike

from .parallel import parallel_map


class Mesh:
    """A polygon mesh as flat arrays (0-based indices).

    vertices          (V, 3); colours (V, 3) or None
    uvs, normals      (T, 2) and (N, 3)
    face_sizes        (P,) corners per polygon; face_vertices (C,) the corners' vertex indices
    face_uvs, face_normals
                      (C,) uv / normal index per corner (-1 where a corner has none), or None
    face_materials    (P,) index into `materials` (-1: none); material_libraries: mtllib names
    groups            name -> (P_g,) indices of the faces in the group (a face may be in several)
    objects           name -> (P_o,) indices of the faces of each `o` object
    face_smooth       (P,) smoothing group (0: off)
    """

    def __init__(
        self,
        vertices,
        face_sizes=(),
        face_vertices=(),
        *,
        colours=None,
        uvs=None,
        normals=None,
        face_uvs=None,
        face_normals=None,
        face_materials=None,
        materials=(),
        material_libraries=(),
        groups=None,
        objects=None,
        face_smooth=None,
    ):
        self.vertices = np.asarray(vertices, dtype=float).reshape(-1, 3)
        self.face_sizes = np.asarray(face_sizes, dtype=np.intp).reshape(-1)
        self.face_vertices = np.asarray(face_vertices, dtype=np.intp).reshape(-1)
        self.colours = None if colours is None else np.asarray(colours, dtype=float).reshape(-1, 3)
        self.uvs = np.zeros((0, 2)) if uvs is None else np.asarray(uvs, dtype=float).reshape(-1, 2)
        self.normals = np.zeros((0, 3)) if normals is None else np.asarray(normals, dtype=float).reshape(-1, 3)
        self.face_uvs = None if face_uvs is None else np.asarray(face_uvs, dtype=np.intp)
        self.face_normals = None if face_normals is None else np.asarray(face_normals, dtype=np.intp)
        faces = len(self.face_sizes)
        self.face_materials = (
            np.full(faces, -1, dtype=np.intp) if face_materials is None else np.asarray(face_materials, dtype=np.intp)
        )
        self.face_smooth = np.zeros(faces, dtype=np.intp) if face_smooth is None else np.asarray(face_smooth, np.intp)
        self.materials = list(materials)
        self.material_libraries = list(material_libraries)
        self.groups = {k: np.asarray(v, dtype=np.intp) for k, v in (groups or {}).items()}
        self.objects = {k: np.asarray(v, dtype=np.intp) for k, v in (objects or {}).items()}
        if self.face_sizes.sum() != len(self.face_vertices):
            raise ValueError("face_sizes do not add up to the number of face corners")
        if len(self.face_vertices) and (self.face_vertices.min() < 0 or self.face_vertices.max() >= len(self.vertices)):
            raise ValueError("a face refers to a vertex that does not exist")

    def __repr__(self):
        return f"<Mesh {len(self.vertices)} vertices, {len(self.face_sizes)} faces, {len(self.groups)} groups>"

    @property
    def face_starts(self):
        """(P,) offset of each polygon's first corner in the corner arrays."""
        return (np.cumsum(self.face_sizes) - self.face_sizes).astype(np.intp)  # [] without faces

    def group_vertices(self, name):
        """Sorted unique vertex indices used by the faces of group `name`."""
        faces = self.groups[name]
        corners = np.repeat(self.face_starts[faces], self.face_sizes[faces]) + _ranges(self.face_sizes[faces])
        return np.unique(self.face_vertices[corners])

    def edges(self):
        """(E, 2) unique undirected edges of the polygons."""
        if not len(self.face_sizes):
            return np.zeros((0, 2), dtype=np.intp)
        nxt = np.arange(1, len(self.face_vertices) + 1)
        ends = self.face_starts + self.face_sizes
        nxt[ends - 1] = self.face_starts  # each polygon closes on its first corner
        pairs = np.sort(np.stack([self.face_vertices, self.face_vertices[nxt]], axis=1), axis=1)
        return np.unique(pairs, axis=0)


def _ranges(sizes):
    """0, 1, .., n-1 for every n in `sizes`, concatenated."""
    total = int(np.sum(sizes))
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.arange(total) - starts


class GroupBasis:
    """One group of a factored animation: positions(t) = TW[frame](mean + sum_i coefficients[i, t] basis[i]).

    vertices      (v,) 0-based mesh vertex indices of the group's rows
    mean          (v, 3) mean pose in the local frame
    basis         (r, v, 3) basis vectors (columns of the file's U, de-interleaved)
    coefficients  (r, F) per-frame weights (the file's Q)
    frame         index of the local frame (rigid transform) that carries the group
    """

    def __init__(self, name, vertices, mean, basis, coefficients, frame):
        self.name = name
        self.vertices = np.asarray(vertices, dtype=np.intp)
        self.mean = np.asarray(mean, dtype=float).reshape(-1, 3)
        self.basis = np.asarray(basis, dtype=float).reshape(len(basis), len(self.vertices), 3)
        self.coefficients = np.asarray(coefficients, dtype=float)
        if self.coefficients.ndim != 2 or len(self.coefficients) != len(self.basis):
            raise ValueError(f"coefficients {self.coefficients.shape} do not fit {len(self.basis)} basis vectors")
        self.frame = int(frame)

    @property
    def rank(self):
        return len(self.basis)

    def local_positions(self, frames):
        """(F, v, 3) positions in the group's local frame for the frame indices `frames`."""
        weights = self.coefficients[:, frames].T  # (F, r)
        flat = weights @ self.basis.reshape(self.rank, 3 * len(self.vertices))
        return self.mean + flat.reshape(len(weights), len(self.vertices), 3)


_BLOCK = 1 << 18  # numbers decoded per block of frames (2 MB: stays in cache)


def diagonal(positions):
    """Length of the bounding-box diagonal of points (..., 3): what relative tolerances scale by."""
    positions = np.asarray(positions, dtype=float).reshape(-1, 3)
    return float(np.linalg.norm(np.ptp(positions, axis=0))) if len(positions) else 0.0


class FrameSource(Protocol):
    """What decodes the frames of a MeshAnimation on demand (an encoded stream such as .famc)."""

    @property
    def frame_count(self) -> int: ...

    def positions(self, index: np.ndarray) -> np.ndarray:
        """(len(index), V, 3) vertex positions of the frames `index`."""
        ...


class MeshAnimation:
    """A mesh whose vertices move: dense positions, a factored form evaluated lazily, or a stream
    decoded on demand (give exactly one).

    Parameters
    ----------
    mesh : Mesh
        The rest mesh.
    fps : float
        Frames per second.
    positions : array_like, shape (F, V, 3), optional
        Vertex positions of a dense animation, in mesh vertex order.
    groups : iterable of GroupBasis, optional
        With `transforms`, a factored animation: vertices in no group stay at their rest position,
        and where groups overlap the later one wins.
    transforms : array_like, shape (K, F, 4, 4), optional
        The local frames that carry the groups (``GroupBasis.frame`` indexes the first axis).
    source : FrameSource, optional
        Decodes the frames asked for (an encoded stream such as .famc).
    first_frame : float, optional
        The number the file gives its first frame (a PC2 cache's start frame, a float; an OBJ
        sequence's first file number), which its writer writes again; None where it gives none.

    Raises
    ------
    ValueError
        If not exactly one of `positions`, `transforms` (with `groups`) and `source` is given, or
        the positions do not fit the mesh.

    Examples
    --------
    A triangle rising by one unit over three frames, dense and factored:

    >>> import numpy as np
    >>> from mocap_io.core.mesh import GroupBasis, Mesh, MeshAnimation
    >>> mesh = Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], face_sizes=[3], face_vertices=[0, 1, 2])
    >>> rise = np.array([0.0, 0.5, 1.0])[:, None, None] * [0, 0, 1]
    >>> animation = MeshAnimation(mesh, 24, mesh.vertices + rise)
    >>> animation
    <MeshAnimation 3 vertices x 3 frames at 24 fps, dense>
    >>> animation.positions(-1)
    array([[0., 0., 1.],
           [1., 0., 1.],
           [0., 1., 1.]])
    >>> group = GroupBasis("all", [0, 1, 2], mesh.vertices, [[[0, 0, 1]] * 3], [[0.0, 0.5, 1.0]], frame=0)
    >>> factored = MeshAnimation(mesh, 24, groups=[group], transforms=np.broadcast_to(np.eye(4), (1, 3, 4, 4)))
    >>> factored.factored, np.allclose(factored.positions(), animation.positions())
    (True, True)
    """

    def __init__(
        self,
        mesh: Mesh,
        fps: float,
        positions: ArrayLike | None = None,
        *,
        groups: Iterable[GroupBasis] | None = None,
        transforms: ArrayLike | None = None,
        source: FrameSource | None = None,
        first_frame: float | None = None,
    ) -> None:
        self.mesh = mesh
        self.fps = float(fps)
        self.first_frame = first_frame
        self._positions = None if positions is None else np.asarray(positions, dtype=float)
        self.groups = list(groups or [])
        self.transforms = None if transforms is None else np.asarray(transforms, dtype=float)
        self.source = source
        if sum(x is not None for x in (self._positions, self.transforms, source)) != 1:
            raise ValueError("give one of: dense positions, groups with transforms, a decoding source")
        if self._positions is not None and self._positions.shape[1:] != mesh.vertices.shape:
            raise ValueError(f"positions {self._positions.shape} do not fit {len(mesh.vertices)} vertices")

    def __repr__(self) -> str:
        kind = (
            "dense"
            if self._positions is not None
            else "decoded on demand"
            if self.source
            else f"{len(self.groups)} groups"
        )
        vertices = len(self.mesh.vertices)
        return f"<MeshAnimation {vertices} vertices x {self.frame_count} frames at {self.fps:g} fps, {kind}>"

    @property
    def frame_count(self) -> int:
        """Number of frames (F)."""
        if self.source is not None:
            return self.source.frame_count
        return len(self._positions) if self._positions is not None else self.transforms.shape[1]

    @property
    def factored(self) -> bool:
        """Whether this is the factored form (groups with transforms)."""
        return self.transforms is not None

    def positions(self, frames: int | slice | Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Vertex positions in mesh vertex order; only the frames asked for are computed.

        Parameters
        ----------
        frames : int, slice or array_like of int, optional
            The frames (default: all).

        Returns
        -------
        ndarray, shape (F, V, 3), or (V, 3) for one frame given as an int
        """
        index = np.arange(self.frame_count)[slice(None) if frames is None else frames]
        single = np.ndim(index) == 0
        index = np.atleast_1d(index)
        if self._positions is not None:
            out = self._positions[index]
        elif self.transforms is None:
            out = self.source.positions(index)
        else:
            transforms = self.transforms
            out = np.empty((len(index),) + self.mesh.vertices.shape)
            still = np.ones(len(self.mesh.vertices), dtype=bool)
            for group in self.groups:
                still[group.vertices] = False
            out[:, still] = self.mesh.vertices[still]

            def decode(group):
                # world[f, j] = sum_k,i R[f, j, k] w[i, f] B[i, :, k] with B = (mean, basis), w = (1, Q):
                # the rigid transform folds into the weights, so a block of frames is one GEMM
                step = max(1, _BLOCK // max(1, 3 * len(group.vertices)))  # frames per cache-sized block
                components = np.concatenate([group.mean[None], group.basis])  # (r+1, v, 3)
                stacked = components.transpose(2, 0, 1).reshape(-1, len(group.vertices))  # (3(r+1), v)
                weights = np.vstack([np.ones((1, group.coefficients.shape[1])), group.coefficients])
                for start in range(0, len(index), step):
                    block = index[start : start + step]
                    transform = transforms[group.frame, block]  # (f, 4, 4)
                    mixed = transform[:, :3, :3, None] * weights[:, block].T[:, None, None, :]  # (f, 3, 3, r+1)
                    world = (mixed.reshape(-1, stacked.shape[0]) @ stacked).reshape(len(block), 3, -1)
                    world += transform[:, :3, 3, None]
                    out[start : start + step, group.vertices] = world.transpose(0, 2, 1)

            disjoint = sum(len(g.vertices) for g in self.groups) == np.count_nonzero(~still)
            list((parallel_map if disjoint else map)(decode, self.groups))  # shared vertices: the last group wins
        return out[0] if single else out
