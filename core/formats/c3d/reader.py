"""C3D reader: the 512-byte header, the parameter section, and the data section read as one numpy
array (a record per frame: points then analog samples), for every processor type and storage.

Where the header and the parameters disagree, the reader decides by what the data section holds
and warns (see docs/markers.md for the cases found in real files).
"""

import warnings

import numpy as np

from ...errors import (
    LARGEST,
    FileWarning,
    FrameCountWarning,
    ParseError,
    beyond,
    check_bound,
    check_memory,
    check_rate,
    first_beyond,
)
from ...inputs import read_input
from ...markers import Analog, Event, Markers
from ...parallel import parallel_map
from .params import BLOCK, DEC, PROCESSORS, byte_order, floats, read_parameters, vax_to_ieee

_CHUNK = 1 << 22  # bytes of the data section decoded per task
_FRAMES_CAP = 65535  # the 16-bit frame counts of the header and of an integer POINT:FRAMES
_INTEGERS = 65536  # integer storage: the scales multiply 16-bit words (and residual bytes)
_BYTES_PER_EMPTY_FRAME = 8  # a frame of no points and no analog: its time, where a caller asks for it


def read_c3d(path, *, strict=False):
    """Read a C3D file into Markers (positions in POINT:UNITS, float32 as stored or scaled).

    strict  if True, parameter next-pointers that disagree with the parameter sizes, and a file
            that ends inside a frame, raise ParseError; by default the pointers are followed and
            the whole frames read, with a warning (real files from OptiTrack and others need the
            pointers; see docs/markers.md)
    """
    data = read_input(path)
    if len(data) < BLOCK:
        what = "empty file" if not data else f"file of {len(data)} bytes"
        raise ParseError(path, f"{what}: expected a 512-byte C3D header", offset=len(data))
    if data[1] != 0x50:
        raise ParseError(path, f"header byte 2 is {data[1]}, expected 80 (0x50): not a C3D file", offset=1)
    if data[0] < 2:
        raise ParseError(path, f"parameter section at block {data[0]}: expected block 2 or later", offset=0)
    groups, processor = read_parameters(data, (data[0] - 1) * BLOCK, path, strict)
    return _Reader(path, data, groups, processor, strict).markers()


def _header(data, processor):
    order = byte_order(processor)
    words = np.frombuffer(data, order + "u2", 256)
    scale, rate = floats(data, processor, 1, 12)[0], floats(data, processor, 1, 20)[0]
    events = min(int(words[150]), 18)  # the header holds up to 18 events
    return {
        "points": int(words[1]),
        "analog_per_frame_total": int(words[2]),
        "first_frame": int(words[3]),
        "last_frame": int(words[4]),
        "max_gap": int(words[5]),
        "scale": float(scale),
        "data_start": int(words[8]),
        "analog_per_frame": int(words[9]),
        "rate": float(rate),
        "event_times": floats(data, processor, events, 304).astype(float).tolist(),
        "event_labels": [data[396 + 4 * i : 400 + 4 * i].decode("latin-1").strip(" \0") for i in range(events)],
        "event_flags": list(data[376 : 376 + events]),
    }


