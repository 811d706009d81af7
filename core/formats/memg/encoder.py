"""Encode any mesh sequence as a mesh ensemble: per group a rigid frame per timestep plus a PCA basis.

For each group: the rigid motion is fitted per frame by least squares (Kabsch, all frames in one
batched SVD) against the group's mean shape, refined once; the remaining deformation, expressed
in the group's local frame, is factored by an SVD and truncated to the smallest rank whose decoded
per-vertex error (Euclidean, in world units) stays within the tolerance for every frame.
"""

import numpy as np
from numpy.typing import ArrayLike

from ...errors import require_bounded
from ...mesh import GroupBasis, Mesh, diagonal
from .reader import MemgAnimation


def encode(
    positions: ArrayLike,
    mesh: Mesh,
    fps: float,
    *,
    tolerance: float = 1e-3,
    relative: bool = True,
    grouping: str = "groups",
) -> MemgAnimation:
    """A factored MemgAnimation reproducing `positions` (F, V, 3) within `tolerance` (its `max_error`).

    tolerance  the largest allowed distance between a decoded and a given vertex; with relative=True
               a fraction of the bounding-box diagonal of the whole sequence
    grouping   "groups": the mesh's groups (a vertex in several goes to the first); "components":
               connected components of the faces (their groups are added to the returned mesh)
    One local frame per group. Vertices in no group must not move. A position that is not finite
    or beyond errors.LARGEST (what readers accept; squared in the fits, a huge one overflows) is refused.
    """
    positions = np.asarray(positions, dtype=float)
    if positions.ndim != 3 or positions.shape[1:] != mesh.vertices.shape:
        raise ValueError(f"positions {positions.shape} do not fit the mesh's {len(mesh.vertices)} vertices")
    require_bounded(positions, lambda f, v, axis: f"vertex {v} {'xyz'[axis]} at frame {f}")
    limit = tolerance * (diagonal(positions) if relative else 1.0)
    mesh, members = _grouping(mesh, grouping)
    covered = np.zeros(len(mesh.vertices), dtype=bool)
    groups, transforms = [], []
    for name, vertices in members:
        vertices = vertices[~covered[vertices]]
        if not len(vertices):
            continue
        covered[vertices] = True
        transform, local = _rigid_fit(positions[:, vertices])
        groups.append(_basis(name, vertices, local, limit, len(groups)))
        transforms.append(transform)
    outside = np.flatnonzero(~covered)
    moving = outside[
        np.linalg.norm(positions[:, outside] - mesh.vertices[outside], axis=-1).max(axis=0, initial=0) > limit
    ]
    if len(moving):
        in_faces = np.isin(moving, mesh.face_vertices)
        if grouping == "groups" and in_faces.any():
            first = moving[in_faces][0]
            raise ValueError(f"vertices outside every group move (vertex {first}); encode with grouping='components'")
        raise ValueError(
            f"vertices in no face move (vertex {moving[0]}): a mesh ensemble moves its faces' vertices only"
        )
    frames = len(positions)
    animation = MemgAnimation(
        mesh, fps, groups=groups, transforms=np.array(transforms) if transforms else np.zeros((0, frames, 4, 4))
    )
    error = np.linalg.norm(animation.positions() - positions, axis=-1).max() if frames else 0.0
    if error > limit * (1 + 1e-9):
        raise ValueError(f"encoding error {error:g} exceeds the tolerance {limit:g}")
    animation.max_error = error
    return animation


def _grouping(mesh, grouping):
    """(mesh, [(group name, vertex indices)]) for the chosen grouping."""
    if grouping == "groups":
        return mesh, [(name, mesh.group_vertices(name)) for name in mesh.groups]
    if grouping != "components":
        raise ValueError(f"grouping must be 'groups' or 'components', not {grouping!r}")
    labels = connected_components(len(mesh.vertices), _welded_edges(mesh))
    face_labels = labels[mesh.face_vertices[mesh.face_starts]] if len(mesh.face_sizes) else np.zeros(0, int)
    names = {label: f"part{i}" for i, label in enumerate(np.unique(face_labels))}
    groups = {names[label]: np.flatnonzero(face_labels == label) for label in names}
    out = Mesh(
        mesh.vertices,
        mesh.face_sizes,
        mesh.face_vertices,
        colours=mesh.colours,
        uvs=mesh.uvs,
        normals=mesh.normals,
        face_uvs=mesh.face_uvs,
        face_normals=mesh.face_normals,
        face_materials=mesh.face_materials,
        materials=mesh.materials,
        material_libraries=mesh.material_libraries,
        groups=groups,
        objects=mesh.objects,
        face_smooth=mesh.face_smooth,
    )
    return out, [(name, out.group_vertices(name)) for name in groups]


