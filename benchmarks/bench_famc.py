"""Rate-distortion of MPEG-4 FAMC (.famc) against float32, float16 + zlib, whole-sequence PCA and .memg.

    python benchmarks/bench_famc.py [--quick]      (--quick: small generated sizes; glTF rows need bpy)

Sequences: generated skinned tubes (mesh_samples.skinned: a 4-bone limb and a 6-bone figure, 5,000
vertices x 200 frames, the figure also 20,000 x 500), the corpus cloth (PC2) and, with bpy, the
corpus glTF animations as Blender plays them. One row per sequence x method x operating point, all
measured in this run, A the (F, V, 3) positions given and A' those decoded:

    bpvf       bits stored / (V * F); for .memg and .famc the file itself, not the static mesh .obj
               written beside it (topology every method needs; its size is printed per sequence)
    KG         100 * ||A - A'||_F / ||A - E(A)||_F, E(A)[f, v] = (1/V) sum_u A[f, u] (each frame's mean
               vertex position repeated over its vertices)
    RMSE       sqrt(mean over f, v of |A[f, v] - A'[f, v]|^2), as % of the bounding-box diagonal of all frames
    max        max over f, v of |A[f, v] - A'[f, v]|, as % of that diagonal
    encode s   best of 3 (one run for .memg, .famc and sequences over 1e7 values); PCA: the SVD (shared
               by its rows) plus packing at the chosen setting, the search for that setting not counted
    decode s   bytes or file to all (F, V, 3) positions (core.read(...).positions() for files), best of 3

Methods: float32 raw (96 bpvf); float16 + zlib (level 9); PCA of the whole sequence (rows = frames,
columns = 3V, mean removed) at the KG error of each .famc operating point: the smallest rank
meeting it stored as float32, and the smallest int16 + zlib (level 9) stream meeting it over rank
and quantisation step (per component: coefficients per column,
basis per row, step = max |value| / (2^(bits-1) - 1)); .memg and .famc at relative tolerances
TOLERANCES (core.write(animation, path, tolerance=t, relative=True)).
Per sequence a summary: .famc bits / PCA int16 + zlib bits at equal KG (target <= 0.5 on skinned
sequences), and .famc decoding all frames (its slowest point) against core.read of the same frames
as an OBJ sequence (best of 3; one run over 1e7 values).
"""

import os
import sys
import tempfile
import time
import zlib

import numpy as np
from mesh_samples import FIGURE, LIMB, cloth, gltf_animations, skinned
from timing import best

import mocap_io
from mocap_io import core
from mocap_io.core.mesh import diagonal

TOLERANCES = (1e-2, 3e-3, 1e-3, 3e-4)
DECODES = 3  # decodes timed: the best of this many
COLUMNS = (
    f"  {'sequence':<22} {'method':<16} {'setting':<30} {'bpvf':>8} {'KG %':>9} {'RMSE %d':>9} {'max %d':>9} "
    f"{'encode s':>9} {'decode s':>9}"
)


def errors(a, decoded, size):
    """KG error (%), RMSE and max vertex error (% of the diagonal `size`) of `decoded` against `a` (F, V, 3)."""
    if decoded.shape != a.shape:
        raise ValueError(f"decoded {decoded.shape}, given {a.shape}")
    distance = np.linalg.norm(decoded - a, axis=-1)
    spread = np.linalg.norm(a - a.mean(axis=1, keepdims=True))
    kg = 100 * np.sqrt(np.sum(distance**2)) / spread
    return kg, 100 * np.sqrt(np.mean(distance**2)) / size, 100 * distance.max() / size


def timed(function, repeat):
    """(function(), its best time over `repeat` runs): the first run's result is kept."""
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    return result, min(seconds, best(function, repeat - 1)) if repeat > 1 else seconds


