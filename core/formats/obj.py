"""Wavefront OBJ: reader and writer for the rest mesh (and per-frame meshes) of mesh animations.

Reads v (with optional r g b colours), vt (u [v [w]]: v is 0 when absent, w is dropped), vn, f in
every index form (v, v/vt, v//vn, v/vt/vn, negative = relative), polygons of any size, g (several
names on one line: a face in several groups), o, usemtl, mtllib, s (off, a number up to 2^31 - 1,
or a name: smooth), comments, line continuations, any line endings. Other statements (l, p,
curves) are skipped. Numbers must be finite decimals, indices in range; errors name the line.

An OBJ sequence (``frame_####.obj``, one file per frame, see core.sequence) is a MeshAnimation:
`read_obj_sequence` / `write_obj_sequence`.
"""

import os
import re

import numpy as np

from ..atomic import atomic_write
from ..errors import ParseError, check_memory, require_bounded
from ..inputs import read_companion, read_input
from ..mesh import Mesh, MeshAnimation
from ..numtext import format_table, line_spans, parse_table, ranges, splice
from ..sequence import find_frames, frame_path

_MISSING = np.iinfo(np.int64).min  # a corner without uv or normal
_LARGEST = 1 << 62  # no index read is larger, so none is mistaken for _MISSING or overflows
_INDEX = re.compile(r"[+-]?[0-9]+")
_SMOOTH_MAX = 2**31 - 1


def read_obj(path):
    """Read an OBJ file into a Mesh; errors name the file and line."""
    return parse_obj(read_input(path), path)


def obj_beside(path, obj=None):
    """`obj`, or the .obj of the same name beside `path` (where .memg, .famc and .pc2 keep their mesh)."""
    return obj if obj is not None else os.path.splitext(str(path))[0] + ".obj"


def read_obj_beside(path, obj=None, why=""):
    """The Mesh of `obj_beside(path, obj)`; if there is none, a FileNotFoundError naming that .obj
    as the mesh of `path` (`why`: why it needs one). A missing file, not a malformed one."""
    return read_companion(read_obj, obj_beside(path, obj), path, "mesh", "obj=...", why)


