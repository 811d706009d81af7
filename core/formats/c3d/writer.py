"""C3D writer: Intel processor, float storage. The parameters as read are written back, with the
ones that describe the data (POINT, ANALOG, EVENT, TRIAL frame fields) rewritten from the model."""

import warnings

import numpy as np

from ...atomic import atomic_write
from ...errors import LARGEST, require_bounded, require_rate
from ...markers import Group, Parameter
from .params import BLOCK, INTEL

_FRAMES_CAP = 65535
_FIELD_CAP = (1 << 32) - 1  # TRIAL:ACTUAL_START_FIELD / END_FIELD: unsigned 32-bit
_SPLIT = 255  # items of one parameter (a dimension is one byte); more go to NAME2, NAME3, ...
# parameters the writer derives from the data (with their NAME2, NAME3, ... continuations)
_DERIVED = {
    "POINT": ("USED", "FRAMES", "LONG_FRAMES", "SCALE", "RATE", "DATA_START", "UNITS", "LABELS", "DESCRIPTIONS"),
    "ANALOG": ("USED", "RATE", "LABELS", "UNITS", "DESCRIPTIONS", "SCALE", "OFFSET", "GEN_SCALE", "FORMAT"),
    "EVENT": ("USED", "TIMES", "LABELS", "CONTEXTS", "DESCRIPTIONS"),
    "TRIAL": ("ACTUAL_START_FIELD", "ACTUAL_END_FIELD"),
}


def write_c3d(markers, path):
    """Write `markers` as a C3D file (Intel, float storage); the file appears only once complete.

    Positions, residuals and analog values are written as float32 (the reader gives them back
    exactly). Residuals are stored as whole multiples of |POINT:SCALE| up to 255 of them (the
    format's byte): the scale as read, else the largest coordinate / 32000 (c3d.org's rule). A number
    a reader would refuse (not finite but a missing marker's NaN, beyond errors.LARGEST; a rate
    outside errors.RATES) is refused, with its place, before anything is opened.
    """
    markers.require_writable()
    positions = markers.positions
    missing = np.isnan(positions).any(axis=2)
    present = np.where(np.isnan(positions), 0, positions)  # NaN: a missing marker
    analog = markers.analog
    if analog is not None:
        require_bounded(analog.values, lambda s, c: f"analog channel {analog.names[c]!r} sample {s}")
    require_bounded([e.time for e in markers.events], lambda e: f"the time of event {markers.events[e].label!r}")
    frames, points = positions.shape[:2]
    per_frame = markers.analog_per_frame
    if analog is not None:
        require_rate(markers.rate * per_frame, "the analog rate")
    channels = 0 if analog is None else len(analog.names)
    scale = _scale(markers, present)
    first = _first_frame(markers, frames)
    groups = _parameters(markers, scale, per_frame, first)
    section = _section(groups)
    data_block = 2 + len(section) // BLOCK
    groups["POINT"]["DATA_START"] = Parameter(
        np.array(data_block, np.int16), "Number of first block for 3D and analog data"
    )
    section = _section(groups)  # same size: only a value changed
    header = _header(markers, scale, data_block, channels * per_frame, per_frame, first)
    record = np.zeros((frames, 4 * points + channels * per_frame), dtype="<f4")
    quads = record[:, : 4 * points].reshape(frames, points, 4)
    quads[..., 3] = _words(markers, missing, scale)
    quads[..., :3] = positions
    quads[missing, :3] = 0
    if channels:
        record[:, 4 * points :] = analog.values.reshape(frames, per_frame * channels)
    with atomic_write(path) as f:
        f.write(header)
        f.write(section)
        if record.size:  # (a memoryview of no bytes cannot be cast)
            f.write(record.data.cast("B"))
        if frames <= _FRAMES_CAP:  # a longer take ends with its last frame: ezc3d reads to the end
            f.write(b"\0" * (-record.nbytes % BLOCK or (0 if record.nbytes else BLOCK)))  # no data: one empty block


def _scale(markers, present):
    """|POINT:SCALE|: the one the reader used, else the largest coordinate / 32000, at most what
    readers accept (LARGEST / 65536: a scale multiplies 16-bit words)."""
    scale = markers.metadata.get("scale")
    if scale:
        return abs(float(np.float32(scale)))
    largest = np.abs(present).max(initial=0.0)
    return float(np.float32(min(largest / 32000, LARGEST / 65536) if largest > 0 else 1.0))


def _words(markers, missing, scale):
    """The fourth word of every point (a float holding the integer): -1 where missing, else the
    camera mask (high byte) and the residual in units of |scale| (low byte)."""
    word = np.zeros(missing.shape, np.float32)
    if markers.residuals is not None:
        residual = np.nan_to_num(np.asarray(markers.residuals, np.float64) / scale, nan=0.0)
        word += np.maximum(np.clip(np.rint(residual), 0, 255), residual > 0)  # above 0 stays so (0: interpolated)
    if markers.camera_masks is not None:
        word += (markers.camera_masks & 0x7F).astype(np.float32) * 256
    word[missing] = -1
    return word


