"""Mesh animations for the benchmarks: generated ones (a waving sheet, skinned tubes) and the
corpus's (the cloth PC2 cache, the glTF animations as Blender plays them)."""

import pathlib

import numpy as np

from mocap_io import core
from mocap_io.core.formats.pc2 import read_pc2_animation
from mocap_io.core.mesh import GroupBasis, Mesh, MeshAnimation

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus"
CLOTH = CORPUS / "mesh/gl-geometry-cloth/basicCloth.pc2"
GLTF = (
    "khronos-cesiumman/CesiumMan.glb",
    "khronos-fox/Fox.glb",
    "khronos-animatedmorphcube/AnimatedMorphCube.glb",
)


def generated(vertices, frames, groups=10, rank=8, seed=0):
    """A sheet of `vertices` split into strips, each turning and waving with a rank-`rank` basis."""
    rng = np.random.default_rng(seed)
    width = 100
    rows = vertices // width
    x, y = np.meshgrid(np.arange(width, dtype=float), np.arange(rows, dtype=float))
    points = np.stack([x.ravel(), y.ravel(), np.zeros(x.size)], 1)
    q = (np.arange(rows - 1)[:, None] * width + np.arange(width - 1)[None, :]).ravel()
    faces = np.stack([q, q + 1, q + width + 1, q + width], 1)
    strip = np.minimum(faces[:, 0] // width * groups // rows, groups - 1)
    mesh = Mesh(
        points,
        np.full(len(faces), 4),
        faces.ravel(),
        groups={f"strip{g}": np.flatnonzero(strip == g) for g in range(groups)},
    )
    t = np.linspace(0, 10, frames)
    members, transforms = [], []
    for g in range(groups):
        vertices_g = mesh.group_vertices(f"strip{g}")
        p = points[vertices_g]
        basis = np.stack(
            [
                np.stack([0 * p[:, 0], 0 * p[:, 0], np.sin((k + 1) * p[:, 0] / 17 + p[:, 1] / 23)], 1)
                for k in range(rank)
            ]
        )
        coefficients = np.sin(np.outer(rng.uniform(0.2, 2, rank), t) + rng.uniform(0, 6, (rank, 1)))
        members.append(GroupBasis(f"strip{g}", vertices_g, p, basis, coefficients, g))
        angle = 0.1 * np.sin(t + g)
        rotation = np.zeros((frames, 3, 3))
        rotation[:, 0, 0] = rotation[:, 1, 1] = np.cos(angle)
        rotation[:, 0, 1], rotation[:, 1, 0], rotation[:, 2, 2] = -np.sin(angle), np.sin(angle), 1
        transforms.append(core.rotations.compose_trs(np.stack([t, 0 * t, np.sin(t)], 1), rotation))
    return MeshAnimation(mesh, 30, groups=members, transforms=np.array(transforms))


# Tubes of the skinned shapes: name, parent bone (tube name, bone index along it) carrying this
# tube's base, base point, direction, length, radius, bones along the tube, share of the vertices
LIMB = (("limb", None, (0, 0, 0), (1, 0, 0), 4.0, 0.3, 4, 1.0),)
FIGURE = (
    ("torso", None, (0, 0, 0.9), (0, 0, 1), 0.6, 0.2, 2, 0.3),
    ("arm.L", ("torso", 1), (0.22, 0, 1.4), (1, 0, -0.3), 0.7, 0.06, 1, 0.175),
    ("arm.R", ("torso", 1), (-0.22, 0, 1.4), (-1, 0, -0.3), 0.7, 0.06, 1, 0.175),
    ("leg.L", ("torso", 0), (0.1, 0, 0.9), (0.1, 0, -1), 0.85, 0.08, 1, 0.175),
    ("leg.R", ("torso", 0), (-0.1, 0, 0.9), (-0.1, 0, -1), 0.85, 0.08, 1, 0.175),
)


def skinned(vertices, frames, shape=FIGURE, sides=24, blend=0.3, seed=0):
    """A dense skinned animation of open tubes (`shape`: LIMB, one tube on a chain of 4 bones, or
    FIGURE, a torso of 2 bones with 4 one-bone limbs) of about `vertices` vertices over `frames`
    frames: every bone bends about an axis across its tube and twists about it (and the root walks);
    linear-blend skinning, the weights passing smoothly (smoothstep) from a bone to the next over
    `blend` bone lengths around each joint. Deterministic for a given seed."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 4 * np.pi, frames)
    heads, parents, axes, points, weights, faces, groups = [], [], [], [], [], [], {}
    tube_bones = {}
    for name, parent, base, direction, length, radius, bones, share in shape:
        direction = np.asarray(direction, float) / np.linalg.norm(direction)
        across = np.cross(direction, (0, 1, 0) if abs(direction[1]) < 0.9 else (1, 0, 0))
        across /= np.linalg.norm(across)
        chain = [] if parent is None else [tube_bones[parent[0]][parent[1]]]
        for b in range(bones):
            parents.append(chain[-1] if chain else -1)
            heads.append(np.asarray(base, float) + direction * length * b / bones)
            axes.append((np.cross(direction, across) if b % 2 else across, direction))  # bend, twist
            chain.append(len(heads) - 1)
        tube_bones[name] = chain[-bones:]
        rings = max(2, round(share * vertices / sides))
        s = np.repeat(np.linspace(0, bones, rings), sides)  # along the tube, in bone lengths
        angle = np.tile(np.linspace(0, 2 * np.pi, sides, endpoint=False), rings)
        ring = np.cos(angle)[:, None] * across + np.sin(angle)[:, None] * np.cross(direction, across)
        first = sum(len(p) for p in points)
        points.append(np.asarray(base) + s[:, None] * length / bones * direction + radius * ring)
        weights.append((first, chain, _chain_weights(s, bones, parent is not None, blend)))
        i, j = np.meshgrid(np.arange(rings - 1), np.arange(sides), indexing="ij")
        quad = first + np.stack([i * sides + j, i * sides + (j + 1) % sides, (i + 1) * sides + (j + 1) % sides], -1)
        quad = np.concatenate([quad, (first + (i + 1) * sides + j)[..., None]], -1).reshape(-1, 4)
        groups[name] = np.arange(len(quad)) + sum(len(f) for f in faces)
        faces.append(quad)
    points, faces = np.concatenate(points), np.concatenate(faces)

    def wave(amplitude):
        return amplitude * np.sin(rng.uniform(0.5, 2) * t + rng.uniform(0, 6))

    local = np.stack([_rotation(bend, wave(0.5)) @ _rotation(twist, wave(0.2)) for bend, twist in axes])
    world = np.empty((len(heads), frames, 4, 4))
    for b, parent in enumerate(parents):  # parents come before their children
        if parent < 0:
            walk = np.stack([0.2 * t, 0.05 * np.sin(2 * t), 0.03 * np.sin(4 * t)], 1)
            world[b] = core.rotations.compose_trs(heads[b] + walk, local[b])
        else:
            world[b] = world[parent] @ core.rotations.compose_trs(heads[b] - heads[parent], local[b])
    skin = world @ core.rotations.compose_trs(-np.asarray(heads), np.eye(3))[:, None]  # rest -> posed, per bone
    positions = np.zeros((frames,) + points.shape)
    for first, chain, w in weights:
        p = points[first : first + len(w)]
        for column, bone in enumerate(chain):
            positions[:, first : first + len(w)] += w[:, column, None] * (
                np.einsum("fij,vj->fvi", skin[bone, :, :3, :3], p) + skin[bone, :, None, :3, 3]
            )
    mesh = Mesh(points, np.full(len(faces), 4), faces.ravel(), groups=groups)
    return MeshAnimation(mesh, 30, positions)


def _chain_weights(s, bones, attached, blend):
    """(n, chain length) weights of points at `s` (bone lengths along a tube) over its chain: the
    parent's bone (when `attached`, up to a joint blend/2 from the base) then the tube's bones."""
    joints = np.arange(1, bones, dtype=float)
    if attached:
        joints = np.concatenate([[blend / 2], joints])
    step = np.clip((s[:, None] - joints) / blend + 0.5, 0, 1)
    u = (step * step * (3 - 2 * step)).sum(1)  # 0 .. len(joints): whole on a bone, smooth at its joints
    weights = np.zeros((len(s), len(joints) + 1))
    low = np.minimum(np.floor(u).astype(int), max(len(joints) - 1, 0))
    rows = np.arange(len(s))
    weights[rows, low] = 1 - (u - low)
    if len(joints):
        weights[rows, low + 1] = u - low
    return weights


def _rotation(axis, angle):
    """(F, 3, 3) rotations by `angle` (F,) about the unit `axis` (Rodrigues)."""
    k = np.cross(np.eye(3), axis)  # k @ v = axis x v
    return np.eye(3) + np.sin(angle)[:, None, None] * k + (1 - np.cos(angle))[:, None, None] * (k @ k)


def cloth():
    """The corpus cloth (81 vertices x 150 frames, its .obj beside it) as a dense MeshAnimation; None
    without the corpus."""
    return read_pc2_animation(CLOTH) if CLOTH.exists() else None


def gltf_animations():
    """(file name, dense MeshAnimation) of each corpus glTF animation present, as Blender plays it:
    imported into an empty scene and evaluated frame by frame over its first action's range (the
    mesh with the most vertices). Needs bpy with the add-on registered (mocap_io.register())."""
    import bpy

    from mocap_io.addon.from_blender.mesh import evaluated_animation

    for name in GLTF:
        path = CORPUS / "mesh" / name
        if not path.exists():
            continue
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=str(path))
        obj = max((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: len(o.data.vertices))
        actions = [a for a in bpy.data.actions if a.users]
        start, end = (int(round(x)) for x in actions[0].frame_range)
        yield path.name, evaluated_animation(bpy.context, obj, start, end)
