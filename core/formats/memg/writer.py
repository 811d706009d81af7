"""Mesh-ensemble writer: the .memg binary and its .obj, replaced together; a dense animation is
encoded first."""

import os

import numpy as np

from ...atomic import atomic_writes
from ...errors import require_bounded, require_rate
from ...mesh import MeshAnimation
from ..obj import obj_beside, obj_vertices, write_obj_to
from .encoder import encode
from .reader import LAYOUTS, first_singular


def write_memg(
    animation: MeshAnimation,
    path: str | os.PathLike,
    *,
    obj: str | os.PathLike | None = None,
    tolerance: float = 1e-3,
    relative: bool = True,
    grouping: str = "groups",
    layout: str = "column",
) -> MeshAnimation:
    """Write a MeshAnimation as .memg plus its .obj (default: same name, .obj): both files are
    replaced together, or (on any error) neither. Non-finite or singular data is refused first.

    A dense animation is encoded first (see encode: tolerance, relative, grouping).
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be 'column' or 'row', not {layout!r}")
    if not animation.factored:
        animation = encode(
            animation.positions(),
            animation.mesh,
            animation.fps,
            tolerance=tolerance,
            relative=relative,
            grouping=grouping,
        )
    require_rate(animation.fps, "the frame rate")
    if abs(round(animation.fps) - animation.fps) > 1e-6 * animation.fps:
        raise ValueError(f"the format stores whole frame rates; {animation.fps:g} fps cannot be written")
    fps = int(round(animation.fps))
    missing = [g.name for g in animation.groups if g.name not in animation.mesh.groups]
    if missing:
        raise ValueError(f"groups {missing} are not groups of the mesh")
    transforms = _checked_transforms(animation)
    obj = obj_beside(path, obj)
    vertices = obj_vertices(animation.mesh)
    parts = [
        np.array([1, fps, len(transforms), animation.frame_count], dtype="<i4").tobytes(),
        transforms[..., :3, :].transpose(1, 0, 2, 3).astype("<f8").tobytes(),
    ]
    for g in animation.groups:
        for what, values in (("mean", g.mean), ("basis", g.basis), ("coefficients", g.coefficients)):
            require_bounded(values, lambda *index: f"{what} {list(index)} of group {g.name!r}")  # noqa: B023 - called at once
        name = g.name.encode("utf-8")
        u = g.basis.reshape(g.rank, 3 * len(g.vertices)).T  # (3v, r)
        parts += [
            np.array([len(name)], "<i4").tobytes(),
            name,
            np.array([len(g.vertices)], "<i4").tobytes(),
            (g.vertices + 1).astype("<i4").tobytes(),
            g.mean.astype("<f8").tobytes(),
            np.array([g.frame, u.shape[0], u.shape[1]], "<i4").tobytes(),
            (u if layout == "row" else u.T).astype("<f8").tobytes(),
            np.array([g.rank, animation.frame_count], "<i4").tobytes(),
            (g.coefficients if layout == "row" else g.coefficients.T).astype("<f8").tobytes(),
        ]
    with atomic_writes([path, obj]) as (memg_file, obj_file):  # both files, or neither
        write_obj_to(obj_file, animation.mesh, vertices)
        for part in parts:
            memg_file.write(part)
    return animation


def _checked_transforms(animation):
    """The (k, F, 4, 4) local frames to write: finite and invertible; one identity frame when
    there are none, so that every timestep is held by data (the reader requires it)."""
    transforms = animation.transforms
    assert transforms is not None, "factored: write_memg encodes a dense animation first"
    if not len(transforms) and animation.frame_count:
        transforms = np.broadcast_to(np.eye(4), (1, animation.frame_count, 4, 4))
    require_bounded(transforms, lambda k, t, *_: f"transform of local frame {k} at frame {t}")
    singular = first_singular(transforms)
    if singular is not None:
        k, t = np.unravel_index(singular[0], transforms.shape[:2])
        raise ValueError(f"transform of local frame {k} at frame {t} is singular: cannot write it")
    return transforms
