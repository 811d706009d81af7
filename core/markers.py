"""Markers: labelled 3D points over frames (C3D, TRC), with residuals, analog channels, events and
the file's parameters as read."""

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .errors import require_bounded, require_rate


@dataclasses.dataclass
class Parameter:
    """One C3D parameter as read: `value` is a numpy array in C order (the file's dimensions
    reversed: FORCE_PLATFORM:CORNERS of dimensions (3, 4, n) becomes shape (n, 4, 3)) of int8 (byte),
    int16 (integer), float32 (real) or str (characters: the first dimension is the string length,
    trailing blanks removed). `offset`: the byte of the value in the file it was read from (None
    for a parameter made here), for messages; not compared."""

    value: np.ndarray
    description: str = ""
    locked: bool = False
    offset: int | None = dataclasses.field(default=None, compare=False, repr=False)


class Group(dict):
    """A C3D parameter group: parameter name -> Parameter, plus the group's description and lock."""

    def __init__(self, parameters=(), *, description="", locked=False):
        super().__init__(parameters)
        self.description = description
        self.locked = locked

    def __repr__(self):
        return f"Group({dict.__repr__(self)}, description={self.description!r}, locked={self.locked})"


@dataclasses.dataclass
class Analog:
    """Analog channels (force plates, EMG, ...) sampled `per_frame` times per marker frame.

    values   (S, C) float32 in each channel's units (offset and scales applied), S = frames x per_frame
    rate     samples per second
    """

    values: np.ndarray
    rate: float
    names: list[str]
    units: list[str] | None = None
    descriptions: list[str] | None = None

    def __post_init__(self):
        self.values = np.asarray(self.values)
        if self.values.ndim != 2 or self.values.shape[1] != len(self.names):
            raise ValueError(f"analog values {self.values.shape} must be (samples, {len(self.names)} channels)")
        count = len(self.names)
        self.units = [""] * count if self.units is None else list(self.units)
        self.descriptions = [""] * count if self.descriptions is None else list(self.descriptions)
        if len(self.units) != count or len(self.descriptions) != count:
            raise ValueError(f"{count} analog channels need as many units and descriptions")
        if not 0 < self.rate < float("inf"):
            raise ValueError(f"analog rate must be positive and finite, not {self.rate}")


@dataclasses.dataclass
class Event:
    """A time event: `time` in seconds from the first frame's clock (C3D EVENT:TIMES), a label,
    a context ("Left", "Right", "General" or ""), a description."""

    time: float
    label: str
    context: str = ""
    description: str = ""