def _first_frame(markers, frames):
    """The first frame number to write: the take's where C3D can hold it (the header's 16-bit word
    from 1, TRIAL:ACTUAL_START_FIELD's 32 bits from 0: a first frame of 0, as TRC files have, is
    kept there), else 1 with a warning."""
    first = markers.first_frame
    if 0 <= first and first + max(frames, 1) - 1 <= _FIELD_CAP:
        return first
    warnings.warn(
        f"C3D cannot hold first frame {first} (frame numbers run from 0 to 2**32 - 1): written as 1", stacklevel=3
    )
    return 1


def _header(markers, scale, data_block, analog_total, per_frame, first):
    first = min(first, _FRAMES_CAP)  # (TRIAL holds the frames past 65535, and frame 0: the c3d package reads both)
    last = max(min(first + markers.frame_count - 1, _FRAMES_CAP), 0)
    header = bytearray(BLOCK)
    words = np.zeros(256, "<u2")
    words[[1, 2, 3, 4, 5, 8, 9]] = [
        markers.marker_count,
        analog_total,
        first,
        last,
        markers.metadata.get("header", {}).get("max_gap", 0),
        data_block,
        per_frame,
    ]
    events = markers.events[:18]
    words[149], words[150] = 0x3039, len(events)
    header[:] = words.tobytes()
    header[0], header[1] = 2, 0x50
    header[12:16] = np.array(-scale, "<f4").tobytes()
    header[20:24] = np.array(markers.rate, "<f4").tobytes()
    header[304 : 304 + 4 * len(events)] = np.array([e.time for e in events], "<f4").tobytes()
    header[376 : 376 + len(events)] = b"\1" * len(events)
    for i, event in enumerate(events):
        header[396 + 4 * i : 400 + 4 * i] = event.label.encode("latin-1", "replace")[:4].ljust(4)
    return bytes(header)


def _parameters(markers, scale, per_frame, first):
    """Groups to write: the ones read, with the data-describing parameters rewritten."""
    groups = {}
    for name, group in markers.parameters.items():
        derived = _DERIVED.get(name, ())
        kept = {k: p for k, p in group.items() if k.rstrip("0123456789") not in derived}
        if name == "EVENT" and _count(group.get("USED")) != len(markers.events):
            kept = {}  # per-event parameters of other events
        groups[name] = Group(kept, description=group.description, locked=group.locked)
    for name in ("POINT", "ANALOG"):
        groups.setdefault(name, Group(description=f"{name.title()} parameters"))
    groups = {"POINT": groups.pop("POINT"), "ANALOG": groups.pop("ANALOG"), **groups}
    frames = markers.frame_count
    point = groups["POINT"]
    point["USED"] = Parameter(np.array(markers.marker_count, np.int16), "Number of points")
    if frames > _FRAMES_CAP:
        point["FRAMES"] = Parameter(np.array(-1, np.int16), "Number of frames (65535: see TRIAL)")
        point["LONG_FRAMES"] = Parameter(np.array(frames, np.float32), "Number of frames")
    else:
        point["FRAMES"] = Parameter(np.array(frames, np.uint16).view(np.int16), "Number of frames")
    point["SCALE"] = Parameter(np.array(-scale, np.float32), "Negative: float storage")
    point["RATE"] = Parameter(np.array(markers.rate, np.float32), "Frames per second")
    point["DATA_START"] = Parameter(np.array(0, np.int16), "Number of first block for 3D and analog data")
    point["UNITS"] = Parameter(np.array(markers.units), "Length unit")
    _strings(point, "LABELS", markers.names, "Marker labels")
    _strings(point, "DESCRIPTIONS", markers.descriptions, "Marker descriptions")
    analog = groups["ANALOG"]
    channels = markers.analog
    count = 0 if channels is None else len(channels.names)
    analog["USED"] = Parameter(np.array(count, np.int16), "Number of analog channels")
    analog["RATE"] = Parameter(np.array(markers.rate * per_frame, np.float32), "Analog samples per second")
    analog["GEN_SCALE"] = Parameter(np.array(1.0, np.float32), "General scale factor")
    analog["FORMAT"] = Parameter(np.array("SIGNED"), "Integer storage: SIGNED or UNSIGNED")
    _numbers(analog, "SCALE", np.ones(count, np.float32), "Channel scale factors")
    _numbers(analog, "OFFSET", np.zeros(count, np.int16), "Channel offsets")
    if channels is not None:
        _strings(analog, "LABELS", channels.names, "Channel labels")
        _strings(analog, "UNITS", channels.units, "Channel units")
        _strings(analog, "DESCRIPTIONS", channels.descriptions, "Channel descriptions")
    if markers.events:
        event = groups.setdefault("EVENT", Group(description="Events"))
        times = np.array([[0.0, e.time] for e in markers.events], np.float32)
        event["USED"] = Parameter(np.array(len(markers.events), np.int16), "Number of events")
        event["TIMES"] = Parameter(times, "Minutes, seconds")
        _strings(event, "LABELS", [e.label for e in markers.events], "Event labels", split=False)
        _strings(event, "CONTEXTS", [e.context for e in markers.events], "Event contexts", split=False)
        _strings(event, "DESCRIPTIONS", [e.description for e in markers.events], "Event descriptions", split=False)
    if frames > _FRAMES_CAP or not 1 <= first <= _FRAMES_CAP or "TRIAL" in groups:
        trial = groups.setdefault("TRIAL", Group(description="Trial"))
        for name, value in (("ACTUAL_START_FIELD", first), ("ACTUAL_END_FIELD", first + max(frames, 1) - 1)):
            trial[name] = Parameter(np.array([value & 0xFFFF, value >> 16], np.uint16).view(np.int16), name.title())
    return groups