def parse_obj(data, path):
    """The Mesh of OBJ bytes `data` (errors name `path`)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return _Reader(path, text).mesh()


class _Reader:
    def __init__(self, path, text):
        self.path = path
        self.rows = {"v": [], "vt": [], "vn": []}  # (line number, text after the keyword)
        self.faces = []  # (line number, tokens, material, smoothing)
        self.objects = {}
        self.materials, self.libraries = [], []
        self.runs = [(["default"], 0, 0)]  # (group names, first face, line) of every `g` statement
        self.size = len(text)
        material_index = {}  # material name -> its index in self.materials
        material, smooth, obj = -1, 0, None
        for number, line in enumerate(text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines(), 1):
            words = line.split(None, 1)
            if not words or words[0].startswith("#"):
                continue
            key, rest = words[0], "".join(words[1:])
            rest = rest.split("#", 1)[0]
            if key in self.rows:
                self.rows[key].append((number, rest))
            elif key == "f":
                face = len(self.faces)
                self.faces.append((number, rest.split(), material, smooth))
                if obj is not None:
                    self.objects.setdefault(obj, []).append(face)
            elif key == "g":
                self.runs.append((rest.split() or ["default"], len(self.faces), number))
            elif key == "o":
                obj = rest.strip()
            elif key == "usemtl":
                name = rest.strip()
                if name not in material_index:
                    material_index[name] = len(self.materials)
                    self.materials.append(name)
                material = material_index[name]
            elif key == "mtllib":
                self.libraries += rest.split()
            elif key == "s":
                smooth = self.smoothing(rest.strip().lower(), number)

    def smoothing(self, value, line):
        """A smoothing group: 0 for off, its number, or 1 for any other name."""
        if value in ("off", ""):
            return 0
        if not (value.isascii() and value.isdigit()):
            return 1
        if len(value) > 10 or int(value) > _SMOOTH_MAX:
            raise ParseError(
                self.path, f"smoothing group {value[:40]}: expected off or a number up to {_SMOOTH_MAX}", line=line
            )
        return int(value)

    def group_faces(self):
        """{group name: (P_g,) its faces}, from the faces between one `g` statement and the next
        (a name in several statements gets each run); groups without faces are left out. The
        memberships a line of many names makes for many faces are bounded by the file's size."""
        starts = np.array([start for _, start, _ in self.runs] + [len(self.faces)], dtype=np.intp)
        index, group, run = {}, [], []  # a span per name of each run that has faces: its group and run
        for k, has_faces in enumerate((starts[1:] > starts[:-1]).tolist()):
            for name in self.runs[k][0] if has_faces else ():
                group.append(index.setdefault(name, len(index)))
                run.append(k)
        group, run = np.asarray(group, dtype=np.intp), np.asarray(run, dtype=np.intp)
        first, last = starts[run], starts[run + 1]
        per_run = np.bincount(run, last - first, minlength=len(self.runs))
        need, line = int(per_run.sum()), self.runs[int(per_run.argmax())][2]
        what = f"{need} faces in {len(index)} groups"
        check_memory(self.path, 8 * need, self.size, what, line=line or None, why=": too many names on a 'g' line")
        counts = np.bincount(group, last - first, minlength=len(index)).astype(np.intp)
        order = np.argsort(group, kind="stable")  # each group's spans together, in file order
        faces, ends = ranges(first[order], last[order]), np.cumsum(counts).tolist()
        return {name: faces[start:end] for name, start, end in zip(index, [0, *ends], ends)}

    def numbers(self, key, minimum, maximum, fill):
        """(n, maximum) array of the `key` rows (`fill` where a row has fewer numbers). Rows of one
        column count parse as one table (the shared fast parser); mixed counts by count."""
        rows = self.rows[key]
        table = np.full((len(rows), maximum), fill)
        if not rows:
            return table
        columns = len(rows[0][1].split())
        if minimum <= columns <= maximum:
            try:
                table[:, :columns] = parse_table(
                    "\n".join(text for _, text in rows).encode("utf-8", "replace"),
                    columns,
                    len(rows),
                    path=self.path,
                    first_line=0,
                )
                return table
            except ParseError:
                pass  # mixed column counts, or an error to locate
        words = [text.split() for _, text in rows]
        counts = np.fromiter(map(len, words), dtype=np.intp, count=len(words))
        bad = np.flatnonzero((counts < minimum) | (counts > maximum))
        if len(bad):
            raise ParseError(
                self.path, f"'{key}' needs {minimum} to {maximum} numbers, found {counts[bad[0]]}", line=rows[bad[0]][0]
            )
        for columns in np.unique(counts):
            which = np.flatnonzero(counts == columns)
            block = "\n".join(" ".join(words[i]) for i in which).encode("utf-8", "replace")
            try:
                table[which, :columns] = parse_table(block, int(columns), len(which), path=self.path, first_line=0)
            except ParseError as error:  # its line counts the rows of the block
                raise ParseError(self.path, f"{key!r} {error.what}", line=rows[which[error.line]][0]) from None
        return table

    def uniform_corners(self, tokens):
        """(C, 3) raw indices in one parse when every corner has the same form, else None."""
        if not tokens:
            return np.zeros((0, 3), dtype=np.int64)
        first = tokens[0]
        joined = " ".join(tokens)
        if (
            joined.count("/") != first.count("/") * len(tokens)
            or joined.count("//") != first.count("//") * len(tokens)
            or first.count("/") > 2
            or "_" in joined
            or not joined.isascii()
        ):  # int() would take 1_0 and other digits
            return None
        present = [i for i, part in enumerate(first.split("/")) if part]
        try:
            values = np.array(joined.replace("/", " ").split(), dtype=np.int64)
        except (ValueError, OverflowError):
            return None
        if (
            values.size != len(present) * len(tokens)
            or not len(present)
            or present[0] != 0
            or (values.size and not -_LARGEST <= values.min() <= values.max() <= _LARGEST)
        ):
            return None  # (the corner by corner path names the line)
        table = np.full((len(tokens), 3), _MISSING, dtype=np.int64)
        table[:, present] = values.reshape(-1, len(present))
        return table

    def corner(self, token, face):
        """Raw (v, vt, vn) indices of one corner (_MISSING where absent)."""
        parts = token.split("/")
        line = self.faces[face][0]
        if len(parts) > 3 or not parts[0]:
            raise ParseError(
                self.path, f"bad face corner {token[:40]!r} (expected v, v/vt, v//vn or v/vt/vn)", line=line
            )
        indices = []
        for key, part in zip(("v", "vt", "vn"), parts + [""] * (3 - len(parts))):
            if not part:
                indices.append(_MISSING)
                continue
            if not _INDEX.fullmatch(part):
                raise ParseError(self.path, f"bad face corner {token[:40]!r}: not an index", line=line)
            if len(part) > 19 or abs(int(part)) > _LARGEST:
                raise ParseError(self.path, f"face corner: {key} index {part[:40]} out of range", line=line)
            indices.append(int(part))
        return indices

    def mesh(self):
        v = self.numbers("v", 3, 7, np.nan)
        vt = self.numbers("vt", 1, 3, 0.0)  # "vt u": v = 0; "vt u v w": w is dropped
        vn = self.numbers("vn", 3, 3, np.nan)
        colours = v[:, 3:6] if len(v) and not np.isnan(v[:, 3:6]).any() else None
        counts = {"v": len(v), "vt": len(vt), "vn": len(vn)}
        sizes = np.array([len(f[1]) for f in self.faces], dtype=np.intp)
        short = np.flatnonzero(sizes < 3)
        if len(short):
            raise ParseError(
                self.path, f"a face needs at least 3 corners, found {sizes[short[0]]}", line=self.faces[short[0]][0]
            )
        tokens = [t for f in self.faces for t in f[1]]
        corners = self.uniform_corners(tokens)
        if corners is None:
            corners = np.array(
                [self.corner(t, f) for f, face in enumerate(self.faces) for t in face[1]], dtype=np.int64
            ).reshape(-1, 3)
        face_of_corner = np.repeat(np.arange(len(sizes)), sizes)
        for column, key in enumerate(("v", "vt", "vn")):
            # negative indices count back from the last one defined before the face
            seen = np.searchsorted([n for n, _ in self.rows[key]], [f[0] for f in self.faces])[face_of_corner]
            raw = corners[:, column]
            index = np.where(raw > 0, raw - 1, seen + raw)
            bad = np.flatnonzero((raw != _MISSING) & ((raw == 0) | (index < 0) | (index >= counts[key])))
            if len(bad):
                face = self.faces[face_of_corner[bad[0]]]
                raise ParseError(
                    self.path, f"face corner: {key} index {raw[bad[0]]} out of range (1..{counts[key]})", line=face[0]
                )
            corners[:, column] = np.where(raw == _MISSING, -1, index)
        return Mesh(
            v[:, :3],
            sizes,
            corners[:, 0],
            colours=colours,
            uvs=vt[:, :2],
            normals=vn,
            face_uvs=corners[:, 1] if (corners[:, 1] >= 0).any() else None,
            face_normals=corners[:, 2] if (corners[:, 2] >= 0).any() else None,
            face_materials=[f[2] for f in self.faces],
            materials=self.materials,
            material_libraries=self.libraries,
            groups=self.group_faces(),
            objects=self.objects,
            face_smooth=[f[3] for f in self.faces],
        )