class Pca:
    """The whole sequence's SVD (rows = frames, columns = 3V, mean removed) and streams built from it."""

    def __init__(self, a):
        self.shape = a.shape
        x = a.reshape(len(a), -1)
        start = time.perf_counter()
        self.mean = x.mean(axis=0)
        u, s, self.basis = np.linalg.svd(x - self.mean, full_matrices=False)
        self.coefficients = u * s
        self.seconds = time.perf_counter() - start
        self.spread = np.linalg.norm(a - a.mean(axis=1, keepdims=True))
        tail = np.sqrt(np.cumsum((s**2)[::-1])[::-1])  # tail[r]: error of keeping r components
        self.truncation = 100 * np.append(tail, 0) / self.spread  # KG % at rank r (exact arithmetic)

    def kg(self, a, rank, bits=None):
        """KG error (%) against `a` of the float32 stream of `rank` (bits None) or the int16 one."""
        if bits is None:
            decoded = self.decode_float32(self.float32(rank), rank)
        else:
            decoded = self.decode_int16(self.int16(rank, bits), rank)
        return 100 * np.linalg.norm(decoded - a) / self.spread

    def float32(self, rank):
        parts = (self.mean, self.coefficients[:, :rank].ravel(), self.basis[:rank].ravel())
        return np.concatenate(parts).astype(np.float32).tobytes()

    def decode_float32(self, blob, rank):
        values = np.frombuffer(blob, np.float32).astype(float)
        frames, columns = self.shape[0], self.mean.size
        mean, c, b = np.split(values, [columns, columns + frames * rank])
        return (mean + c.reshape(frames, rank) @ b.reshape(rank, columns)).reshape(self.shape)

    def int16(self, rank, bits):
        top = 2 ** (bits - 1) - 1
        c, b = self.coefficients[:, :rank], self.basis[:rank]
        c_step = np.maximum(np.abs(c).max(axis=0), 1e-300) / top
        b_step = np.maximum(np.abs(b).max(axis=1), 1e-300) / top
        head = np.concatenate([self.mean, c_step, b_step]).astype(np.float32).tobytes()
        ints = np.concatenate([np.rint(c / c_step).ravel(), np.rint(b / b_step[:, None]).ravel()])
        return zlib.compress(head + ints.astype(np.int16).tobytes(), 9)

    def decode_int16(self, blob, rank):
        raw = zlib.decompress(blob)
        frames, columns = self.shape[0], self.mean.size
        head = np.frombuffer(raw, np.float32, columns + 2 * rank).astype(float)
        mean, c_step, b_step = np.split(head, [columns, columns + rank])
        ints = np.frombuffer(raw, np.int16, offset=4 * len(head)).astype(float)
        c, b = np.split(ints, [frames * rank])
        c = c.reshape(frames, rank) * c_step
        return (mean + c @ (b.reshape(rank, columns) * b_step[:, None])).reshape(self.shape)

    def rows(self, a, target, repeat):
        """The float32 and int16 + zlib rows meeting KG <= target, as plain_rows gives them."""
        full = len(self.basis)
        rank = int(np.argmax(self.truncation <= target))
        while rank < full and self.kg(a, rank) > target:
            rank += 1
        met = "" if self.kg(a, rank) <= target else ", not met"
        found = [("PCA float32", f"r={rank} (KG<={target:.3g}{met})", self.float32, self.decode_float32, (rank,))]
        best_int16 = None
        for r in range(max(rank, 1), min(rank + 4, full) + 1):
            low, high = 2, 16  # smallest bits meeting the target by bisection (the error falls with bits)
            if self.kg(a, r, high) > target:
                continue
            while low < high:
                middle = (low + high) // 2
                if self.kg(a, r, middle) <= target:
                    high = middle
                else:
                    low = middle + 1
            size = len(self.int16(r, high))
            if best_int16 is None or size < best_int16[0]:
                best_int16 = (size, r, high)
        if best_int16 is not None:
            _, r, bits = best_int16
            setting = f"r={r} {bits}b (KG<={target:.3g})"
            found.append(("PCA int16+zlib", setting, lambda r, bits=bits: self.int16(r, bits), self.decode_int16, (r,)))
        rows = [
            (method, setting, *self._measured(encode, decode, args, repeat))
            for method, setting, encode, decode, args in found
        ]
        return rows if best_int16 else rows + [("PCA int16+zlib", f"none meets KG<={target:.3g}", None)]

    def _measured(self, encode, decode, args, repeat):
        blob, pack = timed(lambda: encode(*args), repeat)
        decoded, seconds = timed(lambda: decode(blob, *args), DECODES)
        return len(blob) * 8, decoded, self.seconds + pack, seconds


