"""HTR and GTR writer: a motion read from HTR as it was read, any other in HTR's base pose."""

import os
from collections.abc import Mapping

import numpy as np

from ... import rotations
from ...atomic import atomic_write
from ...errors import require_bounded, require_rate
from ...frame_rate import snap_rate, stands_for
from ...motion import Motion
from ...numtext import format_blocks, format_table, parse_number, shortest
from .convert import all_global, bone_lengths, bvh_to_htr
from .header import DEFAULTS, HEADER_KEYS, READINGS, HtrRecord, Settings


def write_htr(
    motion: Motion,
    path: str | os.PathLike,
    *,
    precision: int = 6,
    header: Mapping[str, object] | None = None,
    euler_reading: str | None = None,
    file_type: str = "htr",
) -> None:
    """Write `motion` to an HTR file; the file appears only once it is complete.

    A motion read from HTR (its record an HtrRecord) is written as it is: its header, segment
    order and frame numbers as read, base angles from its rest rotations, BoneLengths as
    bone_lengths gives them (a round trip is exact to the printed precision); any other (BVH, ASF)
    gets HTR's base pose first (bvh_to_htr, along the header's BoneLengthAxis).

    precision      decimals of every number (default 6)
    header         {keyword: value text} over the motion's header (or the defaults: mm, Degrees,
                   Y up, bones along Y), e.g. {"CalibrationUnits": "cm"}; EulerRotationOrder and
                   RotationUnits convert the angles
    euler_reading  how EulerRotationOrder is written ("product" or "applied"; default: as read)
    file_type      "htr", or "gtr" to write every segment global (no hierarchy section)
    """
    names, given = motion.skeleton.names, motion
    _require_bounded(motion, names)  # as given, before a conversion turns an infinity into NaNs elsewhere
    record = motion.record if isinstance(motion.record, HtrRecord) else None
    reading = euler_reading or (record.euler_reading if record else "product")
    if reading not in READINGS:
        raise ValueError(f"euler_reading must be one of {READINGS}, not {euler_reading!r}")
    merged = _header(motion, record.header if record else (), header or {}, reading, file_type)
    settings = Settings({k: (key, value, None) for k, (key, value) in merged.items()}, lambda what, _: ValueError(what))
    order, _ = settings.order(reading)
    to_axes = [order.index(a) for a in "XYZ"]  # the file lists Rx Ry Rz
    first_frame, file_order = (record.first_frame, list(record.file_order)) if record else (1, [])
    if record is None:
        motion = bvh_to_htr(motion, bone_axis="XYZ"[settings.bone_axis], order=order)
    lengths = bone_lengths(motion)
    if file_type == "gtr" and (motion.skeleton.parents >= 0).any():
        motion, file_order = all_global(motion), []
    file_order = file_order or list(range(len(names)))
    if motion is not given:  # and as converted
        _require_bounded(motion, names)
    for name in names:
        if not name or name != name.strip() or any(c in name for c in "\t\r\n#[]") or name.upper() == "GLOBAL":
            raise ValueError(f"segment name {name!r} cannot be written to HTR")
    require_bounded(lengths, lambda j: f"bone length of segment {names[j]!r}")
    if motion.scales is not None:  # SF sizes the segment: the reader bounds SF x BoneLength too
        require_bounded(motion.scales * lengths, lambda f, j: f"SF x BoneLength of segment {names[j]!r} at frame {f}")
    unit = np.degrees if settings.degrees else np.asarray
    angles = unit(motion.euler_in(order)[..., to_axes])
    moves = motion.translations - motion.skeleton.offsets
    for table, kind in ((moves, "T"), (angles, "R")):  # a huge finite value can overflow in the conversion
        require_bounded(table, lambda f, j, i: f"{kind}{'xyz'[i]} of segment {names[j]!r} at frame {f} (as written)")  # noqa: B023 - called at once
    lines = ["# Hierarchical Translation-Rotation file (mocap_io)", "[Header]", "# KeyWord<space>Value"]
    lines += [f"{k} {v}" for k, v in merged.values()]
    if file_type != "gtr":
        lines += ["[SegmentNames&Hierarchy]", "# ObjectName<tab>ParentObjectName"]
        lines += [f"{names[j]}\t{names[p] if (p := motion.skeleton.parents[j]) >= 0 else 'GLOBAL'}" for j in file_order]
    lines += ["[BasePosition]", "#SegmentName\tTx\tTy\tTz\tRx\tRy\tRz\tBoneLength"]
    rows = np.column_stack([motion.skeleton.offsets, unit(_base_angles(motion, order)), lengths])[file_order]
    numbers = format_table(rows, precision, separator="\t").decode().splitlines()
    lines += [f"{names[j]}\t{text}" for j, text in zip(file_order, numbers)]
    lines.append("#Beginning of Data.")
    frames = first_frame + np.arange(motion.frame_count, dtype=float)
    scales = np.ones(motion.euler.shape[:2]) if motion.scales is None else motion.scales
    with atomic_write(path) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))
        for j in file_order:
            f.write(f"[{names[j]}]\n#Fr\tTx\tTy\tTz\tRx\tRy\tRz\tSF\n".encode())
            table = np.column_stack([frames, moves[:, j], angles[:, j], scales[:, j]])
            for block in format_blocks(table, precision, separator="\t", whole=1):
                f.write(block)
        f.write(b"[EndOfFile]\n")