def write_obj(mesh, path, *, precision=6, vertices=None):
    """Write `mesh` (optionally with other vertex positions, e.g. one frame) to an OBJ file."""
    vertices = obj_vertices(mesh, vertices)
    with atomic_write(path) as f:
        write_obj_to(f, mesh, vertices, precision)


def obj_vertices(mesh, vertices=None):
    """The vertex positions to write (`vertices` or the mesh's), once every number to write is
    checked finite (ValueError naming the table and row)."""
    vertices = mesh.vertices if vertices is None else np.asarray(vertices, dtype=float)
    tables = {"v": vertices, "colour": mesh.colours, "vt": mesh.uvs, "vn": mesh.normals}
    for key, table in tables.items():
        if table is not None:
            require_bounded(table, lambda row, column: f"'{key}' row {row + 1}, value {column + 1}")  # noqa: B023 - called at once
    return vertices


def write_obj_to(f, mesh, vertices, precision=6, faces=None):
    """Write the OBJ text of `mesh` with `vertices` (see obj_vertices) to the open binary file `f`
    (`faces`: the face statements, if already made by `face_text`)."""
    f.write(b"# written by Mocap I/O\n")
    for library in mesh.material_libraries:
        f.write(f"mtllib {library}\n".encode())
    columns = vertices if mesh.colours is None else np.hstack([vertices, mesh.colours])
    for key, table in (("v", columns), ("vt", mesh.uvs), ("vn", mesh.normals)):
        if len(table):
            lines = format_table(table, precision)  # every line ends in a newline: the key goes after each
            head = key.encode() + b" "
            f.write(head + lines[:-1].replace(b"\n", b"\n" + head) + b"\n")
    f.write(face_text(mesh) if faces is None else faces)