def _count(parameter):
    return None if parameter is None or not parameter.value.size else int(parameter.value.ravel()[0])


def _strings(group, name, values, description, split=True):
    chunks = [values[i : i + _SPLIT] for i in range(0, len(values), _SPLIT)] if split else [values]
    for i, chunk in enumerate(chunks or [[]]):
        group[name + (str(i + 1) if i else "")] = Parameter(np.array(list(chunk), dtype=str), description)


def _numbers(group, name, values, description):
    chunks = [values[i : i + _SPLIT] for i in range(0, len(values), _SPLIT)]
    for i, chunk in enumerate(chunks or [values]):
        group[name + (str(i + 1) if i else "")] = Parameter(chunk, description)


def _section(groups):
    """Bytes of the parameter section (whole blocks): its 4-byte header, then the entries."""
    entries = []
    for ident, (name, group) in enumerate(groups.items(), 1):
        entries.append(_entry(name, -ident, group.locked, b"", group.description))
    for ident, group in enumerate(groups.values(), 1):
        for name, parameter in group.items():
            entries.append(_entry(name, ident, parameter.locked, _encode(name, parameter.value), parameter.description))
    body = bytearray(b"\1\x50\0" + bytes([INTEL]))
    for i, (head, rest) in enumerate(entries):
        pointer = 2 + len(rest) if i < len(entries) - 1 else 0
        body += head + np.array(pointer, "<i2").tobytes() + rest
    body += b"\0\0"  # end marker
    body += b"\0" * (-len(body) % BLOCK)
    blocks = len(body) // BLOCK
    if blocks > 255:
        raise ValueError(f"the parameters need {blocks} blocks of 512 bytes: C3D allows 255")
    body[2] = blocks
    return bytes(body)


def _entry(name, ident, locked, payload, description):
    """(name part, rest after the next-pointer) of one group or parameter entry."""
    raw = name.encode("latin-1", "replace")
    if not 0 < len(raw) <= 127:
        raise ValueError(f"C3D parameter and group names have 1 to 127 characters, not {name!r}")
    text = description.encode("latin-1", "replace")[:255]
    head = np.array([-len(raw) if locked else len(raw), ident], "i1").tobytes() + raw
    return head, payload + bytes([len(text)]) + text


def _encode(name, value):
    """Type, dimensions and data of a parameter value (see markers.Parameter)."""
    value = np.asarray(value)
    if value.dtype.kind in "US":
        strings = [s.encode("latin-1", "replace") for s in np.ravel(value).astype(str).tolist()]
        width = max((len(s) for s in strings), default=0)
        dims = (width, *value.shape[::-1]) if value.ndim else (width,)
        kind, data = -1, b"".join(s.ljust(width) for s in strings)
    elif value.dtype.kind == "f":
        kind, data, dims = 4, value.astype("<f4").tobytes(), value.shape[::-1]
    elif value.dtype == np.int8 or value.dtype == np.uint8 or value.dtype == bool:
        kind, data, dims = 1, value.astype(np.uint8).tobytes(), value.shape[::-1]
    elif value.dtype.kind in "iu" and value.size and (value.min() < -32768 or value.max() > 65535):
        kind, data, dims = 4, value.astype("<f4").tobytes(), value.shape[::-1]
    else:
        kind, data, dims = 2, value.astype(np.int64).astype(np.uint16).astype("<u2").tobytes(), value.shape[::-1]
    if len(dims) > 7 or any(d > 255 for d in dims):
        raise ValueError(f"parameter {name}: dimensions {tuple(dims)} exceed C3D's (at most 7, each up to 255)")
    return np.array([kind, len(dims)], "i1").tobytes() + bytes(dims) + data
