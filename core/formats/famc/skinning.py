"""The FAMC skinning model (ISO/IEC 14496-16 Amd.2, 5.10.13 and 5.10.14), free of any bitstream.

The vertices of a segment are partitioned into clusters; cluster k moves by one affine transform
A_t^k per frame, (3, 4) for column vectors: x_t = A_t^k [x; 1]. A vertex v is predicted from its
frame-0 (rest) position as x^_t^v = sum_j w_j^v A_t^{k_j} [x^v; 1], k_j running over
adj[labels[v]]: the clusters sharing an edge with v's own cluster, that cluster first (see
`cluster_adjacency`); weights over any other cluster are zero, as the standard says. The stream
carries each A_t^k as the trajectories of four points of its cluster (`anchor_points`,
`points_from_affine`, `affine_from_points`).

The encoder side (`cluster_by_motion`, `fit_affine`, `skinning_weights`) is this project's own
design: the standard defines only what a decoder computes from them.
"""

import numpy as np

MIN_EXTENT = 1e-5  # an anchor's smallest offset from the barycentre: a flat cluster keeps an invertible frame
_SAMPLE_FRAMES = 24  # frames the clustering looks at: enough to tell motions apart, cheap at any length
_RANK = 1e-10  # relative spread below which a cluster's direction counts as unspanned by its vertices
_RIDGE = 1e-12  # relative pull of each vertex's weights toward its own cluster alone
_GAIN = 1e-12  # relative error reduction below which a vertex keeps its own cluster alone


def _homogeneous(points):
    return np.concatenate([points, np.ones(points.shape[:-1] + (1,))], axis=-1)


def _members(labels, clusters):
    """Vertex indices of each cluster 0..clusters-1, ascending."""
    order = np.argsort(labels, kind="stable")
    return np.split(order, np.cumsum(np.bincount(labels, minlength=clusters))[:-1])


def _checked_rest(rest):
    """rest as a (V, 3) float array."""
    rest = np.asarray(rest, dtype=float)
    if rest.ndim != 2 or rest.shape[1] != 3:
        raise ValueError(f"rest {rest.shape} must be (V, 3)")
    return rest


def _checked_labels(labels, rest, clusters):
    """labels as a (V,) int array in 0..clusters-1, V that of the checked `rest`."""
    labels = np.asarray(labels)
    in_range = not len(labels) or 0 <= labels.min() <= labels.max() < clusters
    if labels.shape != rest.shape[:1] or not np.issubdtype(labels.dtype, np.integer) or not in_range:
        raise ValueError(f"labels must be {len(rest)} integers in 0..{clusters - 1}")
    return labels


def _checked_positions(positions, rest):
    """positions as an (F, V, 3) float array, V that of the checked `rest`."""
    positions = np.asarray(positions, dtype=float)
    if positions.ndim != 3 or positions.shape[1:] != rest.shape:
        raise ValueError(f"positions {positions.shape} must be (F, {len(rest)}, 3)")
    return positions


def _checked_transforms(transforms, clusters, frames=None):
    transforms = np.asarray(transforms, dtype=float)
    if transforms.ndim != 4 or transforms.shape[::2] != (clusters, 3) or transforms.shape[3] != 4:
        raise ValueError(f"transforms {transforms.shape} must be ({clusters}, F, 3, 4)")
    if frames is not None and len(transforms[0]) != frames:
        raise ValueError(f"transforms {transforms.shape} must cover the {frames} frames")
    return transforms


def anchor_points(rest, labels, clusters):
    """(K, 4, 3): per cluster its rest barycentre M1 and M1 + (dx, 0, 0), M1 + (0, dy, 0),
    M1 + (0, 0, dz), dx, dy, dz the cluster's extent along each axis (at least MIN_EXTENT, and at
    least 2^-20 of M1's largest coordinate, so that M1 + d differs from M1 far from the origin too).

    An empty cluster gets M1 = 0 and the smallest extent."""
    rest = _checked_rest(rest)
    labels = _checked_labels(labels, rest, clusters)
    counts = np.bincount(labels, minlength=clusters)
    centre = np.stack([np.bincount(labels, rest[:, a], clusters) for a in range(3)], axis=1)
    centre /= np.maximum(counts, 1)[:, None]
    high = np.full((clusters, 3), -np.inf)
    low = np.full((clusters, 3), np.inf)
    np.maximum.at(high, labels, rest)
    np.minimum.at(low, labels, rest)
    floor = np.maximum(MIN_EXTENT, 2.0**-20 * np.abs(centre).max(axis=1, initial=0.0))[:, None]
    extent = np.maximum(np.where(counts[:, None] > 0, high - low, 0.0), floor)
    return centre[:, None, :] + np.concatenate([np.zeros((1, 3)), np.eye(3)])[None] * extent[:, None, :]