def read_obj_sequence(pattern, *, fps=24.0):
    """A dense MeshAnimation of an OBJ sequence (``frame_####.obj``: every file of the pattern, in
    frame order): the first file's mesh, every file's vertex positions. Every file must have the
    first one's faces. The files hold no frame rate: `fps` (default 24, Blender's default)."""
    found = find_frames(pattern)
    meshes = [read_obj(path) for _, path in found]
    first = meshes[0]
    for (_, path), mesh in zip(found[1:], meshes[1:]):
        if not (
            len(mesh.vertices) == len(first.vertices)
            and np.array_equal(mesh.face_sizes, first.face_sizes)
            and np.array_equal(mesh.face_vertices, first.face_vertices)
        ):
            raise ParseError(
                path,
                f"{len(mesh.vertices)} vertices and {len(mesh.face_sizes)} faces: a sequence needs the first "
                f"file's mesh in every file ({found[0][1]}: {len(first.vertices)} vertices, "
                f"{len(first.face_sizes)} faces, the same faces)",
            )
    return MeshAnimation(first, fps, np.stack([m.vertices for m in meshes]), first_frame=found[0][0])


def write_obj_sequence(animation, pattern, *, precision=6, first_frame=None):
    """Write every frame of a MeshAnimation as an OBJ file of the sequence `pattern` (``frame_####.obj``),
    numbered from `first_frame` (default: the one read, else 1); each file is written atomically.
    Returns the paths written."""
    if first_frame is None:
        first_frame = 1 if animation.first_frame is None else animation.first_frame
    first_frame = int(first_frame)
    positions = animation.positions()
    require_bounded(positions, lambda frame, row, column: f"frame {frame}, 'v' row {row + 1}, value {column + 1}")
    obj_vertices(animation.mesh)  # the other tables
    faces = face_text(animation.mesh)
    paths = [frame_path(pattern, first_frame + frame) for frame in range(len(positions))]
    for path, vertices in zip(paths, positions):
        with atomic_write(path) as f:
            write_obj_to(f, animation.mesh, vertices, precision, faces)
    return paths


