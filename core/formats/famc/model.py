"""A segment's skinning model as the stream holds it (quantised): read, written, fitted by the
encoder to a target error, and the prediction it gives, the same on both sides."""

from dataclasses import dataclass

import numpy as np

from . import syntax
from .skinning import (
    affine_from_points,
    anchor_points,
    cluster_adjacency,
    cluster_by_motion,
    fit_affine,
    points_from_affine,
    predict,
    skinning_weights,
)
from .transforms import dct, idct

ENCODER_WEIGHT_BITS = 16  # the most bits the encoder tries for weights
# what one segment may hold, so that decoding stays within about a GiB: values of a V x F x 3 table
# (vertices x frames, four points per cluster x frames), and frames (the DCT basis is F x F)
MAX_VALUES, MAX_FRAMES = 1 << 23, 1024
# fractions of the target error: quantisation steps of the translation and the trajectories, the
# error above which a vertex gets weights, what quantising the weights may add
TRANSLATION_STEP, TRAJECTORY_STEP, WEIGHTED, WEIGHT_ERROR = 1 / 8, 1 / 2, 2, 2  # tuned on the benchmark


@dataclass
class Model:
    """FAMCSkinningModel: global translation and four-point trajectories (DCT coefficients over the
    segment's frames, quantised), the partition into clusters and the animation weights."""

    translation: syntax.QuantizedTable  # (1, F, 3)
    labels: np.ndarray  # (V,) cluster of each vertex
    trajectories: syntax.QuantizedTable  # (4 K, F, 3)
    weights: syntax.Weights

    @property
    def clusters(self):
        return len(self.weights.adjacency)


def read_model(reader, vertices, frames, normals_prediction=0):
    """The Model of FAMCSkinningModel; with adaptive normal prediction (3) its normal predictors
    follow, read and set aside (normals are not decoded)."""
    translation = syntax.read_global_translation(reader, frames)
    at = reader.offset
    clusters, labels = syntax.read_partition(reader, vertices)
    if 4 * clusters * frames > MAX_VALUES:
        raise reader.error(f"{clusters} clusters x 4 points x {frames} frames is beyond {MAX_VALUES} values", at)
    trajectories = syntax.read_affine_transforms(reader, clusters, frames)
    weights = syntax.read_weights(reader, labels, clusters)
    if normals_prediction == 3:
        syntax.read_normal_predictors(reader, vertices)
    return Model(translation, labels, trajectories, weights)


def write_model(writer, model):
    syntax.write_global_translation(writer, model.translation)
    syntax.write_partition(writer, model.clusters, model.labels)
    syntax.write_affine_transforms(writer, model.trajectories)
    syntax.write_weights(writer, model.weights, model.labels)


def prediction(model, rest, transforms=None):
    """(F, V, 3) positions the model predicts from the static mesh `rest` (V, 3); `transforms`:
    its cluster motions (`cluster_motions`) when they are at hand."""
    transforms = cluster_motions(model, rest) if transforms is None else transforms
    weights = model.weights
    blended = predict(rest, model.labels, weights.adjacency, weights.real(model.labels), transforms)
    return blended + idct(model.translation.real()[0])[:, None]


def cluster_motions(model, rest):
    """(K, F, 3, 4) cluster motions from the decoded four-point trajectories."""
    table = model.trajectories.real()
    frames = table.shape[1]
    points = idct(table.transpose(1, 0, 2)).reshape(frames, model.clusters, 4, 3).transpose(1, 0, 2, 3)
    return affine_from_points(anchor_points(rest, model.labels, model.clusters), points)


def fit_model(rest, positions, edges, limit, clusters):
    """(the Model the encoder writes for `positions` (F, V, 3), its cluster motions as decoded):
    quantisation steps of a fraction
    of `limit` (the residuals make up the rest), weights only for the vertices their own cluster
    predicts worse than a fraction of it, on the fewest bits that keep them within it."""
    frames = len(positions)
    translation = syntax.quantize(dct(positions.mean(axis=1))[None], limit * TRANSLATION_STEP)
    moved = positions - idct(translation.real()[0])[:, None]
    labels = cluster_by_motion(rest, moved, min(clusters, len(rest)))
    count = int(labels.max()) + 1
    anchors = anchor_points(rest, labels, count)
    points = points_from_affine(anchors, fit_affine(rest, moved, labels, count))  # (K, F, 4, 3)
    flat = points.transpose(1, 0, 2, 3).reshape(frames, 4 * count, 3)
    trajectories = syntax.quantize(dct(flat).transpose(1, 0, 2), limit * TRAJECTORY_STEP)
    adjacency = cluster_adjacency(labels, edges)
    width = max(len(a) for a in adjacency)
    alone = syntax.Weights(0, 0.0, 0.0, np.zeros(len(rest), bool), adjacency, np.zeros((len(rest), width), np.int64))
    model = Model(translation, labels, trajectories, alone)  # every vertex moves with its own cluster
    transforms = cluster_motions(model, rest)
    error = np.linalg.norm(prediction(model, rest, transforms) - positions, axis=-1).max(axis=0)
    weights, chosen = skinning_weights(rest, moved, labels, adjacency, transforms, boundary=error > limit * WEIGHTED)
    if chosen.any():
        model.weights = _quantized_weights(model, rest, transforms, moved, error, weights, chosen, limit * WEIGHT_ERROR)
    return model, transforms


def _quantized_weights(model, rest, transforms, moved, error, weights, chosen, budget):
    """syntax.Weights of the chosen vertices' weights made convex (clipped to [0, 1], summing to 1)
    and quantised on [0, 1], so that a zero weight stays exactly zero (the motion of a cluster
    whose four points are nearly flat must not leak in), on the fewest bits (up to ENCODER_WEIGHT_BITS)
    that move no prediction by more than `budget`. A vertex they do not predict better than its
    own cluster alone (`error`, its largest distance over the frames) keeps its own cluster."""
    adjacency = model.weights.adjacency
    convex = np.clip(weights, 0.0, 1.0)
    convex /= convex.sum(axis=1, keepdims=True)
    points, labels = rest[chosen], model.labels[chosen]
    exact = predict(points, labels, adjacency, convex[chosen], transforms)
    for bits in range(4, ENCODER_WEIGHT_BITS + 1):
        values = np.where(chosen[:, None], np.round(convex * ((1 << bits) - 1)), 0).astype(np.int64)
        quantized = syntax.Weights(bits, 0.0, 1.0, chosen.copy(), adjacency, values)
        blended = predict(points, labels, adjacency, quantized.real(model.labels)[chosen], transforms)
        if np.linalg.norm(blended - exact, axis=-1).max() <= budget:
            break
    quantized.filter[chosen] = np.linalg.norm(blended - moved[:, chosen], axis=-1).max(axis=0) < error[chosen]
    quantized.values[~quantized.filter] = 0
    return quantized if quantized.filter.any() else model.weights
