"""Deterministic mutants of every format, read in a subprocess under resource limits.

Each format has seed files (generated here, plus a few small corpus files when present). Case i of
a format applies mutation i % len(MUTATIONS) with a random generator seeded by (format, i): byte
flips, truncation, token swaps, huge counts, inserted junk, number replacement, a line repeated,
deep nesting, a count with as many blank lines, a count of zero, huge finite numbers, absurd rates,
a line widened into thousands of distinct ones, and a FIFO, a link to /dev/zero or a folder in place
of a file.
`run(format, cases)` reads every mutant in a child process limited in address space and time per
case, and returns what happened: outcome counts (read / ParseError / OSError), the cases where
anything else escaped (with the exception), the child's peak memory and run time.

    python tests/fuzz_cases.py [cases per format]      prints the table for every format
"""

import json
import os
import pathlib
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
import zlib

import numpy as np

from htr_samples import SAMPLE
from mocap_io import core
from mocap_io.core import mesh as mesh_module
from mocap_io.core.formats import pc2
from mocap_io.core.markers import Analog, Event, Markers

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = pathlib.Path(os.environ.get("MOCAP_IO_CORPUS", ROOT.parent / "shared" / "corpus"))
FORMATS = ("bvh", "asf", "htr", "obj", "memg", "famc", "pc2", "c3d", "trc")
MEMORY_LIMIT = 3 << 30  # address space of the child, bytes
CASE_SECONDS = 5.0  # time limit of one case
CASES = 400  # per format

# numbers that broke readers: non-finite, out of range, not a decimal for numpy
NUMBERS = [
    b"nan",
    b"inf",
    b"-inf",
    b"1e308",
    b"-1e308",
    b"1e-320",
    b"1_000",
    b"-9223372036854775808",
    b"9223372036854775808",
    b"99999999999999999999",
    b"2147483647",
    b"-1",
    b"0",
    b"1e400",
]
BINARY_INTS = [2**31 - 1, -(2**31), -1, 0, 1 << 24, 65536]
BINARY_FLOATS = [np.nan, np.inf, -np.inf, 1e308, 0.0, 1e-320]
_TOKEN = rb"[^\s]+"


