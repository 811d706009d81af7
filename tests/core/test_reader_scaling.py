"""Every reader's cost is linear in the file (issue 28, item 6): a file wide in what it can make large
(segments, joints, bones, materials, groups, names) reads in time proportional to its size. Before,
an HTR of 50,000 segments took 18 s (a `name in names` on a list per segment block).

No assertion on time as such: each test reads an input and one 10 times larger, and requires the
larger to cost less than SLACK (30) times the smaller. Linear work gives about 10 (12 with cache
effects), quadratic work 100 (the HTR's was 56-77), so the margin either way is wide. The cost is the
process's CPU time (time.process_time: the readers' own threads included), not the wall clock: other
processes on a loaded 2-core machine slow the clock, not the work. The smaller input is timed as the
best of three and given a floor (FLOOR), so that a quick small read cannot make the limit tiny. The
large inputs are chains as deep as they are wide (100,000 joints): a reader that recursed over the
hierarchy would fail on them at Python's recursion limit, whatever the time.
"""

import gc
import time

import numpy as np
import pytest

from mocap_io import core
from mocap_io.core.formats import asf
from mocap_io.core.skeleton import Skeleton

SLACK = 30
FLOOR = 0.05  # seconds of CPU


def _cpu(read, path, repeat=1):
    """(the least CPU seconds of `repeat` calls of read(path), what the last returned)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.process_time()
        result = read(path)
        best = min(best, time.process_time() - start)
    return best, result


def _linear(tmp_path, ext, make, small, read=core.read, factor=10):
    """What read() returns for the file of make(n) (its text or bytes) of n = small * factor, after
    checking that it cost less than SLACK times make(small)'s (see the module's docstring)."""
    paths = []
    for n in (small, small * factor):
        paths.append(tmp_path / f"wide_{n}{ext}")
        data = make(n)
        paths[-1].write_bytes(data if isinstance(data, bytes) else data.encode())
    quick, _ = _cpu(read, paths[0], repeat=3)
    slow, result = _cpu(read, paths[1])
    assert slow < SLACK * max(quick, FLOOR), f"{factor}x the input took {slow / quick:.0f}x the time"
    return result


def htr_chain(segments, frames=2):
    """An HTR of `segments` segments, each the child of the one before."""
    names = [f"s{i}" for i in range(segments)]
    header = f"[Header]\nFileType htr\nDataType HTRS\nFileVersion 1\nNumSegments {segments}\nNumFrames {frames}\n"
    header += "DataFrameRate 30\nEulerRotationOrder ZYX\nCalibrationUnits mm\nRotationUnits Degrees\n"
    parents = ["GLOBAL"] + names[:-1]
    hierarchy = "".join(f"{n}\t{p}\n" for n, p in zip(names, parents))
    base = "".join(f"{n}\t0 1 0 0 0 0 1\n" for n in names)
    rows = "".join(f"{f + 1} 0 0 0 1 2 3 1\n" for f in range(frames))
    blocks = "".join(f"[{n}]\n{rows}" for n in names)
    return f"{header}[SegmentNames&Hierarchy]\n{hierarchy}[BasePosition]\n{base}{blocks}[EndOfFile]\n"


def bvh_chain(joints, frames=2):
    """A BVH of `joints` joints, each nested in the one before, and an End Site at the tip."""
    lines = [
        "HIERARCHY",
        "ROOT j0",
        "{",
        "OFFSET 0 0 0",
        "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation",
    ]
    lines[-1] += " Yrotation"
    for j in range(1, joints):
        lines += [f"JOINT j{j}", "{", "OFFSET 0 1 0", "CHANNELS 3 Zrotation Xrotation Yrotation"]
    lines += ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * joints
    row = " ".join(["0.5"] * (3 * joints + 3))
    lines += ["MOTION", f"Frames: {frames}", "Frame Time: 0.033333"] + [row] * frames
    return "\n".join(lines) + "\n"


def test_an_htr_of_50000_segments_in_a_chain(tmp_path):
    motion = _linear(tmp_path, ".htr", htr_chain, 5000)
    skeleton = motion.skeleton
    assert skeleton.joint_count == 50000 and motion.frame_count == 2
    assert skeleton.names[-1] == "s49999" and (skeleton.parents == range(-1, 49999)).all()
    assert (motion.translations[1, -1] == [0, 1, 0]).all()


def test_a_bvh_of_100000_joints_in_a_chain(tmp_path):
    motion = _linear(tmp_path, ".bvh", bvh_chain, 10000)
    skeleton = motion.skeleton
    assert skeleton.joint_count == 100000 and motion.frame_count == 2
    assert skeleton.names[-1] == "j99999" and (skeleton.parents == range(-1, 99999)).all()
    assert list(skeleton.end_site_parents) == [99999]


def test_an_htr_comment_of_many_brackets(tmp_path):
    """A '[' starts a block only at the start of a line: the search for the next block skips the
    rest of a line once one '[' is not (it went back over the line for each)."""
    sample = htr_chain(3)

    def make(n):
        return sample.replace("[s1]\n1 0 0 0 1 2 3 1", "[s1]\n1 0 0 0 1 2 3 1 # " + "[" * n)

    assert _linear(tmp_path, ".htr", make, 200_000).skeleton.joint_count == 3


def test_an_obj_of_a_material_per_face(tmp_path):
    """Materials are looked up by name in a dict (a list's index was searched per `usemtl`)."""

    def make(faces):
        return "v 0 0 0\nv 1 0 0\nv 0 1 0\n" + "".join(f"usemtl m{k}\nf 1 2 3\n" for k in range(faces))

    mesh = _linear(tmp_path, ".obj", make, 2000)
    assert len(mesh.materials) == 20000 and (mesh.face_materials == range(20000)).all()


def test_an_obj_of_a_group_per_face(tmp_path):
    def make(faces):
        return "v 0 0 0\nv 1 0 0\nv 0 1 0\n" + "".join(f"g part{k}\nf 1 2 3\n" for k in range(faces))

    mesh = _linear(tmp_path, ".obj", make, 5000)
    assert len(mesh.groups) == 50000 and all(mesh.groups[f"part{k}"].tolist() == [k] for k in (0, 49999))


def test_an_obj_line_of_many_groups_over_many_faces_is_bounded(tmp_path):
    """One `g` line of k names over k faces puts k * k faces in groups: from a file of some 100 kB,
    more memory than the file may make (core.errors.check_memory), refused naming that line."""
    k = 4000
    text = "v 0 0 0\nv 1 0 0\nv 0 1 0\ng " + " ".join(f"n{i}" for i in range(k)) + "\n" + "f 1 2 3\n" * k
    (tmp_path / "many.obj").write_text(text)
    with pytest.raises(core.ParseError, match=r"many\.obj, line 4: 16000000 faces in 4000 groups would take 122 MiB"):
        core.read(tmp_path / "many.obj")


def test_an_amc_of_many_bones_in_a_different_order_each_frame(tmp_path):
    """Each bone's rows are found by one sort (they were searched for over all rows, bone by bone)."""

    def star(bones):
        """The Skeleton read_asf makes of a root and `bones` bones on it of dofs rx ry rz (made here:
        the .asf's reading is not what is timed)."""
        names = ["root"] + [f"b{i}" for i in range(bones)]
        record = asf.AsfRecord(units={"angle": "deg"}, bones={n: asf.AsfBone((0, 1, 0), 1.0) for n in names[1:]})
        channels = [("TX", "TY", "TZ", "RX", "RY", "RZ")] + [("rx", "ry", "rz")] * bones
        rest = np.broadcast_to(np.eye(3), (bones + 1, 3, 3))
        return Skeleton(
            names, [-1] + [0] * bones, np.zeros((bones + 1, 3)), channels=channels, rest_rotations=rest, record=record
        )

    def amc_shuffled(bones, frames=3):
        text = ":FULLY-SPECIFIED\n:DEGREES\n"
        for f in range(frames):
            order = list(range(bones))[f::frames] + [i for i in range(bones) if i % frames != f]  # differs per frame
            text += f"{f + 1}\nroot 0 0 0 0 0 0\n" + "".join(f"b{i} {f} 2 3\n" for i in order)
        return text

    def read(path):
        return asf.read_amc(path, star(int(path.stem.split("_")[1])))

    motion = _linear(tmp_path, ".amc", amc_shuffled, 4000, read=read)
    assert motion.skeleton.joint_count == 40001
    for frame in range(3):  # every bone its own line of the frame
        np.testing.assert_allclose(
            np.sort(np.degrees(motion.euler[frame, 1:]), axis=1), [sorted([frame, 2, 3])] * 40000
        )


def test_a_memg_of_many_groups_over_many_timesteps(tmp_path):
    """Each local frame's largest values are found once, not once per group (a group of rank 0 holds
    no bytes per timestep, so per group that was time beyond the file's size)."""

    def make(count):
        """`count` groups of one vertex and rank 0 on one local frame over `count` timesteps, and the .obj."""
        obj = "".join(
            f"v {i} 0 0\nv {i} 1 0\nv {i} 0 1\ng g{i}\nf {3 * i + 1} {3 * i + 2} {3 * i + 3}\n" for i in range(count)
        )
        (tmp_path / f"wide_{count}.obj").write_text(obj)
        moves = np.tile([1.0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], count)
        parts = [np.array([1, 30, 1, count], "<i4").tobytes(), moves.astype("<f8").tobytes()]
        for i in range(count):
            name = f"g{i}".encode()
            parts += [np.array([len(name)], "<i4").tobytes(), name, np.array([1, 3 * i + 1], "<i4").tobytes()]
            parts += [np.array([i, 0, 0], "<f8").tobytes(), np.array([0, 3, 0, 0, count], "<i4").tobytes()]
        return b"".join(parts)

    animation = _linear(tmp_path, ".memg", make, 1500)
    assert len(animation.groups) == 15000 and animation.frame_count == 15000