def _frames_of(anchors):
    """(K, 4, 4): the anchors as homogeneous columns, [M1 M2 M3 M4; 1 1 1 1]."""
    anchors = np.asarray(anchors, dtype=float)
    if anchors.ndim != 3 or anchors.shape[1:] != (4, 3):
        raise ValueError(f"anchors {anchors.shape} must be (K, 4, 3)")
    return np.swapaxes(_homogeneous(anchors), 1, 2)


def affine_from_points(anchors, trajectories):
    """(K, F, 3, 4) transforms A_t^k = [M1..M4 at t] [M1..M4 at 0]^-1 (homogeneous columns) from the
    trajectories (K, F, 4, 3) of the anchors (K, 4, 3)."""
    start = _frames_of(anchors)
    trajectories = np.asarray(trajectories, dtype=float)
    if trajectories.ndim != 4 or trajectories.shape[2:] != (4, 3) or len(trajectories) != len(start):
        raise ValueError(f"trajectories {trajectories.shape} must be ({len(start)}, F, 4, 3)")
    return np.swapaxes(trajectories, -1, -2) @ np.linalg.inv(start)[:, None]


def points_from_affine(anchors, transforms):
    """(K, F, 4, 3): where the transforms (K, F, 3, 4) take the anchors (K, 4, 3), the inverse of
    `affine_from_points` (what an encoder codes)."""
    start = _frames_of(anchors)
    return np.swapaxes(np.asarray(transforms, dtype=float) @ start[:, None], -1, -2)


def fit_affine(rest, positions, labels, clusters):
    """(K, F, 3, 4) least-squares affine transforms taking each cluster's rest vertices to their
    positions (F, V, 3) in every frame.

    Of all least-squares fits, the one whose linear part is nearest the identity: a cluster too
    small or flat to fix an affine map (1-3 vertices, coplanar) moves by its translation-only fit
    along the directions it does not span (directions of spread below _RANK of its largest, or
    thinner than MIN_EXTENT: the rounding of a static mesh written with 6 decimals must not count as
    a direction to fit), and an empty cluster gets the identity."""
    rest = _checked_rest(rest)
    labels = _checked_labels(labels, rest, clusters)
    positions = _checked_positions(positions, rest)
    transforms = np.zeros((clusters, len(positions), 3, 4))
    transforms[..., :3] = np.eye(3)
    for k, index in enumerate(_members(labels, clusters)):
        if not len(index):
            continue
        centre = rest[index].mean(axis=0)
        offsets = rest[index] - centre
        moved = positions[:, index]
        spread, axes = np.linalg.eigh(offsets.T @ offsets)
        kept = (spread > _RANK * spread[-1]) & (
            spread > len(index) * MIN_EXTENT**2
        )  # thinner than the anchors: unspanned
        inverse = (axes[:, kept] / spread[kept]) @ axes[:, kept].T  # pseudo-inverse of the spread
        linear = np.eye(3) + (np.swapaxes(moved, 1, 2) @ offsets - offsets.T @ offsets) @ inverse
        transforms[k, :, :, :3] = linear
        transforms[k, :, :, 3] = moved.mean(axis=1) - linear @ centre
    return transforms


def _kmeans(features, clusters, rng, iterations=20):
    """Labels of k-means (k-means++ seeding from `rng`, Lloyd iterations) on the rows of `features`."""
    norms = np.square(features).sum(axis=1)

    def distances(row):
        return np.maximum(norms - 2 * features @ features[row] + norms[row], 0.0)

    picks = [int(rng.integers(len(features)))]
    nearest = distances(picks[0])
    for _ in range(1, clusters):
        total = nearest.sum()
        pick = int(rng.choice(len(features), p=nearest / total)) if total > 0 else int(rng.integers(len(features)))
        picks.append(pick)
        nearest = np.minimum(nearest, distances(pick))
    centres = features[picks]
    labels = None
    for _ in range(iterations):
        new = np.argmin(np.square(centres).sum(axis=1) - 2 * features @ centres.T, axis=1)
        if labels is not None and (new == labels).all():
            break
        labels = new
        order = np.argsort(labels, kind="stable")
        kept = np.bincount(labels, minlength=clusters) > 0
        starts = np.searchsorted(labels[order], np.flatnonzero(kept))
        centres[kept] = np.add.reduceat(features[order], starts) / np.diff(np.append(starts, len(order)))[:, None]
    return labels


