"""The FAMC skinning model and temporal transforms: a generated skinned tube (three parts, the last
one scaled, linear-blend joints) recovered by clustering and reproduced by fits and weights; the
four-point transform coding; degenerate clusters; DCT against scipy; the lifting wavelet's exactness."""

import numpy as np
import pytest
import scipy.fft

from mocap_io.core.formats.famc import skinning, transforms


def _rotation(axis, angles):
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    m = np.tile(np.eye(4), (len(angles), 1, 1))
    m[:, i, i] = m[:, j, j] = np.cos(angles)
    m[:, i, j], m[:, j, i] = -np.sin(angles), np.sin(angles)
    return m


def _shift(offsets):
    m = np.tile(np.eye(4), (len(offsets), 1, 1))
    m[:, :3, 3] = offsets
    return m


def _about(point, frames, motion):
    """`motion` (F, 4, 4) applied about `point` instead of the origin."""
    return _shift(np.tile(point, (frames, 1))) @ motion @ _shift(np.tile(-np.asarray(point, float), (frames, 1)))


def skinned_tube(rings=40, around=50, frames=60):
    """(rest (V, 3), edges (E, 2), positions (F, V, 3), weights (V, 3), bones (3, F, 3, 4)): a tube
    along x over [0, 3], bones over [0, 1], [1, 2], [2, 3] (the root moving, the others turning about
    their joints, the last also scaled), weights blending linearly within 0.15 of each joint. Frame 0
    is the rest pose."""
    x = np.linspace(0, 3, rings)
    a = np.linspace(0, 2 * np.pi, around, endpoint=False)
    rest = np.stack([np.repeat(x, around), 0.2 * np.tile(np.cos(a), rings), 0.2 * np.tile(np.sin(a), rings)], 1)
    grid = np.arange(rings * around).reshape(rings, around)
    edges = np.concatenate(
        [np.stack([grid.ravel(), np.roll(grid, -1, 1).ravel()], 1), np.stack([grid[:-1].ravel(), grid[1:].ravel()], 1)]
    )
    phase = np.sin(2 * np.pi * np.arange(frames) / (frames - 1))
    root = _shift(np.stack([0.3 * phase, 0.1 * phase**2, 0 * phase], 1)) @ _rotation(2, 0.3 * phase)
    middle = root @ _about([1, 0, 0], frames, _rotation(1, 0.8 * phase))
    scale = np.tile(np.eye(4), (frames, 1, 1))
    scale[:, 0, 0] += 0.2 * phase
    scale[:, 1, 1] -= 0.1 * phase
    end = middle @ _about([2, 0, 0], frames, _rotation(2, 0.9 * phase) @ scale)
    bones = np.stack([root, middle, end])[:, :, :3]
    weights = np.zeros((len(rest), 3))
    weights[np.arange(len(rest)), np.clip(np.floor(rest[:, 0]), 0, 2).astype(int)] = 1
    for joint in (1, 2):
        near = np.abs(rest[:, 0] - joint) < 0.15
        share = (rest[near, 0] - joint + 0.15) / 0.3
        weights[near, joint - 1], weights[near, joint] = 1 - share, share
    positions = np.einsum("vb,bfij,vj->fvi", weights, bones, np.c_[rest, np.ones(len(rest))])
    return rest, edges, positions, weights, bones


@pytest.fixture(scope="module")
def tube():
    return skinned_tube()


def adjusted_rand(a, b):
    """Adjusted Rand index of two labelings (1 = the same partition)."""
    table = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(table, (a, b), 1)

    def pairs(n):
        return (n * (n - 1) / 2).sum()

    both, rows, cols = pairs(table), pairs(table.sum(1)), pairs(table.sum(0))
    expected = rows * cols / pairs(np.array([len(a)]))
    return (both - expected) / ((rows + cols) / 2 - expected)


# -- temporal transforms


@pytest.mark.parametrize("frames", [1, 2, 3, 8, 61, 300, 1999])
def test_dct_is_scipys_orthonormal_dct(frames):
    x = np.random.default_rng(frames).normal(size=(frames, 5, 3))
    np.testing.assert_allclose(transforms.dct(x), scipy.fft.dct(x, axis=0, norm="ortho"), atol=1e-12)
    np.testing.assert_allclose(transforms.idct(x), scipy.fft.idct(x, axis=0, norm="ortho"), atol=1e-12)
    np.testing.assert_allclose(transforms.idct(transforms.dct(x)), x, atol=1e-12)
    np.testing.assert_allclose(transforms.dct(x[:, 0, 0]), scipy.fft.dct(x[:, 0, 0], norm="ortho"), atol=1e-12)


def test_lift_is_exactly_invertible_for_every_length():
    rng = np.random.default_rng(0)
    for frames in range(1, 71):
        q = rng.integers(-(2**20), 2**20, size=(frames, 4, 3), dtype=np.int32)
        for levels in (None, 1, 2):
            c = transforms.lift(q, levels)
            assert c.dtype == np.int64 and c.shape == q.shape
            np.testing.assert_array_equal(transforms.unlift(c, levels), q)


