"""The formats wing: one module (or package) per file format, and the registry behind
`core.read` / `core.write`, which choose the format module by file extension.

A file name with a run of `#` (``frame_####.obj``) names a sequence, one file per frame, the
frame number in place of the `#`s (zero-padded to their count): OBJ sequences read and write mesh
animations that way, and the RIB writer writes one file per frame.
"""

import importlib
import os
from typing import Any

from ..markers import Markers
from ..mesh import Mesh, MeshAnimation
from ..motion import Motion

MODELS = (Motion, Markers, Mesh, MeshAnimation)

# extension -> (module inside core.formats, reader function or None, writer function or None, what the writer takes)
_FORMATS = {
    ".bvh": ("bvh", "read_bvh", "write_bvh", (Motion,)),
    ".htr": ("htr", "read_htr", "write_htr", (Motion,)),
    ".gtr": ("htr", "read_htr", "write_gtr", (Motion,)),
    ".asf": ("asf", "read_acclaim", "write_acclaim", (Motion,)),
    ".amc": ("asf", "read_acclaim", "write_amc", (Motion,)),
    ".c3d": ("c3d", "read_c3d", "write_c3d", (Markers,)),
    ".trc": ("trc", "read_trc", "write_trc", (Markers,)),
    ".obj": ("obj", "read_obj", "write_obj", (Mesh,)),
    ".memg": ("memg", "read_memg", "write_memg", (MeshAnimation,)),
    ".famc": ("famc", "read_famc", "write_famc", (MeshAnimation,)),
    ".pc2": ("pc2", "read_pc2_animation", "write_pc2_animation", (MeshAnimation,)),
    ".rib": ("rib", None, "write_rib", MODELS),
}
_SEQUENCES = {".obj": ("obj", "read_obj_sequence", "write_obj_sequence", (MeshAnimation,))}  # "frame_####.obj"


def is_sequence(path):
    """Whether `path` names a sequence of files: its file name holds a run of '#'."""
    return "#" in os.path.basename(str(path))


def _row(path):
    ext = os.path.splitext(str(path))[1].lower()
    row = (_SEQUENCES if is_sequence(path) and ext in _SEQUENCES else _FORMATS).get(ext)
    return ext, row


def _entry(path, index, verb):
    ext, row = _row(path)
    if row is None:
        known = ", ".join(extensions("write" if index else "read"))
        raise ValueError(f"{path}: cannot {verb} '{ext or 'no extension'}' files (known: {known})")
    module, *functions, _ = row
    if functions[index] is None:
        raise ValueError(f"{path}: {verb} is not supported for '{ext}' files")
    return getattr(importlib.import_module("." + module, __package__), functions[index])


def reader(path):
    """The reader function for `path`, chosen by extension (ValueError if there is none)."""
    return _entry(path, 0, "read")


def writer(path):
    """The writer function for `path`, chosen by extension (ValueError if there is none)."""
    return _entry(path, 1, "write")


def writes(path):
    """The model classes (Motion, Markers, Mesh, MeshAnimation) a writer for `path` takes; () if none."""
    _, row = _row(path)
    return row[3] if row is not None and row[2] is not None else ()


def reads(path):
    """The model class the reader for `path` returns (every reader returns what its writer takes), or None."""
    _, row = _row(path)
    return row[3][0] if row is not None and row[1] is not None else None


def extensions(verb):
    """Sorted extensions that can be read (`verb` "read") or written ("write")."""
    index = {"read": 1, "write": 2}[verb]
    return sorted(ext for ext, row in _FORMATS.items() if row[index] is not None)


def read(path: str | os.PathLike, **options: Any) -> Motion | Markers | Mesh | MeshAnimation:
    """Read a motion, markers, a mesh or a mesh animation; the reader is chosen by extension.

    Parameters
    ----------
    path : str or os.PathLike
        A motion (.bvh, .htr, .gtr, .asf, .amc), markers (.c3d, .trc), a mesh (.obj) or a mesh
        animation (.memg, .famc, .pc2, an OBJ sequence "frame_####.obj").
    **options
        The reader's own options (see its format's module), e.g. ``strict=False`` for BVH.

    Returns
    -------
    Motion, Markers, Mesh or MeshAnimation
        What the extension holds (`reads` tells which).

    Raises
    ------
    ParseError
        A ValueError naming the file, line or byte offset, and what was expected.
    ValueError
        If no reader handles the extension.
    OSError
        If the file cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from mocap_io import core
    >>> skeleton = core.Skeleton(["root"], [-1], [[0, 0, 0]], channels=[["Xposition", "Yposition", "Zposition"]])
    >>> slide = np.arange(4.0)[:, None, None] * [1, 0, 0]  # (4 frames, 1 joint, 3)
    >>> motion = core.Motion(skeleton, 30, np.zeros((4, 1, 3)), ["XYZ"], slide)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     core.write(motion, os.path.join(folder, "slide.bvh"))
    ...     again = core.read(os.path.join(folder, "slide.bvh"))
    >>> again
    <Motion 1 joints x 4 frames at 30 fps>
    >>> again.translations[:, 0, 0]
    array([0., 1., 2., 3.])
    """
    return reader(path)(path, **options)


def write(data: Motion | Markers | Mesh | MeshAnimation, path: str | os.PathLike, **options: Any) -> Any:
    """Write a Motion, Markers, Mesh or MeshAnimation; the writer is chosen by extension.

    Every writer replaces its files atomically: on an error, files already there are left as they were.

    Parameters
    ----------
    data : Motion, Markers, Mesh or MeshAnimation
        What to write (`writes` tells which models the extension takes).
    path : str or os.PathLike
        The output file; a name with a run of '#' names a sequence, one file per frame (OBJ, RIB).
    **options
        The writer's own options (see its format's module), e.g. ``precision=4`` for BVH.

    Returns
    -------
    object
        What the writer returns: for .memg and .famc the encoded MeshAnimation, with its
        `max_error`; for .rib the paths written; None for the other formats.

    Raises
    ------
    ValueError
        If no writer handles the extension, or the data holds what a reader would refuse.

    Examples
    --------
    See `read`.
    """
    return writer(path)(data, path, **options)
