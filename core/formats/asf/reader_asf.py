"""ASF reader: the skeleton file as a Skeleton whose joints are the root and the bones, laid out so
that the model's forward kinematics are exactly the Acclaim definition, plus an AsfRecord of what
the model does not hold (units, axis orders, limits, documentation) for the writer.

The Acclaim definition ("Motion Data", section "Acclaim ASF/AMC"), in column form: a bone's local
transform is L = B @ C @ M @ C^-1, with C its `axis` (the angles paired with the order's letters
and applied in that order: `axis a b c ZYX` is C = Rx(c) @ Ry(b) @ Rz(a)), M its dof rotations (in
dof order, the first applied first) and B the translation by its parent's direction * length (the
root: its position plus the AMC translation). The model puts each joint's frame at its bone's axis
frame (G @ C), which gives

    rest_rotations[j] = C_parent^-1 @ C_j      offsets[j] = C_parent^-1 @ direction_parent * length_parent

and Euler angles that are the AMC values themselves; joint positions are the bones' starts, and each
bone without children ends in an End Site at its tip. Beyond the definition's rotations (it lists
tx ty tz and l too): tx ty tz of any bone move its start along its parent's rest axes (for the
root, the world axes: added to its position), and l moves a bone's end along its direction (its
children follow).
"""

import dataclasses
import math
import os
import warnings
from collections.abc import Sequence

import numpy as np

from ... import rotations
from ...errors import LARGEST, FileNote, FileWarning, ParseError, beyond, check_bound, first_beyond
from ...inputs import read_input, without_bom
from ...numtext import decode_text, normalize_newlines, parse_number
from ...skeleton import CyclicHierarchy, Skeleton, parents_first, renumbered

ROOT = "root"
ROOT_DOFS = ("tx", "ty", "tz", "rx", "ry", "rz")
BONE_DOFS = ROOT_DOFS + ("l",)
_INCH = 0.0254  # metres
_SEPARATORS = str.maketrans(",()", "   ")  # the definition reads commas and parentheses as spaces
_SECTIONS = (":units", ":documentation", ":root", ":bonedata", ":hierarchy")
_ENTRIES = ("name", "id", "direction", "length", "axis", "dof", "limits")
_KEPT = ("bodymass", "cofmass")  # bone entries the model has no use for, kept for the writer


@dataclasses.dataclass
class AsfBone:
    """One :bonedata block as read: lengths in file units, angles in the file's angle unit."""

    direction: tuple
    length: float
    axis: tuple = (0.0, 0.0, 0.0)  # as written: axis[i] turns about axis_order[i] (see axis_matrix)
    axis_order: str = "XYZ"
    limits: tuple = ()  # (low, high) per dof, infinities allowed
    id: str | None = None
    extras: tuple = ()  # (keyword, text) of other entries (bodymass, cofmass)


@dataclasses.dataclass
class AsfRecord:
    """What an ASF holds beyond the Skeleton, for the writer to reproduce it (`Skeleton.record`).

    units            the :units entries as read, keys in lower case ({"mass": "1.0", "length": "0.45",
                     "angle": "deg"})
    bones            bone name -> AsfBone
    version, name    the :version and :name texts, or None
    documentation    the :documentation lines as read
    root_axis_order, position, orientation    the :root entries (file units); orientation[i]
                     turns about root_axis_order[i], as a bone's axis (see axis_matrix)
    scale            model length per file length: 1, or metres_per_unit when read with metres=True
    The dof lists (:root order, bone dof) are the Skeleton's channels, as written.
    """

    units: dict
    bones: dict
    version: str | None = None
    name: str | None = None
    documentation: tuple = ()
    root_axis_order: str = "XYZ"
    position: tuple = (0.0, 0.0, 0.0)
    orientation: tuple = (0.0, 0.0, 0.0)
    scale: float = 1.0

    @property
    def degrees(self) -> bool:
        """Whether the file's angles are in degrees (`angle deg`, also when :units has no angle)."""
        return self.units.get("angle", "deg").lower() != "rad"

    @property
    def metres_per_unit(self) -> float:
        """Metres per file length unit, taking the unit before the multiplier to be the inch (Vicon,
        CMU): `length 0.45` means lengths in units of 1/0.45 inch, 0.05644 m."""
        return _INCH / float(self.units.get("length", "1"))