def test_lift_compacts_smooth_signals():
    constant = transforms.lift(np.full((37, 2), 9))
    assert (constant[1:] == 0).all() and (constant[0] == 9).all()
    ramp = transforms.lift(np.arange(33) * 5)  # 2^k + 1 samples: no boundary detail either
    assert np.count_nonzero(ramp) <= 2
    np.testing.assert_array_equal(transforms.lift(np.arange(5), 0), np.arange(5))


def test_transforms_reject_what_they_cannot_transform():
    with pytest.raises(ValueError, match="integer"):
        transforms.lift(np.zeros(4))
    with pytest.raises(ValueError, match="at least one frame"):
        transforms.dct(np.zeros((0, 3)))


# -- four-point coding of the transforms


def test_anchor_points_sit_at_the_barycentre_and_extent():
    rest = np.array([[0, 0, 0], [2, 0, 0], [0, 4, 0], [5, 5, 5]], float)
    anchors = skinning.anchor_points(rest, np.array([0, 0, 0, 1]), 3)
    centre = [2 / 3, 4 / 3, 0]
    np.testing.assert_allclose(
        anchors[0], [centre, centre + np.r_[2, 0, 0], centre + np.r_[0, 4, 0], centre + np.r_[0, 0, 1e-5]]
    )
    np.testing.assert_allclose(anchors[1], [[5, 5, 5], [5 + 1e-5, 5, 5], [5, 5 + 1e-5, 5], [5, 5, 5 + 1e-5]])
    np.testing.assert_allclose(anchors[2], np.r_[np.zeros((1, 3)), 1e-5 * np.eye(3)])  # empty: finite


def test_transforms_survive_their_four_point_trajectories(tube):
    rest = tube[0]
    labels = np.clip(np.floor(rest[:, 0]), 0, 2).astype(int)
    anchors = skinning.anchor_points(rest, labels, 3)
    moved = np.random.default_rng(1).normal(size=(3, 9, 3, 4))
    points = skinning.points_from_affine(anchors, moved)
    assert points.shape == (3, 9, 4, 3)
    np.testing.assert_allclose(skinning.affine_from_points(anchors, points), moved, atol=1e-12)
    still = skinning.points_from_affine(anchors, np.tile(np.eye(3, 4), (3, 1, 1, 1)))
    np.testing.assert_allclose(still[:, 0], anchors, atol=1e-15)
    # the trajectory of a cluster's first point is where its transform takes the barycentre
    np.testing.assert_allclose(points[:, :, 0], np.einsum("kfij,kj->kfi", moved, np.c_[anchors[:, 0], np.ones(3)]))


# -- clustering, fits, weights, prediction


def test_clustering_recovers_the_parts(tube):
    rest, _, positions, weights, _ = tube
    parts, rigid = weights.argmax(1), weights.max(1) == 1
    labels = skinning.cluster_by_motion(rest, positions, 3)
    assert adjusted_rand(labels[rigid], parts[rigid]) == pytest.approx(1.0)
    assert adjusted_rand(labels, parts) > 0.85
    np.testing.assert_array_equal(skinning.cluster_by_motion(rest, positions, 3), labels)  # deterministic


def test_clustering_numbers_its_clusters_without_gaps(tube):
    rest, _, positions, _, _ = tube
    labels = skinning.cluster_by_motion(rest, positions, 80, seed=3)
    np.testing.assert_array_equal(np.unique(labels), np.arange(labels.max() + 1))
    assert labels.max() < 80
    np.testing.assert_array_equal(np.sort(skinning.cluster_by_motion(rest[:5], positions[:, :5], 9)), np.arange(5))


def test_a_skinning_model_is_reproduced_exactly(tube):
    rest, edges, positions, weights, bones = tube
    parts, rigid = weights.argmax(1), weights.max(1) == 1
    fitted = skinning.fit_affine(rest[rigid], positions[:, rigid], parts[rigid], 3)
    np.testing.assert_allclose(fitted, bones, atol=1e-9)
    adjacency = skinning.cluster_adjacency(parts, edges)
    found, chosen = skinning.skinning_weights(rest, positions, parts, adjacency, fitted, boundary=None)
    assert found.shape == (len(rest), 3) and not chosen[rigid].any()
    # all blended vertices but the two on the middle joint's axis, where both parts move alike
    assert (~chosen[~rigid]).sum() == 2
    np.testing.assert_allclose(found.sum(1), 1, atol=1e-12)
    expected = np.zeros_like(found)
    for v in np.flatnonzero(chosen):
        near = adjacency[parts[v]]
        expected[v, : len(near)] = weights[v, near]
    np.testing.assert_allclose(found[chosen], expected[chosen], atol=1e-6)
    predicted = skinning.predict(rest, parts, adjacency, found, fitted)
    np.testing.assert_allclose(predicted, positions, atol=1e-9)
    subset = [7, 0, 59, 7, 31]
    np.testing.assert_array_equal(
        skinning.predict(rest, parts, adjacency, found, fitted, frames=subset), predicted[subset]
    )