def plain_rows(a, repeat):
    """float32 raw and float16 + zlib: (method, setting, bits, decoded, encode s, decode s)."""
    rows = []
    for method, dtype, pack, unpack in (
        ("float32 raw", np.float32, bytes, bytes),
        ("float16+zlib", np.float16, lambda b: zlib.compress(b, 9), zlib.decompress),
    ):
        blob, encode_s = timed(lambda dtype=dtype, pack=pack: pack(a.astype(dtype).tobytes()), repeat)
        decoded, decode_s = timed(
            lambda blob=blob, dtype=dtype, unpack=unpack: (
                np.frombuffer(unpack(blob), dtype).astype(float).reshape(a.shape)
            ),
            repeat,
        )
        rows.append((method, "", len(blob) * 8, decoded, encode_s, decode_s))
    return rows


def file_rows(animation, folder, extension, repeat):
    """core.write at each of TOLERANCES then core.read(...).positions(): rows as plain_rows gives."""
    options = {} if extension == ".famc" else {"grouping": "groups" if animation.mesh.groups else "components"}
    rows = []
    for tolerance in TOLERANCES:
        path = os.path.join(folder, f"{extension[1:]}{extension}")
        _, encode_s = timed(
            lambda t=tolerance, p=path: core.write(animation, p, tolerance=t, relative=True, **options), 1
        )
        decoded, decode_s = timed(lambda p=path: core.read(p).positions(), DECODES)
        rows.append((extension, f"tolerance {tolerance:g}", os.path.getsize(path) * 8, decoded, encode_s, decode_s))
    return rows


def sequence_table(name, animation, repeat):
    """Print the rows and the summary of one sequence."""
    a = animation.positions()
    frames, vertices = a.shape[:2]
    size = diagonal(a)
    with tempfile.TemporaryDirectory() as folder:
        rows = plain_rows(a, repeat)
        memg = file_rows(animation, folder, ".memg", repeat)
        coded = file_rows(animation, folder, ".famc", repeat)
        obj_bytes = os.path.getsize(os.path.join(folder, "memg.obj"))
        pca = Pca(a)
        matched = [pca.rows(a, errors(a, row[3], size)[0], repeat) for row in coded]  # PCA at each FAMC point
        pattern = os.path.join(folder, "obj", "frame_####.obj")
        os.mkdir(os.path.dirname(pattern))
        core.write(animation, pattern)
        _, obj_read = timed(lambda: core.read(pattern).positions(), repeat)
    for method, setting, bits, *measured in rows + memg + coded + sum(matched, []):
        if bits is None:
            print(f"  {name:<22} {method:<16} {setting}")
            continue
        decoded, encode_s, decode_s = measured
        kg, rmse, largest = errors(a, decoded, size)
        print(
            f"  {name:<22} {method:<16} {setting:<30} {bits / (frames * vertices):8.3f} {kg:9.2e} {rmse:9.2e} "
            f"{largest:9.2e} {encode_s:9.3f} {decode_s:9.3f}"
        )
    int16 = [next((r[2] or np.nan for r in group if r[0] == "PCA int16+zlib"), np.nan) for group in matched]
    ratios = " ".join(f"{row[2] / bits:.2f}" for row, bits in zip(coded, int16))
    slowest = max(row[5] for row in coded)
    print(
        f"  -> {name}: static mesh .obj {obj_bytes} bytes; OBJ sequence read {obj_read:.3f} s; "
        f"famc/PCA-int16 bits {ratios} (target <= 0.5); famc decode (slowest point) {slowest:.3f} s, "
        f"OBJ read / famc decode {obj_read / slowest:.1f} (target > 1)"
    )


def sequences(quick):
    """(name, MeshAnimation) of the generated and corpus sequences (glTF: when bpy imports)."""
    sizes = [(600, 40)] if quick else [(5000, 200), (20_000, 500)]
    for name, shape, (vertices, frames) in [("limb", LIMB, sizes[0])] + [("figure", FIGURE, size) for size in sizes]:
        animation = skinned(vertices, frames, shape)
        yield f"{name} {len(animation.mesh.vertices)}x{frames}", animation
    animation = cloth()
    if animation is not None:
        yield "cloth (corpus PC2)", animation
    try:
        mocap_io.register()  # imports bpy
    except ImportError:
        print("  (no bpy: glTF sequences skipped)")
        return
    yield from gltf_animations()


def main(args):
    quick = "--quick" in args
    start = time.perf_counter()
    print(f"rate-distortion ({'quick' if quick else 'full'}); %d = % of the bounding-box diagonal")
    print(COLUMNS)
    for name, animation in sequences(quick):
        sequence_table(name, animation, 1 if animation.positions().size > 1e7 else 3)
    print(f"\ntotal {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
