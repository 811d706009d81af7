"""ASF/AMC writer: any Motion as an Acclaim skeleton and motion, with bone axes and dofs chosen from
the data, and what an ASF gave (Skeleton.record, channels) reused wherever it still fits.

Conversion (the definition is in reader_asf): a bone's axis C is its joint's rest world rotation,
so that its dof rotations are the joint's own Euler angles, in reverse order (order "ZXY" is dof
"ry rx rz"); its direction * length is the rest offset of its children (world axes) or of its End
Site. All children of a bone start at its end and the root has no length, so a child elsewhere
hangs from a dof-less bone "<child>_offset" that bridges the gap (as CMU's lhipjoint does); a
second End Site becomes a dof-less bone "<joint>_end". A bone gets the dofs whose values move
beyond the printed precision; a moving translation of a joint other than the root becomes tx ty tz
(along its parent's rest axes, as the reader applies them).
"""

import math
import os
import pathlib
import re
from typing import Literal

import numpy as np

from ...atomic import atomic_writes
from ...frame_rate import snap_rate, stands_for
from ...motion import Motion
from ...numtext import format_table, shortest
from ...skeleton import child_lists
from .reader_amc import DEFAULT_FPS
from .reader_asf import BONE_DOFS, ROOT, ROOT_DOFS, AsfRecord, axis_angles, axis_matrix

_UNWRITABLE = re.compile(r"[\s#,()]")
_DEFAULT_UNITS = {"mass": "1.0", "length": "1.0", "angle": "deg"}


def write_acclaim(
    data: Motion,
    path: str | os.PathLike,
    *,
    amc: str | os.PathLike | Literal[False] | None = None,
    precision: int = 6,
) -> None:
    """Write the Motion `data` as the ASF `path` and its AMC, which appear together once complete.

    amc        the AMC's path (default: `path` with the suffix .amc), or False for the ASF alone
    precision  decimals of the AMC values; ASF numbers are written exactly (the shortest text that
               reads back as the same double), so that ASF -> ASF keeps every value as read
    """
    acclaim = _Acclaim(data, precision)
    paths, contents = [path], [acclaim.asf(pathlib.Path(path).stem)]
    if amc is not False:
        paths.append(pathlib.Path(path).with_suffix(".amc") if amc is None else amc)
        contents.append(acclaim.amc())
    with atomic_writes(paths) as files:
        for file, content in zip(files, contents):
            file.write(content)


def write_amc(data: Motion, path: str | os.PathLike, *, precision: int = 6, first_frame: int = 1) -> None:
    """Write the AMC of the Motion `data` alone (for an ASF written before: the dofs must be those
    the ASF lists, as they are for a motion read with that ASF); frames numbered from `first_frame`."""
    acclaim = _Acclaim(data, precision)
    with atomic_writes([path]) as (file,):
        file.write(acclaim.amc(first_frame))


def _numbers(values):
    return " ".join(shortest(v) for v in values)


def _check_name(name):
    if not name or _UNWRITABLE.search(name) or name.startswith(":") or name.isdigit():
        raise ValueError(f"joint name {name!r} cannot be written to ASF (spaces, '#', ',', '(', ')', a leading ':')")
    if name.lower() in ("begin", "end", ROOT):
        raise ValueError(f"joint name {name!r} cannot be written to ASF (a keyword there)")


class _Bone:
    """A bone to write: where it hangs, its direction * length (world axes, model units), its axis
    C, dofs and their AMC columns."""

    def __init__(
        self,
        name: str,
        parent: str | None,
        vector: np.ndarray | None,
        axis: np.ndarray | None,
        dofs=(),
        columns=(),
        as_read=None,
    ):
        self.name, self.parent, self.vector, self.axis = name, parent, vector, axis
        self.dofs, self.columns, self.as_read = tuple(dofs), list(columns), as_read
        self.heading: np.ndarray | None = None  # the direction of a bone of no length: the way it came from its parent