class Markers:
    """Labelled 3D points over frames (C3D, TRC) in file units, with what the file holds besides.

    Parameters
    ----------
    names : sequence of str
        Marker labels (M), as the file gives them (not necessarily unique).
    positions : array_like, shape (F, M, 3)
        Float32 (C3D) or float64 (TRC; other types become float64); NaN where a marker is missing.
    rate : float
        Frames per second, positive and finite.
    units : str, optional
        Length unit of the positions as the file states it ("mm", "m", ...), or "".
    first_frame : int, optional
        The file's number of the first frame (C3D and TRC count from 1, the default).
    residuals : array_like, shape (F, M), optional
        Float32, file units, NaN where a marker is missing.
    camera_masks : array_like, shape (F, M), optional
        Uint8: bit c is set when camera c + 1 saw the marker (C3D: 7 cameras); 0 where the marker
        is missing.
    descriptions : sequence of str, optional
        Per marker, the file's description (default "").
    analog : Analog, optional
        Analog channels (force plates, EMG, ...), their samples a whole number per frame.
    events : iterable of Event, optional
        Time events.
    parameters : dict, optional
        C3D: group name -> Group of Parameters, exactly as read; TRC: {}.
    metadata : dict, optional
        Format-specific facts (C3D: processor, storage, header; TRC: header fields).

    Raises
    ------
    ValueError
        If the arrays' shapes do not fit `names` and each other, `rate` is not positive and finite,
        or the analog samples are not a whole number per frame.

    Examples
    --------
    >>> import numpy as np
    >>> from mocap_io.core import Markers
    >>> positions = np.array([[[0, 0, 1000], [250, 0, 1000]], [[0, 10, 1000], [np.nan] * 3]])
    >>> markers = Markers(["LASI", "RASI"], positions, 100, units="mm")
    >>> markers
    <Markers 2 markers x 2 frames at 100 Hz>
    >>> markers.valid
    array([[ True,  True],
           [ True, False]])
    >>> markers.times(), markers.index("RASI")
    (array([0.  , 0.01]), 1)
    """

    def __init__(
        self,
        names: Sequence[str],
        positions: ArrayLike,
        rate: float,
        *,
        units: str = "",
        first_frame: int = 1,
        residuals: ArrayLike | None = None,
        camera_masks: ArrayLike | None = None,
        descriptions: Sequence[str] | None = None,
        analog: Analog | None = None,
        events: Iterable[Event] = (),
        parameters: dict[str, Group] | None = None,
        metadata: dict | None = None,
    ) -> None:
        self.names = [str(n) for n in names]
        self.positions = np.asarray(positions)
        if self.positions.dtype.kind != "f":
            self.positions = self.positions.astype(float)
        count = len(self.names)
        if self.positions.ndim != 3 or self.positions.shape[1:] != (count, 3):
            raise ValueError(f"positions {self.positions.shape} must be (frames, {count} markers, 3)")
        self.rate = float(rate)
        if not 0 < self.rate < float("inf"):
            raise ValueError(f"rate must be positive and finite, not {rate}")
        self.units = str(units)
        self.first_frame = int(first_frame)
        shape = self.positions.shape[:2]
        self.residuals = None if residuals is None else np.asarray(residuals)
        self.camera_masks = None if camera_masks is None else np.asarray(camera_masks, dtype=np.uint8)
        for name, array in (("residuals", self.residuals), ("camera_masks", self.camera_masks)):
            if array is not None and array.shape != shape:
                raise ValueError(f"{name} {array.shape} must be {shape}")
        self.descriptions = [""] * count if descriptions is None else [str(d) for d in descriptions]
        if len(self.descriptions) != count:
            raise ValueError(f"{len(self.descriptions)} descriptions for {count} markers")
        self.analog = analog
        if analog is not None and len(analog.values) != self.frame_count * self.analog_per_frame:
            raise ValueError(
                f"{len(analog.values)} analog samples: expected {self.analog_per_frame} per frame "
                f"x {self.frame_count} frames"
            )
        self.events = list(events)
        self.parameters = {} if parameters is None else parameters
        self.metadata = {} if metadata is None else metadata

    def __repr__(self) -> str:
        analog = f", {len(self.analog.names)} analog channels" if self.analog is not None else ""
        return f"<Markers {self.marker_count} markers x {self.frame_count} frames at {self.rate:g} Hz{analog}>"

    @property
    def frame_count(self) -> int:
        """Number of frames (F)."""
        return self.positions.shape[0]

    @property
    def marker_count(self) -> int:
        """Number of markers (M)."""
        return self.positions.shape[1]

    @property
    def valid(self) -> np.ndarray:
        """(F, M) bool: where the marker was seen (its position is not NaN)."""
        return ~np.isnan(self.positions).any(axis=2)

    @property
    def analog_per_frame(self) -> int:
        """Analog samples per marker frame (analog rate / marker rate, a whole number; 0 without analog).

        Raises
        ------
        ValueError
            If the analog rate is not a whole multiple of the marker rate.
        """
        if self.analog is None:
            return 0
        ratio = self.analog.rate / self.rate
        if abs(ratio - round(ratio)) > 1e-6 * ratio or round(ratio) < 1:
            raise ValueError(f"analog rate {self.analog.rate:g} is not a multiple of the marker rate {self.rate:g}")
        return round(ratio)

    def replace(self, **changes: Any) -> "Markers":
        """A new Markers with the given fields changed and every other as here (arrays shared, not
        copied; `metadata` a shallow copy): what a cleaning or resampling step returns.

        Parameters
        ----------
        **changes
            Constructor arguments (``positions=``, ``rate=``, ``residuals=``, ...).

        Returns
        -------
        Markers
        """
        fields = {
            "units": self.units,
            "first_frame": self.first_frame,
            "residuals": self.residuals,
            "camera_masks": self.camera_masks,
            "descriptions": self.descriptions,
            "analog": self.analog,
            "events": self.events,
            "parameters": self.parameters,
            "metadata": dict(self.metadata),
        } | changes
        names, positions, rate = (fields.pop(key, getattr(self, key)) for key in ("names", "positions", "rate"))
        return Markers(names, positions, rate, **fields)

    def require_writable(self) -> None:
        """Refuse what a reader would refuse; writers call this before they open their output.

        Raises
        ------
        ValueError
            Naming the marker and frame of the first coordinate (NaN: missing) that is not finite or
            beyond `errors.LARGEST`, or a rate outside `errors.RATES`.
        """
        present = np.where(np.isnan(self.positions), 0.0, self.positions)
        require_bounded(present, lambda f, m, axis: f"marker {self.names[m]!r} {'XYZ'[axis]} at frame {f}")
        require_rate(self.rate, "the frame rate")

    def index(self, name: str) -> int:
        """Index of the first marker called `name`.

        Raises
        ------
        KeyError
            If there is no such marker.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no marker named {name!r}") from None

    def times(self) -> np.ndarray:
        """(F,) time of each frame in seconds, frame `first_frame` at (first_frame - 1) / rate."""
        return (self.first_frame - 1 + np.arange(self.frame_count)) / self.rate


def joint_markers(motion, *, units=""):
    """Markers at the world positions of a Motion's joints, one per joint named after it (End Sites
    left out), over the motion's frames at its rate (`standard_fps`: the rate its printed frame period
    stands for); `units`: the length unit to state (the motion's own file units are kept)."""
    return Markers(motion.skeleton.names, motion.world_positions(), motion.standard_fps, units=units)


def column_runs(flags: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every run of True down the columns of `flags` (F, M) (a marker's frames seen, or unseen), by
    column then row: arrays column, start, stop (the run is rows start to stop - 1)."""
    edges = np.diff(np.pad(np.asarray(flags, dtype=np.int8).T, ((0, 0), (1, 1))), axis=1)  # (M, F + 1)
    column, start = np.nonzero(edges == 1)
    return column, start, np.nonzero(edges == -1)[1]  # in the same order: each column's runs alternate