def seeds(fmt):
    """[(name, {file name: bytes}, file to read)] of one format: generated samples, then corpus files."""
    rng = np.random.default_rng(7)
    out = []
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        if fmt == "bvh":
            names = ["Hips", "Chest", "Neck", "Head", "LeftArm"]
            skeleton = core.Skeleton(
                names,
                [-1, 0, 1, 2, 1],
                rng.normal(0, 10, (5, 3)),
                channels=[("Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation")]
                + [("Zrotation", "Xrotation", "Yrotation")] * 4,
                end_site_parents=[3, 4],
                end_site_offsets=rng.normal(0, 5, (2, 3)),
            )
            motion = core.Motion(
                skeleton, 30, rng.uniform(-3, 3, (6, 5, 3)), ["ZXY"] * 5, np.broadcast_to(skeleton.offsets, (6, 5, 3))
            )
            core.write(motion, folder / "sample.bvh", precision=4)
            out.append(("sample", {"t.bvh": (folder / "sample.bvh").read_bytes()}, "t.bvh"))
            lines = ["HIERARCHY", "ROOT r", "{", "OFFSET 0 0 0", "CHANNELS 0"]
            lines += [f"JOINT j{i}\n{{\nOFFSET 0 1 0\nCHANNELS 0\n}}" for i in range(100)]
            lines += ["}", "MOTION", "Frames: 3", "Frame Time: 0.04", "", "", ""]
            out.append(("no channels", {"t.bvh": "\n".join(lines).encode()}, "t.bvh"))
            for name in ("pybvh/rotation_first_root.bvh", "fairmotion/sinusoidal.bvh"):
                if (CORPUS / "bvh" / name).is_file():
                    out.append((name, {"t.bvh": (CORPUS / "bvh" / name).read_bytes()}, "t.bvh"))
        elif fmt == "htr":
            out.append(("sample", {"t.htr": SAMPLE.encode()}, "t.htr"))
            core.write(core.read(folder / _written("t.htr", SAMPLE, folder)), folder / "t.gtr")
            out.append(("sample gtr", {"t.gtr": (folder / "t.gtr").read_bytes()}, "t.gtr"))
            if (CORPUS / "htr/animal3d-egnaro/egnaro_skel_anim.htr").is_file():
                egnaro = (CORPUS / "htr/animal3d-egnaro/egnaro_skel_anim.htr").read_bytes()
                egnaro = re.sub(rb"(?m)^([3-9]|[1-9][0-9]+)\t.*\n", b"", egnaro)  # frames 0-2 of its 81
                out.append(
                    (
                        "egnaro_skel_anim.htr (3 frames)",
                        {"t.htr": egnaro.replace(b"NumFrames 81", b"NumFrames 3")},
                        "t.htr",
                    )
                )
        elif fmt == "asf":  # the pair: an .asf and an .amc, read through the .amc
            motion = core.Motion(
                skeleton := core.Skeleton(
                    ["Hips", "Chest", "Head", "Arm"],
                    [-1, 0, 1, 1],
                    [[0, 90, 0], [0, 10, 0], [0, 30, 0], [15, 20, 0]],
                    end_site_parents=[2, 3],
                    end_site_offsets=[[0, 12, 0], [25, 0, 0]],
                ),
                120,
                rng.uniform(-1, 1, (5, 4, 3)),
                ["ZXY"] * 4,
                np.broadcast_to(skeleton.offsets, (5, 4, 3)) + [[[0, 0, 0]] + [[0, 0, 0]] * 3],
            )
            motion.translations[:, 0] += rng.normal(0, 5, (5, 3))
            core.write(motion, folder / "t.asf", precision=4)
            out.append(("sample", {n: (folder / n).read_bytes() for n in ("t.asf", "t.amc")}, "t.amc"))
            for asf, amc in (
                ("cmu/02.asf", "cmu/02_03.amc"),
                ("hdm05/HDM_bk.asf", "hdm05/HDM_bk_hopBothLegs1hops_020_120.amc"),
            ):
                if (CORPUS / "asfamc" / asf).is_file():
                    frames = re.split(rb"\n6\r?\n", (CORPUS / "asfamc" / amc).read_bytes())[0]  # five frames
                    out.append((asf, {"t.asf": (CORPUS / "asfamc" / asf).read_bytes(), "t.amc": frames}, "t.amc"))
        elif fmt in ("obj", "memg", "famc"):
            n = 4
            grid = np.stack(np.meshgrid(np.arange(n), np.arange(n), indexing="ij"), -1).reshape(-1, 2)
            vertices = np.hstack([grid, np.zeros((n * n, 1))]).astype(float)
            quads = np.array(
                [
                    [i * n + j, i * n + j + 1, (i + 1) * n + j + 1, (i + 1) * n + j]
                    for i in range(n - 1)
                    for j in range(n - 1)
                ]
            )
            mesh = mesh_module.Mesh(
                vertices,
                np.full(len(quads), 4),
                quads.ravel(),
                uvs=vertices[:, :2] / n,
                face_uvs=quads.ravel(),
                groups={"left": np.arange(4), "right": np.arange(4, 9)},
            )
            frames = np.array([vertices + [0, 0, np.sin(t + vertices[:, 0])[0]] for t in range(5)])
            frames[:, :, 2] += 0.1 * np.sin(vertices[:, 1])[None] * np.arange(5)[:, None]
            animation = mesh_module.MeshAnimation(mesh, 24, frames)
            core.write(animation, folder / ("t.famc" if fmt == "famc" else "t.memg"), tolerance=1e-4)
            files = {"t.obj": (folder / "t.obj").read_bytes()}
            if fmt != "obj":
                files["t." + fmt] = (folder / ("t." + fmt)).read_bytes()
            out.append(("sample", files, "t." + fmt))
            if fmt == "obj" and (CORPUS / "mesh/gl-geometry-cloth/basicCloth.obj").is_file():
                out.append(
                    (
                        "basicCloth.obj",
                        {"t.obj": (CORPUS / "mesh/gl-geometry-cloth/basicCloth.obj").read_bytes()},
                        "t.obj",
                    )
                )
        elif fmt in ("c3d", "trc"):
            positions = rng.normal(0, 500, (6, 4, 3)).astype(np.float32)
            positions[rng.random((6, 4)) < 0.25] = np.nan
            analog = Analog(rng.normal(size=(12, 2)).astype(np.float32), 200.0, ["Fx", "Fy"])
            markers = Markers(
                ["LASI", "R ASI", "LTOE", "RTOE"],
                positions,
                100.0,
                units="mm",
                residuals=np.where(np.isnan(positions[..., 0]), np.nan, 0.5).astype(np.float32),
                analog=analog,
                events=[Event(0.02, "Foot Strike", "Left")],
            )
            core.write(markers, folder / f"t.{fmt}")
            out.append(("sample", {f"t.{fmt}": (folder / f"t.{fmt}").read_bytes()}, f"t.{fmt}"))
            corpus = {
                "c3d": [
                    "btk/MyCube.c3d",
                    "trc-data-reader/c3d_test_file_03.c3d",
                    "btk-c3d.org-sample02/sgi_int.c3d",
                    "btk-c3d.org-sample02/DEC_INT.C3D",
                ],
                "trc": [
                    "trc-data-reader/test_file_01.trc",
                    "trc-data-reader/test_file_04.trc",
                    "trc-data-reader/test_file_05.trc",
                ],
            }[fmt]
            for name in corpus:
                if (CORPUS / fmt / name).is_file():
                    out.append((name, {f"t.{fmt}": (CORPUS / fmt / name).read_bytes()}, f"t.{fmt}"))
        else:
            pc2.write_pc2(folder / "t.pc2", rng.normal(size=(6, 5, 3)), start=1.0, sampling=0.5)
            out.append(("sample", {"t.pc2": (folder / "t.pc2").read_bytes()}, "t.pc2"))
            if (CORPUS / "mesh/gl-geometry-cloth/basicCloth.pc2").is_file():
                out.append(
                    (
                        "basicCloth.pc2",
                        {"t.pc2": (CORPUS / "mesh/gl-geometry-cloth/basicCloth.pc2").read_bytes()},
                        "t.pc2",
                    )
                )
    return out