def axis_matrix(angles: Sequence[float], order: str) -> np.ndarray:
    """C (3, 3) of axis angles (radians) as written: angles[i] turns about order[i], the first
    applied first ("ZYX": C = Rx(angles[2]) @ Ry(angles[1]) @ Rz(angles[0]))."""
    return rotations.euler_to_matrix(list(angles)[::-1], order[::-1])


def axis_angles(matrix: np.ndarray, order: str) -> tuple[float, ...]:
    """The angles (radians, as written: angles[i] about order[i]) of `axis_matrix` for a rotation
    matrix and an order."""
    return tuple(float(a) for a in rotations.matrix_to_euler(matrix, order[::-1])[::-1])


def read_asf(path: str | os.PathLike, *, metres: bool = False) -> Skeleton:
    """Read an ASF file into a Skeleton.

    Joints: "root", then the bones in :bonedata order (parents first when the file lists a child
    before its parent); channels: the :root order and each bone's dof list, as written; record:
    an AsfRecord. Lengths are in file units, or in metres with metres=True (AsfRecord.metres_per_unit).
    """
    data = without_bom(normalize_newlines(read_input(path)))
    parser = _Parser(path, decode_text(data))
    parser.parse()
    return parser.skeleton(metres)


def _limit(token):
    """A limit value: a finite number or (+/-)inf, else None."""
    value = parse_number(token)
    if value is None and token.lower().lstrip("+-") == "inf":
        value = -math.inf if token.startswith("-") else math.inf
    return value