def _renumbered(labels):
    return np.unique(labels, return_inverse=True)[1].reshape(-1)


def cluster_by_motion(rest, positions, clusters, seed=0, *, iterations=10):
    """(V,) labels 0..K-1 (K <= clusters) grouping the vertices by similar affine motion.

    k-means (seeded by `seed`, so deterministic) on the displacement trajectories from the rest
    positions, then refinement: each vertex moves to the cluster whose least-squares affine motion
    predicts it best, for at most `iterations` rounds. Both look at no more than _SAMPLE_FRAMES
    evenly spread frames. Empty clusters are dropped and the labels renumbered."""
    rest = _checked_rest(rest)
    positions = _checked_positions(positions, rest)
    if clusters < 1 or not len(rest) or not len(positions):
        raise ValueError("clustering needs at least one cluster, vertex and frame")
    frames = np.unique(np.linspace(0, len(positions) - 1, min(len(positions), _SAMPLE_FRAMES)).round().astype(int))
    rest = rest - rest.mean(axis=0)
    moved = positions[frames] - positions[frames].mean(axis=1, keepdims=True)
    flat = moved.transpose(1, 0, 2).reshape(len(rest), -1)
    labels = _renumbered(
        _kmeans(flat - np.tile(rest, len(frames)), min(clusters, len(rest)), np.random.default_rng(seed))
    )
    points = _homogeneous(rest)
    for _ in range(iterations):
        count = labels.max() + 1
        transforms = fit_affine(rest, moved, labels, count)
        gram = np.einsum("ktab,ktac->kbc", transforms, transforms)
        through = flat @ transforms.transpose(1, 2, 0, 3).reshape(-1, 4 * count)
        fitted = (points @ gram.transpose(1, 0, 2).reshape(4, -1) - 2 * through).reshape(len(rest), count, 4)
        new = np.argmin(np.einsum("vkc,vc->vk", fitted, points), axis=1)  # squared residual minus |positions|^2
        if (new == labels).all():
            break
        labels = _renumbered(new)
    return labels


def cluster_adjacency(labels, edges):
    """For each cluster k (0..max label) an int array: k itself FIRST, then, ascending, the clusters
    sharing a mesh edge (E, 2) with it. The weights of a vertex run over adj[labels[v]] in this
    order: its own cluster's weight first."""
    labels = np.asarray(labels)
    clusters = int(labels.max()) + 1 if len(labels) else 0
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(edges) and not 0 <= edges.min() <= edges.max() < len(labels):
        raise ValueError(f"edges must index the {len(labels)} vertices")
    a, b = labels[edges].T
    across = a != b
    pairs = np.unique(np.concatenate([a[across] * clusters + b[across], b[across] * clusters + a[across]]))
    first, second = np.divmod(pairs, max(clusters, 1))
    others = np.split(second, np.searchsorted(first, np.arange(1, clusters)))
    return [np.concatenate([[k], near]).astype(np.intp) for k, near in enumerate(others[:clusters])]


def _padded_width(adjacency):
    return max((len(near) for near in adjacency), default=1)


