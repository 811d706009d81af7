"""`mocap-io info`: what a file holds, as a table or as JSON."""

import os
from typing import Any

import numpy as np

from ..core.figure import Figure
from ..core.formats.famc.container import FamcSource
from ..core.markers import Markers
from ..core.mesh import Mesh, MeshAnimation
from ..core.motion import Motion


def summary(data, path):
    """A JSON-ready dict describing `data` read from `path`: kind, sizes, rate, units, bounds."""
    figure = Figure(data)
    out = {"file": str(path), "format": os.path.splitext(str(path))[1].lstrip(".").lower() or None}
    if isinstance(data, Motion):
        out |= _motion(data)
    elif isinstance(data, Markers):
        out |= _markers(data)
    else:
        out |= _mesh(data)
    if figure.frame_count:
        low, high = figure.bounds()
        out["bounds"] = {"min": _rounded(low), "max": _rounded(high)}
        up = int(np.argmax(np.abs(figure.up)))
        out["up_axis"] = ("-" if figure.up[up] < 0 else "+") + "XYZ"[up]
    return out


def _rounded(values):
    return [float(f"{v:.6g}") for v in values]


def _timing(frames, rate):
    return {"frames": int(frames), "fps": rate, "duration": frames / rate}


def _motion(motion):
    s = motion.skeleton
    layout = {}
    for name, channels in zip(s.names, s.channels):
        layout.setdefault(" ".join(channels), []).append(name)
    depth = np.zeros(s.joint_count, dtype=int)
    for j, p in enumerate(s.parents):
        depth[j] = depth[p] + 1 if p >= 0 else 0
    return {
        "kind": "motion",
        "joints": s.joint_count,
        "roots": [s.names[r] for r in s.roots],
        "end_sites": len(s.end_site_parents),
        "depth": int(depth.max() + 1) if s.joint_count else 0,
        **_timing(motion.frame_count, motion.fps),
        "frame_time_text": motion.frame_time_text,
        "units": length_unit(motion),
        "channels": [{"channels": key.split(), "joints": names} for key, names in layout.items()],
        "scales": motion.scales is not None,
    }


def length_unit(data):
    """The file's length unit as data, {"length": unit, "scale": how many of it one file unit is}:
    HTR CalibrationUnits and the markers' units as stated ({"length": "mm", "scale": 1.0}), an ASF's
    `:units length` in metres ({"length": "m", "scale": 0.05644444444444444} for length 0.45: a unit
    is 1/0.45 inch); None when the file states none (BVH)."""
    if isinstance(data, Markers):
        return {"length": data.units, "scale": 1.0} if data.units else None
    if not isinstance(data, Motion):
        return None
    units = getattr(data.record, "calibration_units", None)  # an HtrRecord's
    if units:
        return {"length": str(units), "scale": 1.0}
    record = data.skeleton.record
    if record is not None and hasattr(record, "metres_per_unit"):  # an ASF skeleton
        return {"length": "m", "scale": float(record.metres_per_unit)}
    return None


def _markers(markers):
    seen = markers.valid
    return {
        "kind": "markers",
        "markers": markers.marker_count,
        **_timing(markers.frame_count, markers.rate),
        "first_frame": markers.first_frame,
        "units": length_unit(markers),
        "missing": float(f"{1 - seen.mean():.4g}") if seen.size else 0.0,
        "analog_channels": 0 if markers.analog is None else len(markers.analog.names),
        "analog_rate": None if markers.analog is None else markers.analog.rate,
        "events": len(markers.events),
    }


def _mesh(data):
    mesh = data if isinstance(data, Mesh) else data.mesh
    out = {
        "kind": "mesh" if isinstance(data, Mesh) else "mesh animation",
        "vertices": len(mesh.vertices),
        "faces": len(mesh.face_sizes),
        "groups": len(mesh.groups),
    }
    if isinstance(data, MeshAnimation):
        out |= _timing(data.frame_count, data.fps)
        out["factored"] = data.factored
        if data.factored:
            out["basis_vectors"] = sum(g.rank for g in data.groups)
        if isinstance(data.source, FamcSource):
            out["segments"] = len(data.source.segments)
            out["byte_order"] = data.source.dialect.name
    return out


def table(info: dict[str, Any]):
    """The summary as aligned `key  value` lines, one per entry."""
    rows = []
    for key, value in info.items():
        if key == "frame_time_text" or (key == "scales" and not value):
            continue
        if key == "units":
            value = "not stated" if value is None else _unit_text(value)
        elif value is None:
            continue
        elif key == "fps" and info.get("frame_time_text"):
            value = f"{value:.10g} (Frame Time {info['frame_time_text']})"
        elif key == "duration":
            value = f"{value:.6g} s"
        elif key == "bounds":
            value = "  ".join(f"{a} {lo:g} .. {hi:g}" for a, lo, hi in zip("xyz", value["min"], value["max"]))
        elif key == "channels":
            value = "; ".join(f"{len(c['joints'])} x {' '.join(c['channels']) or '(none)'}" for c in value)
        elif key == "roots":
            value = ", ".join(value)
        elif isinstance(value, float):
            value = f"{value:.10g}"
        rows.append((key.replace("_", " "), str(value)))
    width = max(len(key) for key, _ in rows)
    return "".join(f"{key:<{width}}  {value}\n" for key, value in rows)


def _unit_text(unit):
    """ "mm", or "0.0564444 m" for a unit of another size."""
    return unit["length"] if unit["scale"] == 1 else f"{unit['scale']:g} {unit['length']}"
