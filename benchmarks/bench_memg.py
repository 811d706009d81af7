"""Mesh ensembles: decode throughput, Blender import (basis vs baked) and encoder compression.

    python benchmarks/bench_memg.py [vertices frames]      (default: 20000 1000; Blender part needs bpy)

Prints, all measured in this run: decoding all frames against the floor of one (3V x r) @ (r x F)
product of the same total rank; import time and .blend size in basis and baked modes; the
encoder's size against float32 frames at a 1e-3 relative tolerance on the corpus cloth and (with
bpy) on the corpus glTF animations as Blender plays them.
"""

import os
import sys
import tempfile
import time

import numpy as np
from mesh_samples import cloth, generated, gltf_animations
from timing import best

import mocap_io
from mocap_io import core
from mocap_io.core.formats.memg import encode


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
    animation = cloth()
    if animation is None:
        print("\n(no corpus: compression table skipped)")
        return
    positions = animation.positions()
    print("\nencoder on the corpus cloth (81 vertices x 150 frames)")
    print(
        f"  {'tolerance (relative)':<22} {'rank':>5} {'.memg bytes':>12} {'float32 bytes':>14} {'ratio':>7} "
        f"{'max error':>10}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for tolerance in (1e-4, 1e-3, 1e-2):
            encoded = encode(positions, animation.mesh, animation.fps, tolerance=tolerance)
            target = os.path.join(folder, "cloth.memg")
            core.write(encoded, target)
            size, raw = os.path.getsize(target), positions.size * 4
            print(
                f"  {tolerance:<22g} {sum(g.rank for g in encoded.groups):5d} {size:12d} {raw:14d} "
                f"{raw / size:7.2f} {encoded.max_error:10.2e}"
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
        obj, _ = import_memg(bpy.context, path, mode=mode)
        seconds = time.perf_counter() - start
        cache = bpy.path.abspath(obj.modifiers[0].filepath) if mode == "BAKED" else None  # before a save moves "//"
        blend = os.path.join(folder, f"{mode}.blend")
        bpy.ops.wm.save_as_mainfile(filepath=blend, compress=False)
        extra = os.path.getsize(cache) / 1e6 if cache else 0.0
        print(f"  {mode:<7} {seconds:10.2f} {os.path.getsize(blend) / 1e6:12.1f} {extra:13.1f}")


def gltf_table(folder):
    """The encoder on real animated meshes from the corpus, as Blender's glTF importer plays them."""
    import bpy

    print(f"\nencoder at 1e-3 relative on the corpus glTF animations (evaluated in Blender {bpy.app.version_string})")
    print(
        f"  {'file':<24} {'vertices':>8} {'frames':>6} {'rank':>5} {'.memg bytes':>12} {'float32 bytes':>14} "
        f"{'ratio':>7}"
    )
    for name, animation in gltf_animations():
        target = os.path.join(folder, "gltf.memg")
        encoded = core.write(animation, target, tolerance=1e-3, grouping="components")
        size, raw = os.path.getsize(target), encoded.frame_count * len(encoded.mesh.vertices) * 3 * 4
        print(
            f"  {name:<24} {len(encoded.mesh.vertices):8d} {encoded.frame_count:6d} "
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