class _Acclaim:
    """A Motion laid out as an ASF and its AMC."""

    def __init__(self, motion, precision):
        motion.require_writable()
        s = motion.skeleton
        if motion.scales is not None and not (motion.scales == 1).all():
            raise ValueError("ASF/AMC cannot hold joint scales")
        if len(s.roots) != 1:
            raise ValueError(f"an ASF has one root; this skeleton has {len(s.roots)}")
        for name in s.names[1:]:
            _check_name(name)
        self.motion, self.precision = motion, precision
        self.record = s.record if isinstance(s.record, AsfRecord) else None
        self.scale = self.record.scale if self.record else 1.0
        self.degrees = self.record.degrees if self.record else True
        self.resolution = 0.5 * 10.0**-precision  # of the AMC values, file units
        self.angle_resolution = math.radians(self.resolution) if self.degrees else self.resolution
        self.world = s.rest_world()[0]
        self.root = self.dofs(0, self.shift(0))
        self.bones = self.layout()

    def layout(self):
        """The bones, parents first: one per joint but the root, and the bridges."""
        s, world = self.motion.skeleton, self.world
        children = child_lists(s.parents)
        sites = child_lists(s.end_site_parents, s.joint_count)
        tips = [[world[j] @ s.end_site_offsets[e] for e in sites[j]] for j in range(s.joint_count)]  # world axes
        ends: list[np.ndarray | None] = [np.zeros(3)]  # where each joint's bone ends (the root has no length)
        for j in range(1, len(s.names)):
            targets = [world[j] @ s.offsets[c] for c in children[j]] + tips[j]
            keys = [tuple(t) for t in targets]
            ends.append(max(targets, key=lambda t: keys.count(tuple(t))) if targets else None)
        taken = set(s.names)
        bones, bone_of, stretch = [], {0: ROOT}, {}
        for j in range(1, len(s.names)):
            p = s.parents[j]
            parent, start = bone_of[p], world[p] @ s.offsets[j]
            if not np.array_equal(start, ends[p]):
                bridge = _unique(f"{s.names[j]}_offset", taken)
                bones.append(_Bone(bridge, parent, start - ends[p], world[p]))
                parent = bridge
            shift = self.shift(j) - stretch.get(p, 0.0)
            bone = self.dofs(j, shift)
            bone.name, bone.parent, bone.vector, bone.axis = s.names[j], parent, ends[j], world[j]
            bone.heading = start - (0.0 if parent == bone_of[p] else ends[p])
            if any(d.lower() == "l" for d in bone.dofs):  # the move of its first child along its direction
                direction = np.asarray(self.direction_and_length(bone)[0], dtype=float)
                moved = self.shift(children[j][0]) if children[j] else np.zeros((self.motion.frame_count, 3))
                length = moved @ direction / (direction @ direction)
                stretch[j] = np.multiply.outer(length, direction)
                bone.columns = [length if d.lower() == "l" else c for d, c in zip(bone.dofs, bone.columns)]
            bones.append(bone)
            bone_of[j] = s.names[j]
            end = ends[j]  # None only for a joint with no children and no End Site
            for tip in tips[j]:  # the bone's end stands for End Sites there
                if end is not None and not np.array_equal(tip, end):
                    bones.append(_Bone(_unique(f"{s.names[j]}_end", taken), s.names[j], tip - end, world[j]))
        return bones

    def shift(self, j):
        """(frames, 3) translation of joint j beyond its offset, along its parent's rest (world)
        axes, in file units: the tx ty tz it needs (and its parent's l)."""
        s = self.motion.skeleton
        p = s.parents[j]
        parent_world = np.eye(3) if p < 0 else self.world[p]
        return (self.motion.translations[:, j] - s.offsets[j]) @ parent_world.T / self.scale

    def dofs(self, j, shift):
        """A _Bone with joint j's dofs and AMC columns (`shift`: its tx ty tz): its channels as read
        while they still hold the data, else the rotations and translations that move."""
        motion, s = self.motion, self.motion.skeleton
        order = motion.euler_orders[j]
        angles = {a: motion.euler[:, j, order.index(a)] for a in "XYZ"}
        turning = {a: bool(len(v)) and np.abs(v).max() > self.angle_resolution for a, v in angles.items()}
        moving = {a: bool(len(shift)) and np.abs(shift[:, i]).max() > self.resolution for i, a in enumerate("XYZ")}
        as_read = s.channels[j] if self.record else ()
        allowed = ROOT_DOFS if j == 0 else BONE_DOFS
        applied = order[::-1]  # the first applied first
        read_rotations = [d[1].upper() for d in as_read if d[0] in "rR"]
        read_translations = [d[1].upper() for d in as_read if d[0] in "tT"]
        keep = (
            all(d.lower() in allowed for d in as_read)
            and [a for a in applied if a in read_rotations] == read_rotations
            and all(a in read_rotations for a in "XYZ" if turning[a])
            and all(a in read_translations for a in "XYZ" if moving[a])
        )
        if keep:
            dofs = as_read
        else:
            case = str.upper if j == 0 else str.lower  # as Vicon writes them: TX ... for the root, rx for bones
            dofs = [case("t" + a) for a in "XYZ" if any(moving.values())]
            dofs += [case("r" + a) for a in applied if turning[a]]
        to_file = np.degrees if self.degrees else np.asarray
        columns = []
        for d in dofs:
            axis = d[-1].upper()
            if d[0] in "rR":
                columns.append(to_file(angles[axis]))
            elif d[0] in "tT":
                columns.append(shift[:, "XYZ".index(axis)])
            else:
                columns.append(None)  # l: set by layout(), from the first child's shift
        return _Bone(s.names[j], None, None, None, dofs, columns, as_read if keep else None)

    def as_read(self, name):
        """The AsfBone of `name` as read, or None."""
        return self.record.bones.get(name) if self.record else None

    def direction_and_length(self, bone):
        """Direction and length to write (file units): as read while they still give the bone's end."""
        vector = bone.vector
        read = self.as_read(bone.name)
        if read is not None and vector is not None:
            written = np.multiply(read.direction, read.length * self.scale)
            if np.allclose(written, vector, rtol=0, atol=1e-9 * max(1.0, float(np.linalg.norm(vector)))):
                return read.direction, read.length
        length = 0.0 if vector is None else float(np.linalg.norm(vector))
        if vector is not None and length > 0:
            return tuple(vector / length), length / self.scale
        heading = np.zeros(3) if bone.heading is None else bone.heading
        norm = float(np.linalg.norm(heading))
        return (tuple(heading / norm) if norm > 0 else (0.0, 0.0, 1.0)), 0.0

    def axis(self, matrix, angles, order):
        """Axis angles (file unit, as written: paired with the order's letters) and order of the
        rotation `matrix`: those read while they give it."""
        to_radians = math.radians if self.degrees else float
        if angles is not None and np.allclose(axis_matrix([to_radians(a) for a in angles], order), matrix, atol=1e-9):
            return angles, order
        radians = axis_angles(matrix, order)
        return (tuple(math.degrees(a) for a in radians) if self.degrees else radians), order

    def asf(self, stem):
        """The ASF text (bytes)."""
        record, s = self.record, self.motion.skeleton
        units = record.units if record and record.units else _DEFAULT_UNITS
        lines = [f":version {record.version if record and record.version else '1.10'}"]
        lines.append(f":name {record.name if record and record.name else stem}")
        lines += [":units"] + [f"  {key} {value}" for key, value in units.items()]
        if record and record.documentation:
            lines += [":documentation", *record.documentation]
        root_order = record.root_axis_order if record else "XYZ"
        position = s.offsets[0] / self.scale
        if record and np.allclose(np.multiply(record.position, self.scale), s.offsets[0], rtol=0, atol=1e-9):
            position = record.position
        orientation, root_order = self.axis(self.world[0], record.orientation if record else None, root_order)
        lines.append(":root")
        if self.root.dofs:
            lines.append("   order " + " ".join(self.root.dofs))
        lines += [
            f"   axis {root_order}",
            f"   position {_numbers(position)}",
            f"   orientation {_numbers(orientation)}",
        ]
        lines.append(":bonedata")
        for number, bone in enumerate(self.bones, 1):
            read = self.as_read(bone.name)
            direction, length = self.direction_and_length(bone)
            angles, order = self.axis(bone.axis, read.axis if read else None, read.axis_order if read else "XYZ")
            lines.append("  begin")
            if read is None or read.id is not None:  # as read: a file may leave ids out
                lines.append(f"     id {read.id if read else number}")
            lines.append(f"     name {bone.name}")
            lines += [f"     direction {_numbers(direction)}", f"     length {shortest(length)}"]
            lines.append(f"     axis {_numbers(angles)} {order}")
            if bone.dofs:
                lines.append("     dof " + " ".join(bone.dofs))
            if read and read.limits and bone.as_read is not None:
                pairs = [f"({_numbers(pair)})" for pair in read.limits]
                lines.append("     limits " + "\n            ".join(pairs))
            if read:
                lines += [f"     {key} {text}" for key, text in read.extras]
            lines.append("  end")
        lines += [":hierarchy", "  begin"]
        children = {}
        for bone in self.bones:
            children.setdefault(bone.parent, []).append(bone.name)
        for parent in [ROOT] + [b.name for b in self.bones]:
            if parent in children:
                lines.append(f"    {parent} {' '.join(children[parent])}")
        lines.append("  end")
        return ("\n".join(lines) + "\n").encode("utf-8")

    def amc(self, first_frame=1):
        """The AMC (bytes): a frame number, then a line of values for each bone with dofs."""
        fps, period = self.motion.fps, self.motion.frame_time_text
        if stands_for(period, fps):  # a BVH's Frame Time 0.0083333 stands for 120 per second: say 120
            fps = float(snap_rate(period))
        header = "" if fps == DEFAULT_FPS else f":SAMPLES-PER-SECOND {shortest(fps)}\n"
        header += ":FULLY-SPECIFIED\n" + (":DEGREES\n" if self.degrees else ":RADIANS\n")
        frames = self.motion.frame_count
        if not frames:
            return header.encode()
        pieces = [(False, format_table(np.arange(first_frame, first_frame + frames, dtype=float)[:, None], 0))]
        for bone in [self.root] + self.bones:
            if bone.dofs:
                pieces.append((True, (ROOT if bone is self.root else bone.name).encode("utf-8") + b" "))
                pieces.append((False, format_table(np.stack(bone.columns, axis=1), self.precision)))
        return header.encode() + _interleave(pieces, frames)


def _unique(name, taken):
    """`name`, or with the first number that makes it unique; taken then holds it."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}{number}"
    taken.add(candidate)
    return candidate


def _interleave(pieces, rows):
    """Row r of every piece in turn, for each r in turn. A piece is (constant, bytes): the same
    bytes on every row (constant), or `rows` lines each ending in a newline."""
    arrays = [np.frombuffer(data, dtype=np.uint8) for _, data in pieces]
    lengths = np.empty((rows, len(pieces)), dtype=np.intp)
    for k, ((constant, _), array) in enumerate(zip(pieces, arrays)):
        lengths[:, k] = len(array) if constant else np.diff(np.flatnonzero(array == 10), prepend=-1)
    place = (np.cumsum(lengths.ravel()) - lengths.ravel()).reshape(rows, len(pieces))
    out = np.empty(int(lengths.sum()), dtype=np.uint8)
    for k, ((constant, _), array) in enumerate(zip(pieces, arrays)):
        if constant:
            out[place[:, k, None] + np.arange(len(array))] = array
        else:
            row_starts = np.cumsum(lengths[:, k]) - lengths[:, k]
            out[np.arange(len(array)) + np.repeat(place[:, k] - row_starts, lengths[:, k])] = array
    return out.tobytes()