def _welded_edges(mesh):
    """Edges, plus edges joining vertices that share a rest position (split normals or uv seams and
    non-indexed meshes keep one part together)."""
    edges = mesh.edges()
    if not len(mesh.vertices):
        return edges
    size = np.linalg.norm(np.ptp(mesh.vertices, axis=0)) or 1.0
    _, first, same = np.unique(np.round(mesh.vertices / (1e-7 * size)), axis=0, return_index=True, return_inverse=True)
    same = same.reshape(-1)
    twins = np.stack([first[same], np.arange(len(mesh.vertices))], axis=1)
    return np.vstack([edges, twins[twins[:, 0] != twins[:, 1]]])


def connected_components(count: int, edges: np.ndarray) -> np.ndarray:
    """Component label (the smallest vertex index in it) of each of `count` vertices."""
    labels = np.arange(count)
    if not len(edges):
        return labels
    a, b = edges[:, 0], edges[:, 1]
    while True:
        low = np.minimum(labels[a], labels[b])
        new = labels.copy()
        np.minimum.at(new, a, low)
        np.minimum.at(new, b, low)
        new = new[new]  # pointer jumping: halves the remaining distance each round
        if np.array_equal(new, labels):
            return labels
        labels = new


def _rigid_fit(points):
    """Per-frame rigid transforms (F, 4, 4) of a point group (F, v, 3) and its local positions."""
    centres = points.mean(axis=1, keepdims=True)
    centred = points - centres
    reference = centred[0]
    for _ in range(2):  # align to the first frame, then to the mean of the aligned shapes
        covariance = np.einsum("vi,fvj->fij", reference, centred)
        u, _, vt = np.linalg.svd(covariance)
        d = np.sign(np.linalg.det(vt.swapaxes(1, 2) @ u.swapaxes(1, 2)))
        u[:, :, 2] *= d[:, None]
        rotations = vt.swapaxes(1, 2) @ u.swapaxes(1, 2)  # maps reference to frame
        local = centred @ rotations  # rotations^T applied to each point
        reference = local.mean(axis=0)
    transforms = np.zeros((len(points), 4, 4))
    transforms[:, :3, :3] = rotations
    transforms[:, :3, 3] = centres[:, 0]
    transforms[:, 3, 3] = 1.0
    return transforms, local


def _basis(name, vertices, local, limit, frame):
    """The GroupBasis of local positions (F, v, 3): mean plus the smallest sufficient PCA basis."""
    frames, count = local.shape[:2]
    mean = local.mean(axis=0)
    deviation = (local - mean).reshape(frames, -1)  # (F, 3v), rows are frames
    if not frames or np.linalg.norm(deviation.reshape(frames, count, 3), axis=-1).max() <= limit:
        return GroupBasis(name, vertices, mean, np.zeros((0, count, 3)), np.zeros((0, frames)), frame)
    u, s, vt = np.linalg.svd(deviation, full_matrices=False)

    def error(rank):
        rest = deviation - (u[:, :rank] * s[:rank]) @ vt[:rank]
        return np.linalg.norm(rest.reshape(frames, count, 3), axis=-1).max()

    low, high = 0, len(s)  # error(high) is ~0; find the smallest rank within the limit
    while low < high:
        middle = (low + high) // 2
        if error(middle) <= limit:
            high = middle
        else:
            low = middle + 1
    rank = high
    return GroupBasis(name, vertices, mean, vt[:rank].reshape(rank, count, 3), (u[:, :rank] * s[:rank]).T, frame)