def test_boundary_limits_the_vertices_given_weights(tube):
    rest, edges, positions, weights, bones = tube
    parts = weights.argmax(1)
    adjacency = skinning.cluster_adjacency(parts, edges)
    boundary = rest[:, 0] < 1.5
    found, chosen = skinning.skinning_weights(rest, positions, parts, adjacency, bones, boundary)
    assert chosen.any() and not chosen[~boundary].any()
    np.testing.assert_array_equal(found[~chosen], np.eye(3)[np.zeros((~chosen).sum(), int)])


def test_the_whole_model_from_clustering_up(tube):
    rest, edges, positions, _, _ = tube
    labels = skinning.cluster_by_motion(rest, positions, 3)
    fitted = skinning.fit_affine(rest, positions, labels, labels.max() + 1)
    adjacency = skinning.cluster_adjacency(labels, edges)
    found, chosen = skinning.skinning_weights(rest, positions, labels, adjacency, fitted)
    alone = np.eye(found.shape[1])[np.zeros(len(rest), int)]
    rigid_error = np.abs(skinning.predict(rest, labels, adjacency, alone, fitted) - positions).max()
    skinned_error = np.abs(skinning.predict(rest, labels, adjacency, found, fitted) - positions).max()
    assert chosen.any() and skinned_error < 0.25 * rigid_error
    np.testing.assert_allclose(skinning.predict(rest, labels, adjacency, found, fitted, frames=[0])[0], rest, atol=0.02)


def test_degenerate_clusters_stay_finite(tube):
    rest, edges, positions, _, _ = tube
    labels = np.zeros(len(rest), int)
    labels[0], labels[1:3], labels[3:6], labels[50:100] = 1, 2, 3, 4  # 1, 2, 3 vertices, a flat ring
    fitted = skinning.fit_affine(rest, positions, labels, 6)  # 5 is empty
    assert np.isfinite(fitted).all()
    np.testing.assert_array_equal(fitted[5], np.tile(np.eye(3, 4), (len(positions), 1, 1)))
    np.testing.assert_array_equal(fitted[1, :, :, :3], np.tile(np.eye(3), (len(positions), 1, 1)))  # translation only
    adjacency = skinning.cluster_adjacency(labels, edges) + [np.array([5])]
    alone = np.eye(max(map(len, adjacency)))[np.zeros(len(rest), int)]
    predicted = skinning.predict(rest, labels, adjacency, alone, fitted)
    for k in (1, 2, 3, 4):
        np.testing.assert_allclose(predicted[:, labels == k], positions[:, labels == k], atol=1e-12)
    assert np.isfinite(skinning.skinning_weights(rest, positions, labels, adjacency, fitted)[0]).all()


def test_cluster_adjacency_lists_the_own_cluster_first():
    labels = np.array([1, 1, 0, 0, 2, 3])
    edges = np.array([[0, 2], [1, 1], [3, 4], [4, 2], [0, 1]])
    adjacency = skinning.cluster_adjacency(labels, edges)
    assert [a.tolist() for a in adjacency] == [[0, 1, 2], [1, 0], [2, 0], [3]]
    with pytest.raises(ValueError, match="edges"):
        skinning.cluster_adjacency(labels, [[0, 6]])


def test_predict_weights_run_over_the_adjacency_list():
    rest = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
    moves = np.zeros((2, 1, 3, 4))
    moves[:, 0, :, :3] = np.eye(3)
    moves[1, 0, :, 3] = [4, 0, 0]  # cluster 1 moves by +4 in x
    weights = np.array([[0.25, 0.75], [1.0, 0.0]])
    adjacency = [np.array([0, 1]), np.array([1, 0])]
    predicted = skinning.predict(rest, np.array([0, 1]), adjacency, weights, moves)
    np.testing.assert_allclose(predicted[0], [[4.0, 2.0, 3.0], [4.0, 0.0, 1.0]])


def test_model_inputs_are_checked(tube):
    rest, _, positions, _, _ = tube
    one = np.zeros(len(rest), int)
    with pytest.raises(ValueError, match="labels"):
        skinning.fit_affine(rest, positions, np.full(len(rest), 3), 3)
    with pytest.raises(ValueError, match="positions"):
        skinning.fit_affine(rest, positions[:, 1:], one, 1)
    with pytest.raises(ValueError, match="weights"):
        skinning.predict(rest, one, [np.array([0])], np.ones((len(rest), 2)), np.zeros((1, 1, 3, 4)))
    with pytest.raises(ValueError, match="transforms"):
        skinning.predict(rest, one, [np.array([0])], np.ones((len(rest), 1)), np.zeros((2, 1, 3, 4)))
    with pytest.raises(ValueError, match="transforms"):
        skinning.skinning_weights(rest, positions, one, [np.array([0])], np.zeros((1, 1, 3, 4)))
    with pytest.raises(ValueError, match="trajectories"):
        skinning.affine_from_points(np.zeros((2, 4, 3)), np.zeros((3, 5, 4, 3)))
