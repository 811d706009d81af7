"""The formats wing: one module (or package) per file format, and the registry behind
`core.read` / `core.write`, which choose the format module by file extension."""

import importlib
import os

# extension -> (module inside core.formats, reader function, writer function or None)
_FORMATS = {
    ".bvh": ("bvh", "read_bvh", "write_bvh"),
    ".htr": ("htr", "read_htr", "write_htr"),
    ".gtr": ("htr", "read_htr", "write_gtr"),
    ".c3d": ("c3d", "read_c3d", "write_c3d"),
    ".trc": ("trc", "read_trc", "write_trc"),
    ".asf": ("asf", "read_acclaim", "write_acclaim"),
    ".amc": ("asf", "read_acclaim", "write_amc"),
    ".obj": ("obj", "read_obj", "write_obj"),
    ".memg": ("memg", "read_memg", "write_memg"),
}


def _entry(path, index, verb):
    ext = os.path.splitext(str(path))[1].lower()
    try:
        module, *functions = _FORMATS[ext]
    except KeyError:
        known = ", ".join(sorted(_FORMATS))
        raise ValueError(f"{path}: cannot {verb} '{ext or 'no extension'}' files (known: {known})") from None
    if functions[index] is None:
        raise ValueError(f"{path}: {verb} is not supported for '{ext}' files")
    return getattr(importlib.import_module("." + module, __package__), functions[index])


def read(path, **options):
    """Read a motion, marker or mesh file; the reader is chosen by extension (.bvh, .htr, .gtr, .c3d, .trc, .obj,
    .memg)."""
    """Read a motion or mesh file; the reader is chosen by extension (.bvh, .asf, .amc, .obj, .memg)."""
    return _entry(path, 0, "read")(path, **options)


def write(data, path, **options):
    """Write `data` (a Motion, Markers, Mesh or MeshAnimation) to `path`; the writer is chosen by extension.

    Returns what the writer returns (for .memg: the encoded MeshAnimation, with its `max_error`).
    """
    return _entry(path, 1, "write")(data, path, **options)
