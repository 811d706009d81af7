"""What an HTR header says: its keywords and defaults, the record a Motion read from HTR keeps,
and the header's values parsed for the reader and the writer."""

import dataclasses
from collections.abc import Callable, Mapping

import numpy as np

from ...numtext import parse_number

READINGS = ("product", "applied")  # how EulerRotationOrder "ZYX" reads: Rz @ Ry @ Rx, or Rx @ Ry @ Rz
HEADER_KEYS = (  # the order every producer writes and some readers (by position) expect
    "FileType",
    "DataType",
    "FileVersion",
    "NumSegments",
    "NumFrames",
    "DataFrameRate",
    "EulerRotationOrder",
    "CalibrationUnits",
    "RotationUnits",
    "GlobalAxisofGravity",
    "BoneLengthAxis",
    "ScaleFactor",
)
DEFAULTS = {  # what the writer writes for a keyword a motion does not give
    "FileType": "htr",
    "DataType": "HTRS",
    "FileVersion": "1",
    "CalibrationUnits": "mm",
    "RotationUnits": "Degrees",
    "GlobalAxisofGravity": "Y",
    "BoneLengthAxis": "Y",
    "ScaleFactor": "1.000000",
}
METRES_PER_UNIT = {
    **dict.fromkeys(("mm", "millimeter", "millimeters", "millimetre", "millimetres"), 0.001),
    **dict.fromkeys(("cm", "centimeter", "centimeters", "centimetre", "centimetres"), 0.01),
    **dict.fromkeys(("dm", "decimeter", "decimeters", "decimetre", "decimetres"), 0.1),
    **dict.fromkeys(("m", "meter", "meters", "metre", "metres"), 1.0),
    **dict.fromkeys(("in", "inch", "inches"), 0.0254),
    **dict.fromkeys(("ft", "foot", "feet"), 0.3048),
}


def metres_per_unit(calibration_units: str | None) -> float | None:
    """Metres per length unit of a CalibrationUnits value (`HtrRecord.calibration_units`): mm, cm,
    dm, m, in, ft and their long names; None if unknown or missing."""
    return METRES_PER_UNIT.get((calibration_units or "").lower())


@dataclasses.dataclass(frozen=True)
class HtrRecord:
    """What an HTR or GTR file says beyond the Motion, for the writer to write it back as read
    (`Motion.record`). The rest is the model's: base angles are the skeleton's rest rotations,
    a leaf's BoneLength its End Site.

    header         the [Header] lines as (keyword, value) texts, in the file's order and case,
                   unknown keywords too; counts, rate and rotation order are written from the motion
    euler_reading  how EulerRotationOrder was read (see READINGS)
    file_order     joint index of each segment in the file's order; () for the skeleton's
    first_frame    the first frame number
    drawn_lengths  {joint index: BoneLength} of the segments whose bone (the first child with an
                   offset, else the End Site) has another length along BoneLengthAxis: the drawn
                   length is kept apart from the children's offsets ("Motion Data", Character
                   Skeleton Definitions); see bone_lengths
    """

    header: tuple[tuple[str, str], ...] = ()
    euler_reading: str = "product"
    file_order: tuple[int, ...] = ()
    first_frame: int = 1
    drawn_lengths: Mapping[int, float] = dataclasses.field(default_factory=dict)

    def value(self, keyword: str) -> str | None:
        """The value of `keyword` (any case) as written, or None."""
        return next((value for key, value in self.header if key.lower() == keyword.lower()), None)

    @property
    def file_type(self) -> str:
        """ "htr" or "gtr" (FileType)."""
        return (self.value("FileType") or DEFAULTS["FileType"]).lower()

    @property
    def calibration_units(self) -> str | None:
        """CalibrationUnits as written, or None; metres_per_unit gives metres per unit."""
        return self.value("CalibrationUnits")

    @property
    def up_axis(self) -> str:
        """GlobalAxisofGravity as written (default "Y")."""
        return self.value("GlobalAxisofGravity") or DEFAULTS["GlobalAxisofGravity"]

    @property
    def bone_length_axis(self) -> str:
        """ "X", "Y" or "Z": the axis every bone lies along (BoneLengthAxis)."""
        return (self.value("BoneLengthAxis") or DEFAULTS["BoneLengthAxis"]).upper()

    @property
    def scale_factor(self) -> float:
        """The header ScaleFactor: a global scale of the whole motion, not multiplied in."""
        return float(parse_number(self.value("ScaleFactor") or DEFAULTS["ScaleFactor"]) or 1.0)


class Settings:
    """What a header says, parsed and checked: counts, rate, rotation order and units, axes."""

    def __init__(
        self,
        header: Mapping[str, tuple[str, str, int | None]],
        error: Callable[[str, int | None], Exception],
        lines: tuple[int, int] | None = None,
    ):
        """`header`: {lower-case keyword: (keyword, value, line or None)}; `error(what, line)`
        makes the exception to raise; `lines`: (first, last) line of the [Header] section, named
        when a keyword is missing."""
        where = (
            "" if lines is None else f", lines {lines[0]}-{lines[1]}" if lines[1] > lines[0] else f", line {lines[0]}"
        )

        def value(key: str, default: str | None = None) -> tuple[str, int | None]:
            found = header.get(key.lower())
            if found is not None:
                return found[1], found[2]
            if default is None:
                raise error(f"missing {key} in [Header]{where}", lines and lines[0])
            return default, None

        def number(key, check, expected, default=None):
            text, line = value(key, default)
            result = parse_number(text)
            if result is None or not check(result):
                raise error(f"{key}: expected {expected}, found {text[:40]!r}", line)
            return result

        text, line = value("FileType", DEFAULTS["FileType"])
        if text.lower() not in ("htr", "gtr"):
            raise error(f"FileType: expected htr or gtr, found {text[:40]!r}", line)
        self.gtr = text.lower() == "gtr"
        self.segments = int(number("NumSegments", _whole, "a whole number"))
        self.frames = int(number("NumFrames", _whole, "a whole number"))
        self.fps = number("DataFrameRate", lambda v: v > 0, "a positive frame rate")
        self.scale_factor = number("ScaleFactor", lambda v: v > 0, "a positive number", DEFAULTS["ScaleFactor"])
        text, line = value("EulerRotationOrder")
        if sorted(text.upper()) != ["X", "Y", "Z"]:
            raise error(f"EulerRotationOrder: expected a permutation of XYZ, found {text[:40]!r}", line)
        self.euler_order = text.upper()
        text, line = value("RotationUnits", DEFAULTS["RotationUnits"])
        if not text.lower().startswith(("deg", "rad")):
            raise error(f"RotationUnits: expected Degrees or Radians, found {text[:40]!r}", line)
        self.degrees = text.lower().startswith("deg")
        text, line = value("BoneLengthAxis", DEFAULTS["BoneLengthAxis"])
        if text.upper() not in ("X", "Y", "Z"):
            raise error(f"BoneLengthAxis: expected X, Y or Z, found {text[:40]!r}", line)
        self.bone_axis = "XYZ".index(text.upper())

    def order(self, reading: str) -> tuple[str, list[int]]:
        """(order of the Motion's Euler angles, indices that take the file's Rx Ry Rz to it)."""
        order = self.euler_order if reading == "product" else self.euler_order[::-1]
        return order, ["XYZ".index(a) for a in order]

    def radians(self, angles) -> np.ndarray:
        """The file's angles in radians."""
        return np.radians(angles) if self.degrees else np.asarray(angles, dtype=float)


def _whole(value):
    return value >= 0 and value == int(value)