def _written(name, text, folder):
    (folder / name).write_text(text)
    return name


def _flip(data, rng):
    data = bytearray(data)
    for _ in range(rng.integers(1, 5)):
        data[rng.integers(len(data))] ^= int(rng.integers(1, 256))
    return bytes(data)


def _truncate(data, rng):
    return data[: rng.integers(len(data))]


def _junk(data, rng):
    at = rng.integers(len(data) + 1)
    return data[:at] + rng.integers(0, 256, rng.integers(1, 40), dtype=np.uint8).tobytes() + data[at:]


def _spans(data):
    return [m.span() for m in re.finditer(_TOKEN, data)]


def _swap_tokens(data, rng):
    spans = _spans(data)
    if len(spans) < 2:
        return _flip(data, rng)
    (a0, a1), (b0, b1) = sorted(spans[i] for i in rng.choice(len(spans), 2, replace=False))
    return data[:a0] + data[b0:b1] + data[a1:b0] + data[a0:a1] + data[b1:]


def _replace_number(data, rng, binary):
    if binary:  # a float64 or float32 at an aligned offset
        data = bytearray(data)
        kind = "<f8" if rng.random() < 0.5 else "<f4"
        at = 4 * rng.integers(max(len(data) // 4, 1))
        data[at : at + 8] = np.array([BINARY_FLOATS[rng.integers(len(BINARY_FLOATS))]], kind).tobytes()
        return bytes(data)
    spans = [s for s in _spans(data) if data[s[0] : s[1]].lstrip(b"-+").replace(b".", b"", 1)[:1].isdigit()]
    if not spans:
        return _junk(data, rng)
    a, b = spans[rng.integers(len(spans))]
    return data[:a] + NUMBERS[rng.integers(len(NUMBERS))] + data[b:]


def _huge_count(data, rng, binary):
    if binary:
        data = bytearray(data)
        at = 4 * rng.integers(min(len(data) // 4, 8 if rng.random() < 0.5 else len(data) // 4) or 1)
        data[at : at + 4] = np.array([BINARY_INTS[rng.integers(len(BINARY_INTS))]], "<i4").tobytes()
        return bytes(data)
    spans = [s for s in _spans(data) if data[s[0] : s[1]].isdigit()]  # counts are plain integers
    if not spans:
        return _junk(data, rng)
    a, b = spans[rng.integers(len(spans))]
    return data[:a] + str(int(rng.choice([10**6, 10**9, 2**31 - 1, 10**12]))).encode() + data[b:]


def _nest(data, rng):
    """A chain of hundreds or thousands of joints nested at a JOINT (or ROOT) line."""
    at = max(data.find(b"JOINT"), 0)
    depth = int(rng.integers(500, 5000))
    chain = b"".join(b"JOINT n%d\n{\nOFFSET 0 1 0\n" % i for i in range(depth)) + b"}\n" * depth
    return data[:at] + chain + data[at:]


def _many_lines(data, rng):
    """A count replaced by a large n, and n blank lines at the end (the data seems to be there)."""
    spans = [s for s in _spans(data) if data[s[0] : s[1]].isdigit()]
    count = int(rng.choice([10**4, 10**5, 10**6]))
    if spans:
        a, b = spans[rng.integers(len(spans))] if rng.random() < 0.5 else spans[-1]
        data = data[:a] + str(count).encode() + data[b:]
    return data + b"\n" * count


def _repeat_line(data, rng):
    lines = data.split(b"\n")
    k = rng.integers(len(lines))
    return b"\n".join(lines[:k] + [lines[k]] * int(rng.integers(2, 3000)) + lines[k:])


# huge but finite numbers: each may fit a double, not what it feeds (a product, a sum, a float32)
HUGE = [b"1.7976931348623157e308", b"3.5e38", b"-1.7e38", b"1e20", b"1e16", b"-9e15"]
# absurd rates, in Hz or as a period in seconds
RATES = [b"1e-45", b"1e-9", b"1e-4", b"1e7", b"1e308", b"2000000"]


def _zero_count(data, rng, binary, fmt):
    """A count set to 0: C3D POINT:USED or ANALOG:USED (with the header's point count or not), a binary
    count in the first bytes, else a whole-number token."""
    if fmt == "c3d" and binary:
        data = bytearray(data)
        used = [m.start() for m in re.finditer(rb"\x04[\x01-\x7f]USED", data)]
        if used:  # name length, group id, name, next-pointer (2), type int16 (2), no dimensions (0)
            at = used[rng.integers(len(used))] + 2 + 4 + 2
            if data[at : at + 2] == b"\x02\x00":
                data[at + 2 : at + 4] = b"\x00\x00"
        if rng.random() < 0.5:
            data[2:4] = b"\x00\x00"  # the header's point count
        return bytes(data)
    if binary:
        data = bytearray(data)
        at = 4 * rng.integers(min(len(data) // 4, 8) or 1)
        data[at : at + 4] = bytes(4)
        return bytes(data)
    spans = [s for s in _spans(data) if data[s[0] : s[1]].isdigit()]
    if not spans:
        return _junk(data, rng)
    a, b = spans[rng.integers(len(spans))]
    return data[:a] + b"0" + data[b:]


def _huge_product(data, rng, binary):
    """One to three numbers replaced by huge finite ones (1.7e308 fits a double, not a float32; 1e10
    twice fits both, their product not the bound)."""
    if binary:
        data = bytearray(data)
        for _ in range(rng.integers(1, 4)):
            kind = "<f8" if rng.random() < 0.5 else "<f4"
            value = (
                float(HUGE[rng.integers(len(HUGE))]) if kind == "<f8" else float(rng.choice([3.4e38, -1.7e38, 1e20]))
            )
            at = 4 * rng.integers(max(len(data) // 4, 1))
            data[at : at + 8] = np.array([value], kind).tobytes()[: len(data) - at]
        return bytes(data)
    spans = [s for s in _spans(data) if data[s[0] : s[1]].lstrip(b"-+").replace(b".", b"", 1)[:1].isdigit()]
    if not spans:
        return _junk(data, rng)
    chosen = sorted(rng.choice(len(spans), min(len(spans), int(rng.integers(1, 4))), replace=False), reverse=True)
    value = HUGE[rng.integers(len(HUGE))] if rng.random() < 0.6 else b"1e10"
    for k in chosen:  # from the end: the spans before stay where they are
        a, b = spans[k]
        data = data[:a] + value + data[b:]
    return data


def _rate(data, rng, fmt):
    """The format's rate (or frame period) set to an absurd value."""
    value = RATES[rng.integers(len(RATES))]
    text = {
        "bvh": rb"(?mi)^(\s*frame\s+time\s*:\s*)\S+",
        "htr": rb"(?mi)^(\s*DataFrameRate\s+)\S+",
        "trc": rb"(?m)\A((?:[^\n]*\n){2}(?:[^\t\n]*\t){%d})[^\t\n]*" % rng.integers(0, 2),
    }.get(fmt)
    if text is not None:
        return re.sub(text, lambda m: m.group(1) + value, data, count=1)
    if fmt == "asf":  # the .amc: its rate in the header
        return b":SAMPLES-PER-SECOND " + value + b"\n" + data
    data = bytearray(data)
    if fmt == "c3d":
        rates = [m.start() for m in re.finditer(rb"\x04[\x01-\x7f]RATE", data)]
        at = rates[rng.integers(len(rates))] + 2 + 4 + 2 + 2 if rates and rng.random() < 0.7 else 20  # or the header's
        data[at : at + 4] = np.array([float(value)], "<f4").tobytes()
    elif fmt == "memg":
        data[4:8] = np.array([rng.choice([2**31 - 1, 10**7, 1_000_001])], "<i4").tobytes()
    elif fmt == "pc2":
        data[24:28] = np.array([float(value)], "<f4").tobytes()  # the sampling step
    elif fmt == "famc":  # a frame time (after the header's first fields) moved far away
        at = 4 * rng.integers(2, min(len(data) // 4, 12) or 3)
        data[at : at + 4] = np.array([2**32 - 1], ">u4").tobytes()
    return bytes(data)


def _widen(data, rng):
    """A line repeated a thousand to five thousand times, its first word made distinct in each
    copy: thousands of segments, joints, markers or groups (an HTR of 4k segments once took 0.23 s,
    of 50k 17.7 s: a name looked up in a list)."""
    lines = data.split(b"\n")
    words = [k for k, line in enumerate(lines) if line.split()]
    if not words:
        return _junk(data, rng)
    k = words[rng.integers(len(words))]
    head, _, rest = lines[k].lstrip().partition(b" ")
    copies = [head + b"_w%d " % i + rest for i in range(int(rng.integers(1000, 5000)))]
    return b"\n".join(lines[:k] + copies + lines[k:])


SPECIAL = ("FIFO", "link to /dev/zero", "folder")  # entries that are no regular file, in place of the file read


def write_entry(path, data):
    """Write `data` (bytes) at `path`, or make the SPECIAL entry it names (whatever was there removed)."""
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    elif path.exists() or path.is_symlink():
        path.unlink()
    if data == "FIFO":
        os.mkfifo(path)
    elif data == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif data == "folder":
        path.mkdir()
    else:
        path.write_bytes(data)


MUTATIONS = (
    "flip",
    "truncate",
    "swap",
    "huge count",
    "junk",
    "number",
    "repeat line",
    "nest",
    "many lines",
    "zero count",
    "huge product",
    "rate",
    "wide",
    "special file",
)


def mutant(files, target, fmt, case):
    """The files of case `case`: the seed files with one mutation applied to one of them."""
    rng = np.random.default_rng([zlib.crc32(fmt.encode()), case])
    kind = MUTATIONS[case % len(MUTATIONS)]
    name = target  # mostly the file read, else the one it reads beside it
    if fmt in ("memg", "famc", "asf") and rng.random() >= (0.5 if fmt == "asf" else 0.8):
        name = "t.asf" if fmt == "asf" else "t.obj"
    binary = name.endswith((".memg", ".famc", ".pc2", ".c3d"))
    data = files[name]
    if kind == "flip":
        data = _flip(data, rng)
    elif kind == "truncate":
        data = _truncate(data, rng)
    elif kind == "swap":
        data = _swap_tokens(data, rng) if not binary else _flip(data, rng)
    elif kind == "huge count":
        data = _huge_count(data, rng, binary)
    elif kind == "junk":
        data = _junk(data, rng)
    elif kind == "number":
        data = _replace_number(data, rng, binary)
    elif kind == "repeat line":
        data = _repeat_line(data, rng) if not binary else _junk(data, rng)
    elif kind == "nest":
        data = _nest(data, rng) if not binary else _flip(data, rng)
    elif kind == "many lines":
        data = _many_lines(data, rng) if not binary else _huge_count(data, rng, binary)
    elif kind == "zero count":
        data = _zero_count(data, rng, binary, fmt)
    elif kind == "huge product":
        data = _huge_product(data, rng, binary)
    elif kind == "rate":  # the rate of the file read
        data = _rate(data, rng, fmt) if name == target else _huge_product(data, rng, binary)
    elif kind == "wide":
        data = _widen(data, rng) if not binary else _huge_count(data, rng, binary)
    else:  # a FIFO, a link to /dev/zero, a folder: refused at once, never read
        data = SPECIAL[rng.integers(len(SPECIAL))]
    return {**files, name: data}, kind


class NonFinite(Exception):
    """A mutant read without an error whose numbers are not all finite (or beyond float32, which
    Blender would hold as infinity), or a ParseError that names no place: a failure."""


_FLOAT32 = float(np.finfo(np.float32).max)


def _unbounded(result, fmt):
    """What of a model read is not finite or beyond float32 (every array it holds, and what it
    computes: world positions and End Sites, decoded mesh positions), or None."""
    if fmt == "pc2":
        positions, start, sampling = result
        arrays = {"positions": positions, "start": start, "rate": 24.0 / sampling}
    elif isinstance(result, core.Motion):
        skeleton = result.skeleton
        arrays = {"euler": result.euler, "translations": result.translations, "offsets": skeleton.offsets}
        arrays |= {"End Site offsets": skeleton.end_site_offsets, "fps": result.fps}
        if result.scales is not None:
            arrays["scales"] = result.scales
        if result.frame_count and skeleton.joint_count <= 1000:
            world, position = result.world_transforms()
            arrays |= {"world rotations": world, "world positions": position}
            arrays["End Site positions"] = result.end_site_positions()
        elif result.frame_count:  # a long chain (the nest mutants), whose FK is a long loop over joints:
            lengths = np.linalg.norm(result.translations, axis=-1).max(axis=0)  # rotations keep lengths,
            reach = np.zeros(skeleton.joint_count)  # so the world positions are within their sums
            for j, parent in enumerate(skeleton.parents):
                reach[j] = lengths[j] + (reach[parent] if parent >= 0 else 0.0)
            arrays["world positions (their bound)"] = reach
    elif isinstance(result, Markers):
        seen = result.valid
        arrays = {"positions": result.positions[seen], "rate": result.rate}
        if result.residuals is not None:
            arrays["residuals"] = result.residuals[seen]
        if result.analog is not None:
            arrays |= {"analog values": result.analog.values, "analog rate": result.analog.rate}
        arrays["event times"] = [e.time for e in result.events]
    elif isinstance(result, mesh_module.Mesh):
        arrays = {"vertices": result.vertices}
    else:  # a MeshAnimation: its rest mesh, its decoded positions (the first two frames of a factored one)
        positions = result.positions(None if fmt == "famc" else slice(0, 2))
        arrays = {"rest vertices": result.mesh.vertices, "positions": positions, "fps": result.fps}
    for name, values in arrays.items():
        values = np.asarray(values, dtype=float)
        if values.size and not (np.isfinite(values).all() and np.abs(values).max() <= _FLOAT32):
            return f"its {name}: not all finite within float32 (largest magnitude {np.abs(values).max():g})"
    rate = arrays.get("fps", arrays.get("rate"))
    if rate is not None and not 1e-3 <= rate <= 1e6:
        return f"its rate is {rate:g} Hz"
    return None


def _child(fmt, count):
    """Run in the child: read every mutant, print a JSON report."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    read = pc2.read_pc2 if fmt == "pc2" else core.read

    class Timeout(Exception):
        pass

    def expire(*_):
        raise Timeout(f"more than {CASE_SECONDS} s")

    signal.signal(signal.SIGALRM, expire)
    outcomes, failures, kinds = {"read": 0, "ParseError": 0, "OSError": 0}, [], {}
    started = time.perf_counter()
    sources = seeds(fmt)
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        for case in range(count):
            name, files, target = sources[case % len(sources)]
            files, kind = mutant(files, target, fmt, case)
            for file, data in files.items():
                write_entry(folder / file, data)
            signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
            try:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        result = read(folder / target)
                        unbounded = _unbounded(result, fmt)  # decoding works too, and gives finite numbers
                except core.ParseError as error:
                    if error.line is None and error.offset is None:
                        raise NonFinite(f"a ParseError without a line or byte: {error}") from None
                    outcome = "ParseError"
                else:
                    if unbounded:
                        raise NonFinite(f"read, but {unbounded}")
                    outcome = "read"
            except OSError:
                outcome = "OSError"
            except BaseException as error:
                outcome = None
                failures.append(
                    {
                        "case": case,
                        "seed": name,
                        "mutation": kind,
                        "error": f"{type(error).__name__}: {str(error)[:300]}",
                        "where": traceback.format_exc(limit=-3)[-600:],
                    }
                )
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if outcome:
                outcomes[outcome] += 1
            kinds[kind] = kinds.get(kind, 0) + 1
    report = {
        "format": fmt,
        "cases": count,
        "seeds": [s[0] for s in sources],
        "outcomes": outcomes,
        "mutations": kinds,
        "failures": failures,
        "seconds": time.perf_counter() - started,
        "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }
    print(json.dumps(report))


def run(fmt, count):
    """Report (dict) of `count` mutants of `fmt`, read in a limited child process."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    done = subprocess.run(
        [sys.executable, __file__, "--child", fmt, str(count)],
        capture_output=True,
        text=True,
        env=env,
        timeout=count * CASE_SECONDS + 60,
    )
    if done.returncode:
        raise RuntimeError(f"fuzz child for {fmt} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(count):
    print(
        f"{'format':<6} {'cases':>5} {'read':>5} {'ParseError':>10} {'OSError':>7} {'other':>5} "
        f"{'seconds':>7} {'peak MiB':>8}  seeds"
    )
    for fmt in FORMATS:
        r = run(fmt, count)
        o = r["outcomes"]
        print(
            f"{fmt:<6} {r['cases']:>5} {o['read']:>5} {o['ParseError']:>10} {o['OSError']:>7} "
            f"{len(r['failures']):>5} {r['seconds']:>7.1f} {r['peak_rss'] / 2**20:>8.0f}  {', '.join(r['seeds'])}"
        )
        for failure in r["failures"][:10]:
            print("   ", failure)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else CASES)
