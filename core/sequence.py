"""File sequences, one file per frame: a run of '#' in the file name stands for the frame number,
zero-padded to the run's length (Blender's convention: ``frame_####.obj`` -> ``frame_0001.obj``)."""

import os
import re

_RUN = re.compile(r"#+")


def _split(pattern):
    """(folder, text before the last '#' run, run length, text after it) of a file name pattern."""
    folder, name = os.path.split(os.fspath(pattern))
    runs = list(_RUN.finditer(name))
    if not runs:
        raise ValueError(f"{pattern}: a sequence needs a run of '#' in the file name for the frame number")
    run = runs[-1]
    return folder, name[: run.start()], run.end() - run.start(), name[run.end() :]


def frame_path(pattern, number):
    """The path of frame `number` (an int >= 0) of the sequence `pattern`."""
    folder, before, width, after = _split(pattern)
    return os.path.join(folder, f"{before}{number:0{width}d}{after}")


def find_frames(pattern):
    """[(frame number, path)] of the files of sequence `pattern` that exist, in frame order; the
    number takes at least as many digits as the '#' run has. FileNotFoundError if there are none,
    ValueError if two files hold one frame (frame_01 and frame_001)."""
    folder, before, width, after = _split(pattern)
    match = re.compile(re.escape(before) + "([0-9]{" + str(width) + ",})" + re.escape(after) + r"\Z")
    try:
        names = os.listdir(folder or ".")
    except FileNotFoundError:
        names = []
    found = sorted((int(m.group(1)), os.path.join(folder, name)) for name in names if (m := match.match(name)))
    if not found:
        raise FileNotFoundError(f"{pattern}: no files of this sequence ({frame_path(pattern, 1)}, ...)")
    twins = [b for a, b in zip(found, found[1:]) if a[0] == b[0]]
    if twins:
        raise ValueError(f"{pattern}: two files of frame {twins[0][0]} ({twins[0][1]} and another)")
    return found