class _Reader:
    def __init__(self, path, data, groups, processor, strict):
        self.path, self.data, self.groups, self.processor = path, data, groups, processor
        self.strict = strict
        self.header = _header(data, processor)
        self.order = byte_order(processor)

    def param(self, group, name, default=None):
        parameter = self.groups.get(group, {}).get(name)
        return default if parameter is None else parameter.value

    def offset(self, group, name, default):
        """Byte offset of the value of a parameter as read, else `default` (the header's copy)."""
        parameter = self.groups.get(group, {}).get(name)
        return default if parameter is None or parameter.offset is None else parameter.offset

    def number(self, group, name, default=None):
        """A scalar parameter (the first element), or `default`."""
        value = self.param(group, name)
        if value is None or value.dtype.kind in "US" or value.size == 0:
            return default
        return value.ravel()[0].item()

    def strings(self, group, name, count):
        """`count` strings of NAME, NAME2, NAME3, ... ('' past their end)."""
        out = []
        for suffix in ["", *(str(i) for i in range(2, 1000))]:
            if len(out) >= count:
                break
            value = self.param(group, name + suffix)
            if value is None:
                break
            out += np.atleast_1d(value).ravel().tolist()
        return (out + [""] * count)[:count]

    def warn(self, what, category=FileWarning, **facts):
        warnings.warn(category(f"{self.path}: {what}", **facts), stacklevel=4)

    def markers(self):
        header = self.header
        points = self.number("POINT", "USED", header["points"]) & 0xFFFF
        if points != header["points"]:
            self.warn(f"POINT:USED {points} and the header's {header['points']} points disagree; using POINT:USED")
        scale = self.point_scale()
        rate = self.point_rate()
        channels, per_frame, analog_rate = self.analog_layout(rate)
        word = 4 if scale < 0 else 2
        record = (4 * points + channels * per_frame) * word
        start = self.data_start()
        frames = self.frame_count(record, start)
        names = [n or f"point{i + 1}" for i, n in enumerate(self.strings("POINT", "LABELS", points))]
        positions, residuals, cameras, values = self.section(start, frames, points, channels, per_frame, word, scale)
        analog = None
        if channels:
            analog = Analog(
                values,
                analog_rate,
                [n or f"analog{i + 1}" for i, n in enumerate(self.strings("ANALOG", "LABELS", channels))],
                self.strings("ANALOG", "UNITS", channels),
                self.strings("ANALOG", "DESCRIPTIONS", channels),
            )
        return Markers(
            names,
            positions,
            rate,
            units=self.strings("POINT", "UNITS", 1)[0] or "mm",
            first_frame=self.first_frame(),
            residuals=residuals,
            camera_masks=cameras,
            descriptions=self.strings("POINT", "DESCRIPTIONS", points),
            analog=analog,
            events=self.events(),
            parameters=self.groups,
            metadata={
                "processor": PROCESSORS[self.processor],
                "storage": "float" if word == 4 else "integer",
                "scale": scale,
                "header": header,
            },
        )

    def point_scale(self):
        """The point scale: its sign says the storage (negative: float). POINT:SCALE and the
        header's copy may disagree: integer data is scaled by the header's magnitude (what the
        one such real file's data was written with), float data (where the scale only scales
        residuals) by POINT:SCALE's; see docs/markers.md."""
        header = self.header["scale"]
        scale = self.number("POINT", "SCALE", header)
        for value, where, at in (
            (scale, "POINT:SCALE", self.offset("POINT", "SCALE", 12)),
            (header, "the header's scale", 12),
        ):
            if not np.isfinite(value) or value == 0:
                raise ParseError(self.path, f"{where} is {value}: expected a finite non-zero number", offset=at)
            # it multiplies 16-bit words (integer storage) and residual bytes: the products stay bounded
            check_bound(self.path, value, where, offset=at, bound=LARGEST / _INTEGERS)
        if np.float32(scale) != np.float32(header):
            chosen = np.copysign(header, scale) if scale > 0 else scale
            self.warn(
                f"POINT:SCALE {scale:g} and the header's scale {header:g} disagree; "
                f"{'integer' if scale > 0 else 'float'} storage (the sign of POINT:SCALE), scale {chosen:g}"
            )
            scale = chosen
        return float(np.float32(scale))

    def point_rate(self):
        header = self.header["rate"]
        rate = self.number("POINT", "RATE", header)
        if not (np.isfinite(rate) and rate > 0):
            rate = header
        if not (np.isfinite(rate) and rate > 0):
            raise ParseError(
                self.path, f"frame rate {rate}: expected a positive number (POINT:RATE or header)", offset=20
            )
        at = self.offset("POINT", "RATE", None)
        if at is None or rate != self.number("POINT", "RATE"):  # the header's rate is the one used
            check_rate(self.path, rate, "the header's frame rate", offset=20)
        check_rate(self.path, rate, "POINT:RATE", offset=at)
        if header != rate and np.isfinite(header) and header > 0:
            self.warn(f"POINT:RATE {rate:g} and the header's rate {header:g} disagree; using POINT:RATE")
        return float(rate)

    def analog_layout(self, rate):
        """(channels, samples per frame, analog rate) from ANALOG:USED and ANALOG:RATE, else the header."""
        header = self.header
        channels = self.number("ANALOG", "USED", None)
        per_frame = header["analog_per_frame"]
        if channels is None:
            channels = header["analog_per_frame_total"] // per_frame if per_frame else 0
        channels &= 0xFFFF
        analog_rate = self.number("ANALOG", "RATE", None)
        if analog_rate is not None and analog_rate > 0 and np.isfinite(analog_rate):
            from_rate = round(analog_rate / rate)
            if from_rate != per_frame and channels:
                self.warn(
                    f"ANALOG:RATE / POINT:RATE is {from_rate}, the header says {per_frame} analog samples "
                    f"per frame; using {from_rate}"
                )
            per_frame = from_rate
        if channels and per_frame < 1:
            raise ParseError(self.path, f"{channels} analog channels but no analog samples per frame", offset=18)
        if not channels:
            per_frame = 0
        elif analog_rate is not None and analog_rate > 0 and np.isfinite(analog_rate):
            check_rate(self.path, rate * per_frame, "ANALOG:RATE", offset=self.offset("ANALOG", "RATE", 18))
        else:
            check_rate(self.path, rate * per_frame, "the header's analog samples per frame x rate", offset=18)
        return int(channels), int(per_frame), float(rate * per_frame)

    def data_start(self):
        """Byte offset of the data section: POINT:DATA_START, else the header's block."""
        header = self.header["data_start"]
        block = self.number("POINT", "DATA_START", header) & 0xFFFF
        if block != header:
            self.warn(f"POINT:DATA_START {block} and the header's data block {header} disagree; using POINT:DATA_START")
        if block < 2:
            raise ParseError(self.path, f"data section at block {block}: expected block 3 or later", offset=16)
        return (block - 1) * BLOCK

    def declared_frames(self):
        """The frame count the parameters declare (c3d.org's rules), else the header's."""
        frames = self.param("POINT", "FRAMES")
        if frames is None or not frames.size:
            return self.header["last_frame"] - self.header["first_frame"] + 1
        count = int(frames.ravel()[0]) & 0xFFFF if frames.dtype.kind == "i" else int(frames.ravel()[0])
        if count == _FRAMES_CAP:
            start, end = self.param("TRIAL", "ACTUAL_START_FIELD"), self.param("TRIAL", "ACTUAL_END_FIELD")
            long_frames = self.number("POINT", "LONG_FRAMES")
            if start is not None and end is not None and start.size == end.size == 2:
                count = _u32(end) - _u32(start) + 1
            elif long_frames is not None:
                count = int(long_frames)
        return count

    def frame_count(self, record, start):
        """The declared frame count, checked against the bytes the data section holds."""
        if start >= len(self.data) and record:
            raise ParseError(self.path, f"the data section starts at byte {start}, past the end of the file", offset=16)
        held = (len(self.data) - start) // record if record else 0
        declared = max(self.declared_frames(), 0)
        header = self.header["last_frame"] - self.header["first_frame"] + 1
        if record == 0:  # frames of no points and no analog hold no bytes: the count alone, bounded
            check_memory(
                self.path,
                declared * _BYTES_PER_EMPTY_FRAME,
                len(self.data),
                f"{declared} frames declared of no points and no analog",
                offset=self.offset("POINT", "FRAMES", 8),
                why=f" at {_BYTES_PER_EMPTY_FRAME} bytes a frame",
            )
            return declared
        if declared > held:
            cut = start + held * record
            if cut < len(self.data) and self.strict:
                raise ParseError(
                    self.path,
                    f"file ends inside frame {held + 1} of the {declared} declared (strict=False reads {held})",
                    offset=len(self.data),
                )
            self.warn(
                f"{declared} frames declared, the data section holds {held}: reading {held}",
                FrameCountWarning,
                declared=declared,
                kept=held,
            )
            return held
        if declared == _FRAMES_CAP and (held - declared) * record >= BLOCK:
            self.warn(
                f"{declared} frames declared (the 16-bit limit), the data section holds {held}: reading {held}",
                FrameCountWarning,
                declared=declared,
                kept=held,
            )
            return held
        if header != declared and self.header["last_frame"] != _FRAMES_CAP and 0 < header:
            self.warn(
                f"the header's frames {self.header['first_frame']}..{self.header['last_frame']} ({header}) and "
                f"the parameters' {declared} disagree; the data section holds {held}: reading {declared}"
            )
        return declared

    def first_frame(self):
        start = self.param("TRIAL", "ACTUAL_START_FIELD")
        if start is not None and start.size == 2:
            return _u32(start)
        return self.header["first_frame"]

    def section(self, start, frames, points, channels, per_frame, word, scale):
        """Positions, residuals, camera masks and analog values of every frame: the data section as
        one array, decoded in chunks of frames on parallel threads."""
        columns = 4 * points + channels * per_frame
        record = columns * word
        positions = np.empty((frames, points, 3), np.float32)
        residuals = np.empty((frames, points), np.float32)
        cameras = np.empty((frames, points), np.uint8)
        values = np.empty((frames * per_frame, channels), np.float32)
        offsets, factors, unsigned = self.analog_scaling(channels, word)
        step = max(1, _CHUNK // max(record, 1))

        def decode(first):
            last = min(first + step, frames)
            table = self.table(start + first * record, last - first, columns, word)
            quads = table[:, : 4 * points].reshape(len(table), points, 4)
            chunk = positions[first:last]
            np.multiply(quads[..., :3], np.float32(scale) if word == 2 else np.float32(1), out=chunk, casting="unsafe")
            words = quads[..., 3].astype(np.int32)  # float storage: the float holds the integer word
            invalid = words < 0
            finite = word == 2 or _bounded(chunk) or _bounded(chunk[~invalid])  # seen markers
            np.multiply(words & 0xFF, np.float32(abs(scale)), out=residuals[first:last], casting="unsafe")
            np.bitwise_and(words >> 8, 0x7F, out=cameras[first:last], casting="unsafe")
            chunk[invalid] = np.nan
            residuals[first:last][invalid] = np.nan
            cameras[first:last][invalid] = 0
            if channels:
                raw = table[:, 4 * points :].reshape(-1, channels)
                out = values[first * per_frame : last * per_frame]
                if unsigned:
                    raw = raw.view(np.uint16)
                if factors is None:
                    out[:] = raw
                else:
                    np.multiply(raw - offsets, factors, out=out, casting="unsafe")
                finite = finite and (word == 2 and factors is None or _bounded(out))
            return finite, invalid

        for first, (finite, invalid) in zip(range(0, frames, step), parallel_map(decode, range(0, frames, step))):
            if not finite:
                self.non_finite(positions, invalid, values, first, step, start, record, 4 * points * word, per_frame)
        return positions, residuals, cameras, values

    def table(self, start, frames, columns, word):
        """(frames, columns) raw data: int16 or float32 (decoded, native order)."""
        count = frames * columns
        if word == 2:
            raw = np.frombuffer(self.data, self.order + "i2", count, start)
        elif self.processor == DEC:
            raw = vax_to_ieee(np.frombuffer(self.data, "<u4", count, start))
        else:
            raw = np.frombuffer(self.data, self.order + "f4", count, start)
        return raw.reshape(frames, columns)

    def non_finite(self, positions, invalid, values, first, step, start, record, analog_start, per_frame):
        """Raise ParseError at the first coordinate of a seen marker, or analog value, in the chunk
        of frames starting at `first` that is not finite or beyond errors.LARGEST."""
        chunk = positions[first : first + step]
        bad = first_beyond(np.where(invalid[..., None], 0, chunk))
        if bad is not None:
            frame, point, axis = bad
            raise ParseError(
                self.path,
                beyond(f"frame {first + frame + 1}, point {point + 1}: coordinate {'XYZ'[axis]}", chunk[bad]),
                offset=start + (first + frame) * record + (4 * point + axis) * 4,
            )
        samples = values[first * per_frame : (first + step) * per_frame]
        bad = first_beyond(samples)
        assert bad is not None, "decode found a number beyond bounds in this chunk: not a marker's, so an analog one"
        sample, channel = bad
        frame, sub = divmod(sample, per_frame)
        raise ParseError(
            self.path,
            beyond(f"analog channel {channel + 1}, sample {first * per_frame + sample + 1}", samples[sample, channel]),
            offset=start + (first + frame) * record + analog_start + 4 * (sub * values.shape[1] + channel),
        )

    def analog_scaling(self, channels, word):
        """(offsets, factors, unsigned) of the analog channels: value = (raw - offset) * factor,
        factor = SCALE x GEN_SCALE; factors None when every offset is 0 and every factor 1."""
        unsigned = word == 2 and self.strings("ANALOG", "FORMAT", 1)[0].upper().startswith("UNSIGNED")
        offsets = self.channel_numbers("OFFSET", channels, 0.0)
        if unsigned:
            offsets = np.where(offsets < 0, offsets + 65536, offsets)  # 16-bit offsets of unsigned samples
        factors = self.channel_numbers("SCALE", channels, 1.0) * self.number("ANALOG", "GEN_SCALE", 1.0)
        for name, numbers in (("OFFSET", offsets), ("SCALE", factors)):
            bad = first_beyond(numbers)
            if bad is not None:
                what = f"ANALOG:{name} of channel {bad[0] + 1}" + " x GEN_SCALE" * (name == "SCALE")
                raise ParseError(self.path, beyond(what, numbers[bad]), offset=self.offset("ANALOG", name, BLOCK))
        if not offsets.any() and (factors == 1).all():
            return offsets, None, unsigned
        return offsets, factors, unsigned

    def channel_numbers(self, name, count, default):
        """ANALOG:SCALE or OFFSET (and SCALE2, ...) for `count` channels, `default` past their end."""
        out = []
        for suffix in ["", *(str(i) for i in range(2, 1000))]:
            value = self.param("ANALOG", name + suffix)
            if value is None or len(out) >= count:
                break
            out += np.ravel(value).astype(float).tolist()
        return np.array((out + [default] * count)[:count], dtype=float)

    def events(self):
        """The EVENT group's events, else the header's."""
        used = self.number("EVENT", "USED", 0)
        times = self.param("EVENT", "TIMES")
        if used and times is not None and times.size >= 2 * used:
            seconds = times.reshape(-1, 2)[:used].astype(float) @ [60.0, 1.0]
            at = self.offset("EVENT", "TIMES", BLOCK)
            check_bound(self.path, seconds, lambda k: f"EVENT:TIMES of event {k + 1} (seconds)", offset=at)
            labels = self.strings("EVENT", "LABELS", used)
            contexts = self.strings("EVENT", "CONTEXTS", used)
            descriptions = self.strings("EVENT", "DESCRIPTIONS", used)
            return [Event(float(t), *rest) for t, *rest in zip(seconds, labels, contexts, descriptions)]
        header = self.header
        check_bound(self.path, header["event_times"], lambda k: f"the header's time of event {k + 1}", offset=304)
        return [Event(t, label) for t, label in zip(header["event_times"], header["event_labels"])]


def _bounded(values):
    """Whether every value is finite and at most errors.LARGEST in magnitude (NaN fails both tests)."""
    return not values.size or bool(values.max() <= LARGEST and values.min() >= -LARGEST)


def _u32(words):
    """A 32-bit unsigned count stored as two 16-bit words (low word first)."""
    low, high = (int(w) & 0xFFFF for w in np.ravel(words)[:2])
    return low | high << 16