def write_gtr(motion: Motion, path: str | os.PathLike, **options) -> None:
    """Write `motion` to a GTR file: every segment global (see write_htr for the options)."""
    write_htr(motion, path, file_type="gtr", **options)


def _header(motion, written, header, reading, file_type):
    """{lower-case keyword: [keyword, value]}: the header as `written` (else the defaults) with the
    keywords of `header` over it, counts, rate and rotation order from the motion."""
    merged = {k.lower(): [k, v] for k, v in written}
    for key in HEADER_KEYS:
        merged.setdefault(key.lower(), [key, DEFAULTS.get(key, "")])
    for key, value in header.items():
        merged.setdefault(key.lower(), [key, ""])[1] = str(value)
    computed = {"FileType": file_type, "NumSegments": motion.skeleton.joint_count, "NumFrames": motion.frame_count}
    computed["DataFrameRate"] = _rate_text(motion, merged["dataframerate"][1])
    if "eulerrotationorder" not in {key.lower() for key in header}:
        first = motion.euler_orders[0] if motion.skeleton.joint_count else "ZYX"
        computed["EulerRotationOrder"] = first if reading == "product" else first[::-1]
    for key, value in computed.items():
        merged[key.lower()][1] = str(value)
    return merged


def _base_angles(motion, order):
    """(J, 3) base rotation angles Rx Ry Rz (radians) of the rest rotations, in `order`."""
    out = np.zeros((motion.skeleton.joint_count, 3))
    if motion.skeleton.rest_rotations is not None:
        out[:, ["XYZ".index(a) for a in order]] = rotations.matrix_to_euler(motion.skeleton.rest_rotations, order)
    return out


def _rate_text(motion, text):
    """DataFrameRate: `text` (as read) while it stands for the rate, else the standard rate a
    BVH Frame Time stands for when whole, else the rate itself (whole rates print as integers:
    readers parse DataFrameRate with atoi)."""
    if parse_number(text) == motion.fps:
        return text
    rate = motion.fps
    if stands_for(motion.frame_time_text, rate):
        rate = float(snap_rate(motion.frame_time_text))
    return shortest(rate)  # whole rates as integers: readers parse DataFrameRate with atoi


def _require_bounded(motion, names):
    """Raise ValueError naming the segment (and frame) of a number that is not finite or beyond
    errors.LARGEST, or a rate outside errors.RATES (what the reader accepts)."""
    s = motion.skeleton
    require_rate(motion.fps, "DataFrameRate")
    require_bounded(s.offsets, lambda j, axis: f"base T{'xyz'[axis]} of segment {names[j]!r}")
    require_bounded(motion.euler, lambda f, j, i: f"rotation {i + 1} of segment {names[j]!r} at frame {f}")
    require_bounded(motion.translations, lambda f, j, axis: f"T{'xyz'[axis]} of segment {names[j]!r} at frame {f}")
    if motion.scales is not None:
        require_bounded(motion.scales, lambda f, j: f"SF of segment {names[j]!r} at frame {f}")
    if s.rest_rotations is not None:
        require_bounded(s.rest_rotations, lambda j, *_: f"base rotation of segment {names[j]!r}")
