"""Mesh ensembles: decode throughput, Blender import (basis vs baked) and encoder compression.

    python benchmarks/bench_memg.py [vertices frames]      (default: 20000 1000; Blender part needs bpy)

Prints, all measured in this run: decoding all frames against the floor of one (3V x r) @ (r x F)
product of the same total rank; import time and .blend size in basis and baked modes; the
encoder's size against float32 frames at a 1e-3 relative tolerance on the corpus cloth and (with
bpy) on the corpus glTF animations as Blender plays them.
"""

import os
import pathlib
import sys
import tempfile
import time

import numpy as np
from timing import best

import mocap_io
from mocap_io import core
from mocap_io.core.formats.memg_encode import encode
from mocap_io.core.formats.pc2 import read_pc2
from mocap_io.core.mesh import GroupBasis, Mesh, MeshAnimation

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus"


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


def decode_table(animation):
    vertices, frames = len(animation.mesh.vertices), animation.frame_count
    rank = sum(g.rank for g in animation.groups)
    ours = best(animation.positions)
    basis = np.random.default_rng(1).normal(size=(3 * vertices, rank // len(animation.groups)))
    weights = np.random.default_rng(2).normal(size=(basis.shape[1], frames))
    floor = best(lambda: [basis[i :: len(animation.groups)] @ weights for i in range(len(animation.groups))])
    print(f"\ndecode: {vertices} vertices x {frames} frames, {len(animation.groups)} groups, total rank {rank}")
    print(f"  {'what':<44} {'seconds':>8} {'vertex-frames/s':>16}")
    for name, seconds in (("positions() of all frames", ours), ("floor: (3V x r) @ (r x F) per group", floor)):
        print(f"  {name:<44} {seconds:8.3f} {vertices * frames / seconds:16.3e}")
    print(f"  decode / floor: {ours / floor:.2f}")


def compression_table():
    path = CORPUS / "mesh/gl-geometry-cloth/basicCloth"
    if not path.with_suffix(".pc2").exists():
        print("\n(no corpus: compression table skipped)")
        return
    positions, _, _ = read_pc2(path.with_suffix(".pc2"))
    mesh = core.read(path.with_suffix(".obj"))
    print("\nencoder on the corpus cloth (81 vertices x 150 frames)")
    print(
        f"  {'tolerance (relative)':<22} {'rank':>5} {'.memg bytes':>12} {'float32 bytes':>14} {'ratio':>7} "
        f"{'max error':>10}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for tolerance in (1e-4, 1e-3, 1e-2):
            animation = encode(positions, mesh, 24, tolerance=tolerance)
            target = os.path.join(folder, "cloth.memg")
            core.write(animation, target)
            size, raw = os.path.getsize(target), positions.size * 4
            print(
                f"  {tolerance:<22g} {sum(g.rank for g in animation.groups):5d} {size:12d} {raw:14d} "
                f"{raw / size:7.2f} {animation.max_error:10.2e}"
            )


def blender_table(animation, folder):
    import bpy

    from mocap_io.addon import import_memg

    path = os.path.join(folder, "ensemble.memg")
    core.write(animation, path)
    print(
        f"\nBlender import ({bpy.app.version_string}) of {len(animation.mesh.vertices)} vertices x "
        f"{animation.frame_count} frames"
    )
    print(f"  {'mode':<7} {'import (s)':>10} {'.blend (MB)':>12} {'+ cache (MB)':>13}")
    for mode in ("BASIS", "BAKED"):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        start = time.perf_counter()
        import_memg(bpy.context, path, mode=mode)
        seconds = time.perf_counter() - start
        blend = os.path.join(folder, f"{mode}.blend")
        bpy.ops.wm.save_as_mainfile(filepath=blend, compress=False)
        cache = os.path.join(folder, "ensemble.pc2")
        extra = os.path.getsize(cache) / 1e6 if mode == "BAKED" else 0.0
        print(f"  {mode:<7} {seconds:10.2f} {os.path.getsize(blend) / 1e6:12.1f} {extra:13.1f}")


def gltf_table(folder):
    """The encoder on real animated meshes from the corpus, as Blender's glTF importer plays them."""
    import bpy

    from mocap_io.addon import export_memg

    print(f"\nencoder at 1e-3 relative on the corpus glTF animations (evaluated in Blender {bpy.app.version_string})")
    print(
        f"  {'file':<24} {'vertices':>8} {'frames':>6} {'rank':>5} {'.memg bytes':>12} {'float32 bytes':>14} "
        f"{'ratio':>7}"
    )
    for name in (
        "khronos-cesiumman/CesiumMan.glb",
        "khronos-fox/Fox.glb",
        "khronos-animatedmorphcube/AnimatedMorphCube.glb",
    ):
        path = CORPUS / "mesh" / name
        if not path.exists():
            continue
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=str(path))
        obj = max((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: len(o.data.vertices))
        actions = [a for a in bpy.data.actions if a.users]
        start, end = (int(round(x)) for x in actions[0].frame_range)
        target = os.path.join(folder, "gltf.memg")
        encoded = export_memg(bpy.context, obj, target, frame_start=start, frame_end=end, tolerance=1e-3)
        size, raw = os.path.getsize(target), encoded.frame_count * len(encoded.mesh.vertices) * 3 * 4
        print(
            f"  {path.name:<24} {len(encoded.mesh.vertices):8d} {encoded.frame_count:6d} "
            f"{sum(g.rank for g in encoded.groups):5d} {size:12d} {raw:14d} {raw / size:7.2f}"
        )


def main(args):
    vertices, frames = (int(a) for a in args) if args else (20_000, 1000)
    animation = generated(vertices, frames)
    decode_table(animation)
    compression_table()
    try:
        mocap_io.register()  # imports bpy
    except ImportError:
        print("\n(no bpy: Blender tables skipped)")
        return
    with tempfile.TemporaryDirectory() as folder:
        gltf_table(folder)
        blender_table(animation, folder)


if __name__ == "__main__":
    main(sys.argv[1:])