class _Parser:
    """Line by line over the sections; each bone is a dict of its entries and their line numbers."""

    def __init__(self, path, text):
        self.path = path
        self.lines = text.split("\n")
        self.version = self.name = None
        self.units = {}
        self.documentation = []
        self.root = {}  # the :root entries, with "line" (empty before :root)
        self.bones = []  # dicts, with "line" (of begin) and "<entry> line"
        self.hierarchy = []  # (parent, children, line)
        self.section = None
        self.bone = None  # the open bone
        self.limits_open = False  # limits may continue on the next lines
        self.hierarchy_state = None  # None, "open", "closed"

    def error(self, what, line):
        return ParseError(self.path, what, line=line)

    def parse(self):
        for number, raw in enumerate(self.lines, 1):
            raw = raw.rstrip("\r")
            if self.section == ":documentation" and not raw.lstrip().startswith(":"):
                self.documentation.append(raw.rstrip())
                continue
            code = raw.split("#", 1)[0]
            tokens = code.translate(_SEPARATORS).split()
            if not tokens:
                continue
            if tokens[0].startswith(":"):
                self.keyword(tokens, code, number)
            elif self.section is None:
                raise self.error(f"expected a keyword such as :version or :bonedata, found {tokens[0][:40]!r}", number)
            elif self.section != "skip":
                getattr(self, self.section[1:] + "_line")(tokens, number)
        self.close_section(len(self.lines), "file ends")
        while self.documentation and not self.documentation[-1].strip():
            self.documentation.pop()

    def keyword(self, tokens, code, number):
        key = tokens[0].lower()
        self.close_section(number, f"found {tokens[0][:40]!r}")
        rest = code.strip()[len(tokens[0]) :].strip()
        self.section = None
        if key == ":version":
            self.version = rest
        elif key == ":name":
            self.name = rest
        elif key in _SECTIONS:
            if key == ":root":
                if self.root:
                    raise self.error(f"second :root section (the first is on line {self.root['line']})", number)
                self.root = {"line": number}
            if key == ":hierarchy" and self.hierarchy_state is not None:
                raise self.error("second :hierarchy section", number)
            self.section = key
            if key == ":documentation":
                if rest:
                    self.documentation.append(rest)
            elif len(tokens) > 1:
                getattr(self, key[1:] + "_line")(tokens[1:], number)
        else:
            warnings.warn(
                f"{self.path}, line {number}: unknown section {tokens[0][:40]!r} skipped", FileWarning, stacklevel=4
            )
            self.section = "skip"

    def close_section(self, number, found):
        if self.bone is not None:
            raise self.error(f"expected 'end' closing the bone begun on line {self.bone['line']}, {found}", number)
        if self.hierarchy_state == "open":
            raise self.error(f"expected 'end' closing the :hierarchy, {found}", number)
        if self.section == ":hierarchy" and self.hierarchy_state is None:
            raise self.error(f"expected 'begin' after :hierarchy, {found}", number)

    def numbers(self, tokens, count, what, number):
        values = [parse_number(t) for t in tokens]
        if len(values) != count or None in values:
            shown = " ".join(tokens)[:60]
            raise self.error(f"expected {count} number{'s' * (count > 1)} after {what!r}, found {shown!r}", number)
        check_bound(self.path, values, lambda i: f"{what} value {i + 1}", line=number)
        return tuple(values)

    def dofs(self, tokens, allowed, what, number):
        seen = []
        for token in tokens:
            if token.lower() not in allowed:
                raise self.error(f"expected dofs ({' '.join(allowed)}) after {what!r}, found {token[:40]!r}", number)
            if token.lower() in seen:
                raise self.error(f"dof {token!r} listed twice", number)
            seen.append(token.lower())
        return tuple(tokens)

    def units_line(self, tokens, number):
        if len(tokens) % 2:
            raise self.error(f"expected a value after {tokens[-1][:40]!r} in :units", number)
        for key, value in zip(tokens[::2], tokens[1::2]):
            key = key.lower()
            if key == "angle" and value.lower() not in ("deg", "rad"):
                raise self.error(f"expected 'deg' or 'rad' after 'angle', found {value[:40]!r}", number)
            if key in ("length", "mass"):
                amount = parse_number(value)
                if amount is None:
                    raise self.error(f"expected a number after {key!r}, found {value[:40]!r}", number)
                if key == "length" and not amount > 0:
                    raise self.error(f"expected a positive length multiplier, found {value[:40]!r}", number)
                if key == "length" and not 1 / LARGEST <= amount <= LARGEST:  # metres_per_unit divides by it
                    raise self.error(f"length multiplier {value[:40]}: expected {1 / LARGEST:g} to {LARGEST:g}", number)
                if key == "mass":
                    check_bound(self.path, amount, "the mass unit", line=number)
            self.units[key] = value

    def root_line(self, tokens, number):
        key = tokens[0].lower()
        if key == "order":
            self.root["order"] = self.dofs(tokens[1:], ROOT_DOFS, "order", number)
        elif key == "axis":
            if len(tokens) != 2 or sorted(tokens[1].upper()) != ["X", "Y", "Z"]:
                raise self.error(f"expected an axis order (such as XYZ) after 'axis', found {_shown(tokens)!r}", number)
            self.root["axis"] = tokens[1].upper()
        elif key in ("position", "orientation"):
            self.root[key] = self.numbers(tokens[1:], 3, key, number)
            self.root[key + " line"] = number
        else:
            what = f"unknown :root entry {tokens[0][:40]!r} skipped"
            warnings.warn(f"{self.path}, line {number}: {what}", FileWarning, stacklevel=5)

    def bonedata_line(self, tokens, number):
        key = tokens[0].lower()
        bone = self.bone
        if bone is None:
            if key != "begin":
                raise self.error(f"expected 'begin' starting a bone, found {tokens[0][:40]!r}", number)
            self.bone = {"line": number, "extras": []}
            return
        if self.limits_open and _limit(tokens[0]) is not None:
            return self.limit_values(bone, tokens, number)
        self.limits_open = False
        if key == "end":
            return self.end_bone(bone, number)
        if key in _ENTRIES and key in bone:
            raise self.error(f"second {key!r} in the bone begun on line {bone['line']}", number)
        if key == "begin":
            raise self.error(f"expected 'end' closing the bone begun on line {bone['line']}, found 'begin'", number)
        if key in ("name", "id"):
            if len(tokens) != 2:
                raise self.error(f"expected one word after {key!r}, found {_shown(tokens)!r}", number)
            bone[key] = tokens[1]
        elif key == "direction":
            bone[key] = self.numbers(tokens[1:], 3, key, number)
        elif key == "length":
            bone[key] = self.numbers(tokens[1:], 1, key, number)[0]
        elif key == "axis":
            angles, order = tokens[1:], "XYZ"
            if angles and angles[-1].isalpha():
                order = angles.pop().upper()
            if sorted(order) != ["X", "Y", "Z"]:
                raise self.error(f"expected an axis order (such as XYZ) after the angles, found {order[:40]!r}", number)
            bone[key] = (self.numbers(angles, 3, key, number), order)
        elif key == "dof":
            bone[key] = self.dofs(tokens[1:], BONE_DOFS, "dof", number)
        elif key == "limits":
            bone[key] = []
            self.limit_values(bone, tokens[1:], number)
        else:
            if key not in _KEPT:
                what = f"unknown bone entry {tokens[0][:40]!r} kept"  # for the writer: nothing is lost
                warnings.warn(f"{self.path}, line {number}: {what}", FileNote, stacklevel=5)
            bone["extras"].append((tokens[0], " ".join(tokens[1:])))
        bone[key + " line"] = number

    def limit_values(self, bone, tokens, number):
        for token in tokens:
            value = _limit(token)
            if value is None:
                raise self.error(f"expected a number or inf in the limits, found {token[:40]!r}", number)
            bone["limits"].append(value)
        self.limits_open = True

    def end_bone(self, bone, number):
        self.bone = None
        if "name" not in bone:
            raise self.error(f"the bone begun on line {bone['line']} has no name", number)
        for key in ("direction", "length"):
            if key not in bone:
                raise self.error(f"bone {bone['name'][:80]!r} has no {key}", number)
        limits, dofs = bone.get("limits", []), bone.get("dof", ())
        if "limits" in bone and len(limits) != 2 * len(dofs):
            raise self.error(
                f"bone {bone['name'][:80]!r}: expected {len(dofs)} limit pairs (one per dof), found "
                f"{len(limits) / 2:g}",
                bone["limits line"],
            )
        self.bones.append(bone)

    def hierarchy_line(self, tokens, number):
        if self.hierarchy_state is None:
            if tokens[0].lower() != "begin":
                raise self.error(f"expected 'begin' after :hierarchy, found {tokens[0][:40]!r}", number)
            self.hierarchy_state = "open"
        elif self.hierarchy_state == "closed":
            raise self.error(f"expected a section keyword after the :hierarchy, found {tokens[0][:40]!r}", number)
        elif len(tokens) == 1 and tokens[0].lower() == "end":
            self.hierarchy_state = "closed"
        else:
            self.hierarchy.append((tokens[0], tokens[1:], number))

    def order(self):
        """Bone indices, parents first (in :bonedata order where the file allows), and each one's
        parent as a position in that order (-1: the root)."""
        if not self.root:
            raise self.error("expected a :root section", len(self.lines))
        index = {ROOT: -1}
        for i, bone in enumerate(self.bones):
            first = index.get(bone["name"])
            if first is not None:
                where = "the root" if first < 0 else f"first defined on line {self.bones[first]['name line']}"
                raise self.error(f"duplicate bone name {bone['name'][:80]!r} ({where})", bone["name line"])
            index[bone["name"]] = i
        parent, parent_line = {}, {}
        for name, children, line in self.hierarchy:
            if name not in index:
                raise self.error(f"unknown bone {name[:80]!r} in the hierarchy (not in :bonedata)", line)
            for child in children:
                if child == ROOT:
                    raise self.error("the root cannot be a child in the hierarchy", line)
                if child not in index:
                    raise self.error(f"unknown bone {child[:80]!r} in the hierarchy (not in :bonedata)", line)
                if index[child] in parent:
                    raise self.error(
                        f"bone {child[:80]!r} has a parent already (on line {parent_line[index[child]]})", line
                    )
                parent[index[child]], parent_line[index[child]] = index[name], line
        for i in range(len(self.bones)):
            if i not in parent:
                raise self.error(f"bone {self.bones[i]['name'][:80]!r} is not in the :hierarchy", self.bones[i]["line"])
        parents = [parent[i] for i in range(len(self.bones))]
        try:
            order = parents_first(parents, [b["name"] for b in self.bones])
        except CyclicHierarchy as cycle:
            raise self.error(str(cycle), parent_line[cycle.loop[0]]) from None
        return order, renumbered(parents, order)

    def skeleton(self, metres):
        order, parent = self.order()
        root = self.root
        record = AsfRecord(
            units=self.units,
            bones={},
            version=self.version,
            name=self.name,
            documentation=tuple(self.documentation),
            root_axis_order=root.get("axis", "XYZ"),
            position=root.get("position", (0.0, 0.0, 0.0)),
            orientation=root.get("orientation", (0.0, 0.0, 0.0)),
        )
        record.scale = record.metres_per_unit if metres else 1.0
        radians = math.radians if record.degrees else float
        with np.errstate(over="ignore", invalid="ignore"):
            return self.build(order, parent, record, radians)

    def build(self, order, parent, record, radians):
        root = self.root
        count = len(order) + 1
        frames = np.empty((count, 3, 3))  # C of each joint
        ends = np.zeros((count, 3))  # direction * length, model units
        frames[0] = axis_matrix([radians(a) for a in record.orientation], record.root_axis_order)
        channels = [root.get("order", ())] + [self.bones[i].get("dof", ()) for i in order]
        for k, i in enumerate(order, 1):
            bone = self.bones[i]
            angles, axis_order = bone.get("axis", ((0.0, 0.0, 0.0), "XYZ"))
            record.bones[bone["name"]] = AsfBone(
                bone["direction"],
                bone["length"],
                angles,
                axis_order,
                tuple(zip(bone.get("limits", [])[::2], bone.get("limits", [])[1::2])),
                bone.get("id"),
                tuple(bone["extras"]),
            )
            frames[k] = axis_matrix([radians(a) for a in angles], axis_order)
            ends[k] = np.multiply(bone["direction"], bone["length"] * record.scale)
            bad = first_beyond(ends[k])
            if bad is not None:
                shown = beyond(f"bone {bone['name'][:80]!r}: direction * length", ends[k][bad])
                raise self.error(shown, bone["length line"])
        parents = np.array([-1, *(p + 1 for p in parent)])  # joint 0 is the root
        parent_frames = frames[np.maximum(parents, 0)]
        rest = np.einsum("jba,jbc->jac", parent_frames, frames)
        rest[0] = frames[0]
        offsets = np.einsum("jba,jb->ja", parent_frames, ends[np.maximum(parents, 0)])
        offsets[0] = np.multiply(record.position, record.scale)
        what = "root position value {}" + " x metres per unit" * (record.scale != 1.0)
        check_bound(self.path, offsets[0], lambda i: what.format(i + 1), line=root.get("position line"))
        leaves = np.setdiff1d(np.arange(1, count), parents)
        return Skeleton(
            [ROOT] + [self.bones[i]["name"] for i in order],
            parents,
            offsets,
            channels=channels,
            end_site_parents=leaves,
            end_site_offsets=np.einsum("jba,jb->ja", frames[leaves], ends[leaves]),
            rest_rotations=rest,
            record=record,
        )


def _shown(tokens):
    """Tokens of a line, for messages."""
    return " ".join(tokens)[:60]
