"""A small factored mesh animation the tests build themselves: two groups moving rigidly and
deforming, one vertex in no group."""

import numpy as np

from mocap_io import core
from mocap_io.core import rotations
from mocap_io.core.mesh import GroupBasis, Mesh, MeshAnimation


def two_bars(frames=40):
    n = 12
    x, z = np.meshgrid(np.arange(2.0), np.arange(n), indexing="ij")
    bar = np.stack([x.ravel(), np.zeros(2 * n), z.ravel()], 1)
    vertices = np.vstack([bar, bar + [5, 0, 0], [[20.0, 20.0, 20.0]]])
    quads = [[i, i + 1, n + i + 1, n + i] for i in range(n - 1)]
    faces = np.array(quads + [[v + 2 * n for v in q] for q in quads])
    mesh = Mesh(
        vertices,
        np.full(len(faces), 4),
        faces.ravel(),
        groups={"left": np.arange(n - 1), "right": np.arange(n - 1, 2 * n - 2)},
    )
    t = np.linspace(0, 1, frames)
    groups, transforms = [], []
    for g, name in enumerate(("left", "right")):
        members = np.arange(2 * n) + g * 2 * n
        basis = np.zeros((2, 2 * n, 3))
        basis[0, :, 0] = (bar[:, 2] / n) ** 2  # bend
        basis[1, :, 1] = np.sin(bar[:, 2])  # ripple
        coefficients = np.stack([np.sin(5 * t + g), 0.3 * np.cos(9 * t)])
        groups.append(GroupBasis(name, members, vertices[members], basis, coefficients, g))
        turn = rotations.axis_angle_to_quat(np.tile([0.3, 1.0, 0.2], (frames, 1)), 2 * t + g)
        transforms.append(
            rotations.compose_trs(np.stack([10 * t, g * np.ones(frames), np.sin(t)], 1), rotations.quat_to_matrix(turn))
        )
    return MeshAnimation(mesh, 24, groups=groups, transforms=np.array(transforms))


def without_obj(folder, ext):
    """A two-bar animation written as take<ext> (.memg, .famc or .pc2) in `folder` (a pathlib.Path),
    its mesh's .obj then removed: a file whose companion is missing."""
    animation = two_bars(frames=4)
    if ext != ".memg":
        animation = MeshAnimation(animation.mesh, 24, animation.positions())
    path = folder / f"take{ext}"
    core.write(animation, path)
    (folder / "take.obj").unlink(missing_ok=True)  # .memg and .famc write it beside
    return path