def face_text(mesh):
    """The f/g/o/usemtl/s statements of `mesh` (bytes), switching state only where it changes."""
    sizes = mesh.face_sizes
    if not len(sizes):
        return b""
    count = len(mesh.face_vertices)
    uv = mesh.face_uvs if mesh.face_uvs is not None else np.full(count, -1)
    normal = mesh.face_normals if mesh.face_normals is not None else np.full(count, -1)
    table = format_table(np.stack([mesh.face_vertices, uv, normal], axis=1) + 1, 0, separator="/", whole=3)
    starts, lengths = line_spans(table)  # "v/vt/vn" per corner, 0 for what it lacks
    slashes = np.flatnonzero(np.frombuffer(table, dtype=np.uint8) == ord("/")).reshape(-1, 2)
    ends = starts + lengths
    has_uv, has_normal = uv >= 0, normal >= 0
    # "v/vt/vn", "v/vt", "v//vn" (the line up to its first slash and from its second) or "v"
    head_end = np.where(has_uv, np.where(has_normal, ends, slashes[:, 1]), slashes[:, 0] + has_normal)
    tail = np.where(has_uv | ~has_normal, 0, ends - slashes[:, 1])
    states = _state_lines(mesh)
    data = table + b" \nf \n" + b"".join(states)
    space, newline, f = len(table), len(table) + 1, len(table) + 2
    state_lengths = np.array([len(t) for t in states], dtype=np.intp)
    state_starts = f + 3 + np.cumsum(state_lengths) - state_lengths
    # per face: its state lines and "f ", then per corner: two pieces of its line and a separator
    faces = len(sizes)
    order_face = 2 * np.arange(faces) + 3 * mesh.face_starts
    total = 2 * faces + 3 * count
    piece_starts = np.zeros(total, dtype=np.intp)
    piece_lengths = np.zeros(total, dtype=np.intp)
    piece_starts[order_face], piece_lengths[order_face] = state_starts, state_lengths
    piece_starts[order_face + 1], piece_lengths[order_face + 1] = f, np.where(sizes, 2, 3)  # an empty face: "f \n"
    face_of = np.repeat(np.arange(faces), sizes)
    corner = 2 * (face_of + 1) + 3 * np.arange(count)
    last = np.zeros(count, dtype=bool)
    last[mesh.face_starts + sizes - 1] = True
    piece_starts[corner], piece_lengths[corner] = starts, head_end - starts
    piece_starts[corner + 1], piece_lengths[corner + 1] = slashes[:, 1], tail
    piece_starts[corner + 2], piece_lengths[corner + 2] = np.where(last, newline, space), 1
    return splice(data, piece_starts, piece_lengths)


def _state_lines(mesh):
    """Per face, the bytes of the o/g/usemtl/s statements that switch the state to its own."""
    faces = len(mesh.face_sizes)
    member = np.zeros((faces, len(mesh.groups)), dtype=np.intp)  # how often each group lists the face
    for g, listed in enumerate(mesh.groups.values()):
        np.add.at(member[:, g], np.asarray(listed, dtype=np.intp), 1)
    owner = np.full(faces, -1, dtype=np.intp)
    for o, listed in enumerate(mesh.objects.values()):
        owner[np.asarray(listed, dtype=np.intp)] = o
    materials, smooth = np.asarray(mesh.face_materials), np.asarray(mesh.face_smooth)
    new = {
        "o": np.concatenate([[True], owner[1:] != owner[:-1]]) & (owner >= 0),
        "g": np.concatenate([[True], (member[1:] != member[:-1]).any(axis=1)]),
        "usemtl": np.concatenate([[True], materials[1:] != materials[:-1]]) & (materials >= 0),
        "s": np.concatenate([[True], smooth[1:] != smooth[:-1]]),
    }
    objects, groups = list(mesh.objects), list(mesh.groups)
    lines = [b""] * faces
    for p in np.flatnonzero(np.logical_or.reduce(list(new.values()))).tolist():
        text = f"o {objects[owner[p]]}\n" if new["o"][p] else ""
        if new["g"][p]:
            names = [name for name, times in zip(groups, member[p].tolist()) for _ in range(times)]
            text += "g " + " ".join(names or ("default",)) + "\n"
        text += f"usemtl {mesh.materials[materials[p]]}\n" if new["usemtl"][p] else ""
        text += f"s {smooth[p] or 'off'}\n" if new["s"][p] else ""
        lines[p] = text.encode()
    return lines