def skinning_weights(rest, positions, labels, adjacency, transforms, boundary=None):
    """(weights (V, M), filter (V,) bool): per vertex its weights over adj[labels[v]] (M the longest
    list, zero-padded) summing to 1, least squares over all frames of
    || sum_j w_j A_t^{k_j} [x_v; 1] - x_t^v ||^2.

    Solved for the vertices in `boundary` (bool (V,), default all) whose error it reduces by more
    than a rounding-level margin (`filter` True); every other vertex gets weight 1 on its own cluster.
    """
    clusters = len(adjacency)
    rest = _checked_rest(rest)
    labels = _checked_labels(labels, rest, clusters)
    positions = _checked_positions(positions, rest)
    transforms = _checked_transforms(transforms, clusters, len(positions))
    solve = np.ones(len(rest), bool) if boundary is None else np.asarray(boundary, bool)
    weights = np.zeros((len(rest), _padded_width(adjacency)))
    weights[:, 0] = 1.0
    chosen = np.zeros(len(rest), bool)
    # Centre the rest shape and each frame: exact for weights summing to 1, and well conditioned.
    centre = rest.mean(axis=0) if len(rest) else np.zeros(3)
    middle = positions.mean(axis=1) if len(rest) else np.zeros((len(positions), 3))
    shifted = transforms.copy()
    shifted[..., 3] += transforms[..., :3] @ centre - middle
    points = _homogeneous(rest - centre)
    targets = positions - middle[:, None]
    for k, index in enumerate(_members(labels, clusters)):
        index = index[solve[index]]
        near = np.asarray(adjacency[k])
        if len(near) < 2 or not len(index):
            continue
        weights[index, : len(near)], chosen[index] = _constrained_fit(shifted[near], points[index], targets[:, index])
    return weights, chosen


def _constrained_fit(transforms, points, targets):
    """(weights (n, m), improved (n,)): least-squares weights summing to 1 of the m transforms
    (m, F, 3, 4) predicting the targets (F, n, 3) from the points (n, 4), with w = e_0 + N u,
    N's columns e_j - e_0, eliminating the constraint."""
    m = len(transforms)
    stacked = transforms.transpose(1, 2, 0, 3).reshape(-1, 4 * m)  # rows (frame, axis), columns (cluster, 4)
    gram = (stacked.T @ stacked).reshape(m, 4, m, 4)  # sum over frames of A_i^T A_j, indexed [i, b, j, c]
    normal = np.einsum(
        "vijc,vc->vij", (points @ gram.transpose(1, 0, 2, 3).reshape(4, -1)).reshape(-1, m, m, 4), points
    )
    through = targets.transpose(1, 0, 2).reshape(len(points), -1) @ stacked
    right = np.einsum("vjc,vc->vj", through.reshape(len(points), m, 4), points) - normal[:, :, 0]
    reduced = normal[:, 1:, 1:] - normal[:, 1:, :1] - normal[:, :1, 1:] + normal[:, :1, :1]
    rhs = right[:, 1:] - right[:, :1]
    scale = np.trace(reduced, axis1=1, axis2=2) + np.square(targets).sum(axis=(0, 2)) + normal[:, 0, 0]
    reduced = reduced + (_RIDGE * scale + np.finfo(float).tiny)[:, None, None] * np.eye(m - 1)
    u = np.linalg.solve(reduced, rhs[..., None])[..., 0]
    gain = np.einsum("vi,vi->v", u, rhs)  # the drop of the squared error from own-cluster-only
    improved = gain > _GAIN * scale
    weights = np.zeros((len(points), m))
    weights[:, 0] = 1.0
    weights[improved, 0] -= u[improved].sum(axis=1)
    weights[improved, 1:] = u[improved]
    return weights, improved


def predict(rest, labels, adjacency, weights, transforms, frames=None):
    """(F', V, 3): x^_t^v = sum_j weights[v, j] A_t^{adj[labels[v]][j]} [rest_v; 1] for the frames
    asked (1-D indices into the transforms' frames, default all).

    One product per cluster covers all its vertices and frames; einsum rather than BLAS, whose
    rounding depends on the matrix shapes: any subset of frames gives the full prediction's rows
    bit for bit."""
    clusters = len(adjacency)
    rest = _checked_rest(rest)
    labels = _checked_labels(labels, rest, clusters)
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (len(rest), _padded_width(adjacency)):
        raise ValueError(f"weights {weights.shape} must be ({len(rest)}, {_padded_width(adjacency)})")
    transforms = _checked_transforms(transforms, clusters)
    chosen = transforms if frames is None else transforms[:, np.asarray(frames, dtype=np.intp).reshape(-1)]
    out = np.empty((chosen.shape[1], len(rest), 3))
    points = _homogeneous(rest)
    for k, index in enumerate(_members(labels, clusters)):
        if not len(index):
            continue
        near = np.asarray(adjacency[k])
        blend = (weights[index, : len(near), None] * points[index, None, :]).reshape(len(index), -1)
        stacked = chosen[near].transpose(1, 2, 0, 3).reshape(-1, 4 * len(near))
        out[:, index] = np.einsum("fk,nk->fn", stacked, blend).reshape(len(out), 3, len(index)).transpose(0, 2, 1)
    return out
