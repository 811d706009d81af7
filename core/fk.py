"""Vectorised forward kinematics: world transforms of every joint for all frames at once."""

import numpy as np

from .parallel import parallel_map

_CHUNK = 4096  # frames per task: long enough vectors, short enough to stay in cache


def forward_kinematics(parents, local_rotation, translations, *, rest_rotations=None, scales=None):
    """World linear parts (F, J, 3, 3) and positions (F, J, 3), column-vector convention.

    Each joint's local transform is ``T(translations[:, j]) @ R_rest[j] @ R @ S`` with S a uniform
    scale ``scales[:, j]`` and R given by `local_rotation(j, frames)` laid out (3, 3, n) (row,
    column, frame: see rotations.euler_to_matrix_components) for the slice `frames`;
    ``G_child = G_parent @ L_child``, where G_parent is taken without its own S: a scale sizes its
    joint's segment (its End Sites, its geometry), not the frames of its children (HTR's SF: the
    children's translations already carry the length it describes; see docs/htr.md). Frames are
    independent: chunks of them run in parallel, each a loop over joints whose every step is a few
    long vector operations (a structure of arrays).
    """
    frames, count = translations.shape[:2]
    linear = np.empty((frames, count, 3, 3))
    position = np.empty((frames, count, 3))

    def chunk(start):
        part = slice(start, min(start + _CHUNK, frames))
        n = part.stop - part.start
        chunk_linear = np.empty((count, 3, 3, n))
        chunk_position = np.empty((count, 3, n))
        for j in range(count):
            local = local_rotation(j, part)
            if rest_rotations is not None:
                local = (rest_rotations[j] @ local.reshape(3, -1)).reshape(3, 3, -1)
            offset = translations[part, j].T
            p = parents[j]
            if p < 0:
                chunk_linear[j] = local
                chunk_position[j] = offset
            else:  # G_parent @ L as three multiply-adds of (3, 3, n) arrays (einsum: 40 % slower)
                parent = chunk_linear[p]
                np.multiply(parent[:, :1], local[None, 0], out=chunk_linear[j])
                np.multiply(parent[:, 0], offset[0], out=chunk_position[j])
                for k in (1, 2):
                    chunk_linear[j] += parent[:, k : k + 1] * local[None, k]
                    chunk_position[j] += parent[:, k] * offset[k]
                chunk_position[j] += chunk_position[p]
        linear[part] = chunk_linear.transpose(3, 0, 1, 2)
        if scales is not None:
            linear[part] *= scales[part, :, None, None]
        position[part] = chunk_position.transpose(2, 0, 1)

    list(parallel_map(chunk, range(0, frames, _CHUNK)))
    return linear, position


def points_in_world(linear, position, joints, offsets):
    """World positions (F, N, 3) of points given by `offsets` (N, 3) in the frames of `joints` (N,)."""
    return np.einsum("fnij,nj->fni", linear[:, joints], offsets) + position[:, joints]
