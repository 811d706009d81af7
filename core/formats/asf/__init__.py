"""Acclaim skeleton (.asf) and motion (.amc) files: reader and writer.

core.read("x.asf")                        a Motion of no frames (the skeleton in its rest pose)
core.read("x.asf", motion="y.amc")        a Motion; motion=[paths] gives Motions sharing one Skeleton
core.read("y.amc")                        the same, with the one .asf beside it (or skeleton=...)
core.write(motion, "x.asf")               x.asf and x.amc, replaced together (amc=... names the AMC)
read_asf(path) / read_amc(path, skeleton) the Skeleton alone, and Motions of one Skeleton
"""

import errno
import os
import pathlib
from collections.abc import Sequence
from functools import partial

import numpy as np

from ...inputs import missing_companion, read_companion
from ...motion import Motion
from ...skeleton import Skeleton
from .reader_amc import DEFAULT_FPS, read_amc
from .reader_asf import AsfBone, AsfRecord, read_asf
from .writer import write_acclaim, write_amc

__all__ = ["AsfBone", "AsfRecord", "find_asf", "read_acclaim", "read_amc", "read_asf", "write_acclaim", "write_amc"]


def read_acclaim(
    path: str | os.PathLike,
    *,
    motion: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
    skeleton: str | os.PathLike | Skeleton | None = None,
    metres: bool = False,
    fps: float | None = None,
    fill_missing: bool = False,
) -> Motion | list[Motion]:
    """Read an .asf (with `motion`: the .amc path, or a list of them) or an .amc (with `skeleton`:
    an .asf path or a Skeleton from read_asf; by default the .asf beside it, see find_asf).

    Returns a Motion (of no frames for an .asf alone), or a list of Motions sharing one Skeleton.
    metres=True gives lengths in metres (see AsfRecord.metres_per_unit); fps and fill_missing are
    read_amc's.
    """
    amc = {"fps": fps, "fill_missing": fill_missing}
    if os.path.splitext(str(path))[1].lower() == ".amc":
        if motion is not None:
            raise ValueError(f"{path}: motion= goes with an .asf; an .amc takes skeleton=")
        if skeleton is None:
            skeleton = find_asf(path)
        if isinstance(skeleton, Skeleton):
            if metres:
                raise ValueError("metres=True applies to an .asf read here, not to a Skeleton already read")
        else:
            read = partial(read_asf, metres=metres)
            skeleton = read_companion(read, skeleton, path, "skeleton", 'skeleton="x.asf"')
        return read_amc(path, skeleton, **amc)
    if skeleton is not None:
        raise ValueError(f"{path}: skeleton= goes with an .amc; an .asf takes motion=")
    skeleton = read_asf(path, metres=metres)
    if motion is None:
        return Motion(skeleton, DEFAULT_FPS if fps is None else fps, *_still(skeleton))
    if isinstance(motion, (str, os.PathLike)):
        return read_amc(motion, skeleton, **amc)
    return [read_amc(m, skeleton, **amc) for m in motion]


def find_asf(amc: str | os.PathLike) -> pathlib.Path:
    """The .asf for an .amc: the only one in its folder, else the one with the longest name that
    begins the AMC's (02.asf for 02_03.amc, as CMU and HDM05 name them); else ValueError (several
    could be), or FileNotFoundError (none) naming `<folder>/*.asf` as the .amc's missing skeleton."""
    amc = pathlib.Path(amc)
    if not amc.exists():  # the .amc itself first: no skeleton is missing for a file that is not there
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(amc))
    folder = amc.parent
    found = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".asf" and p.is_file())
    if len(found) == 1:
        return found[0]
    named = [p for p in found if amc.stem.lower().startswith(p.stem.lower())]
    longest = [p for p in named if len(p.stem) == max(len(q.stem) for q in named)]
    if len(longest) == 1:
        return longest[0]
    if not found:
        raise missing_companion(folder / "*.asf", amc, "skeleton", 'skeleton="x.asf"', " (no .asf file in its folder)")
    shown = ", ".join(p.name for p in (named or found)[:5])
    raise ValueError(
        f"{amc}: {len(named or found)} .asf files in {folder} could be its skeleton ({shown}): pass skeleton="
    )


def _still(skeleton):
    """Euler angles, orders and translations of no frames."""
    count = skeleton.joint_count
    return np.zeros((0, count, 3)), skeleton.euler_orders(), np.zeros((0, count, 3))
