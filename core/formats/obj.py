"""Wavefront OBJ: reader and writer for the rest mesh (and per-frame meshes) of mesh animations.

Reads v (with optional r g b colours), vt, vn, f in every index form (v, v/vt, v//vn, v/vt/vn,
negative = relative), polygons of any size, g (several names on one line: a face in several
groups), o, usemtl, mtllib, s, comments, line continuations, any line endings. Other statements
(l, p, curves) are skipped.
"""

import numpy as np

from ..atomic import atomic_write
from ..errors import ParseError
from ..mesh import Mesh
from ..numtext import format_table

_MISSING = np.iinfo(np.int64).min  # a corner without uv or normal


def read_obj(path):
    """Read an OBJ file into a Mesh; errors name the file and line."""
    with open(path, "rb") as f:
        data = f.read()
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
        self.groups, self.objects = {}, {}
        self.materials, self.libraries = [], []
        groups, material, smooth, obj = ["default"], -1, 0, None
        for number, line in enumerate(text.replace("\\\r\n", " ").replace("\\\n", " ").splitlines(), 1):
            words = line.split(None, 1)
            if not words or words[0].startswith("#"):
                continue
            key, rest = words[0], (words[1] if len(words) > 1 else "")
            rest = rest.split("#", 1)[0]
            if key in self.rows:
                self.rows[key].append((number, rest))
            elif key == "f":
                face = len(self.faces)
                self.faces.append((number, rest.split(), material, smooth))
                for name in groups:
                    self.groups.setdefault(name, []).append(face)
                if obj is not None:
                    self.objects.setdefault(obj, []).append(face)
            elif key == "g":
                groups = rest.split() or ["default"]
            elif key == "o":
                obj = rest.strip()
            elif key == "usemtl":
                name = rest.strip()
                if name not in self.materials:
                    self.materials.append(name)
                material = self.materials.index(name)
            elif key == "mtllib":
                self.libraries += rest.split()
            elif key == "s":
                value = rest.strip().lower()
                smooth = 0 if value in ("off", "0", "") else int(value) if value.isdigit() else 1

    def numbers(self, key, minimum, maximum):
        """(n, columns) array of the `key` rows, in one parse when they share a column count."""
        rows = self.rows[key]
        if not rows:
            return np.zeros((0, minimum))
        try:
            values = np.array(" ".join(text for _, text in rows).split(), dtype=float)
        except ValueError:
            values = None
        columns = values.size // len(rows) if values is not None else 0
        if values is None or values.size % len(rows) or not minimum <= columns <= maximum \
                or not np.isfinite(values).all():
            return self.slow_numbers(key, minimum, maximum)
        table = values.reshape(len(rows), columns)
        if any(len(text.split()) != columns for _, text in rows[:: max(1, len(rows) // 64)]):
            return self.slow_numbers(key, minimum, maximum)  # same total, different rows
        return table

    def slow_numbers(self, key, minimum, maximum):
        table = []
        for number, text in self.rows[key]:
            words = text.split()
            if not minimum <= len(words) <= maximum:
                raise ParseError(self.path, f"'{key}' needs {minimum} to {maximum} numbers, found {len(words)}",
                                 line=number)
            try:
                values = [float(w) for w in words]
            except ValueError:
                values = [float("nan")]
            if not np.isfinite(values).all():
                raise ParseError(self.path, f"'{key}': expected numbers, found {text.strip()[:60]!r}", line=number)
            table.append(values + [np.nan] * (maximum - len(values)))
        return np.array(table)

    def uniform_corners(self, tokens):
        """(C, 3) raw indices in one parse when every corner has the same form, else None."""
        if not tokens:
            return np.zeros((0, 3), dtype=np.int64)
        first = tokens[0]
        joined = " ".join(tokens)
        if joined.count("/") != first.count("/") * len(tokens) or \
                joined.count("//") != first.count("//") * len(tokens) or first.count("/") > 2:
            return None
        try:
            values = np.array(joined.replace("//", f"/{_MISSING}/").replace("/", " ").split(), dtype=np.int64)
        except ValueError:
            return None
        columns = first.count("/") + 1
        if values.size != columns * len(tokens):
            return None
        table = np.full((len(tokens), 3), _MISSING, dtype=np.int64)
        table[:, :columns] = values.reshape(-1, columns)
        return table

    def corner(self, token, face):
        """Raw (v, vt, vn) indices of one corner (_MISSING where absent)."""
        parts = token.split("/")
        if len(parts) > 3 or not parts[0]:
            raise ParseError(self.path, f"bad face corner {token!r} (expected v, v/vt, v//vn or v/vt/vn)",
                             line=self.faces[face][0])
        try:
            return [int(p) if p else _MISSING for p in parts + [""] * (3 - len(parts))]
        except ValueError:
            raise ParseError(self.path, f"bad face corner {token!r}: not an index", line=self.faces[face][0]) from None

    def mesh(self):
        v = self.numbers("v", 3, 7)
        vt = self.numbers("vt", 1, 3)
        vn = self.numbers("vn", 3, 3)
        colours = v[:, 3:6] if v.shape[1] >= 6 and not np.isnan(v[:, 3:6]).any() else None
        counts = {"v": len(v), "vt": len(vt), "vn": len(vn)}
        sizes = np.array([len(f[1]) for f in self.faces], dtype=np.intp)
        short = np.flatnonzero(sizes < 3)
        if len(short):
            raise ParseError(self.path, f"a face needs at least 3 corners, found {sizes[short[0]]}",
                             line=self.faces[short[0]][0])
        tokens = [t for f in self.faces for t in f[1]]
        corners = self.uniform_corners(tokens)
        if corners is None:
            corners = np.array([self.corner(t, f) for f, face in enumerate(self.faces) for t in face[1]],
                               dtype=np.int64).reshape(-1, 3)
        face_of_corner = np.repeat(np.arange(len(sizes)), sizes)
        for column, key in enumerate(("v", "vt", "vn")):
            # negative indices count back from the last one defined before the face
            seen = np.searchsorted([n for n, _ in self.rows[key]], [f[0] for f in self.faces])[face_of_corner]
            raw = corners[:, column]
            index = np.where(raw > 0, raw - 1, seen + raw)
            bad = np.flatnonzero((raw != _MISSING) & ((raw == 0) | (index < 0) | (index >= counts[key])))
            if len(bad):
                face = self.faces[face_of_corner[bad[0]]]
                raise ParseError(self.path, f"face corner: {key} index {raw[bad[0]]} out of range "
                                            f"(1..{counts[key]})", line=face[0])
            corners[:, column] = np.where(raw == _MISSING, -1, index)
        return Mesh(v[:, :3], sizes, corners[:, 0], colours=colours, uvs=vt[:, :2] if len(vt) else None,
                    normals=vn, face_uvs=corners[:, 1] if (corners[:, 1] >= 0).any() else None,
                    face_normals=corners[:, 2] if (corners[:, 2] >= 0).any() else None,
                    face_materials=[f[2] for f in self.faces], materials=self.materials,
                    material_libraries=self.libraries, groups=self.groups, objects=self.objects,
                    face_smooth=[f[3] for f in self.faces])


def write_obj(mesh, path, *, precision=6, vertices=None):
    """Write `mesh` (optionally with other vertex positions, e.g. one frame) to an OBJ file."""
    vertices = mesh.vertices if vertices is None else np.asarray(vertices, dtype=float)
    with atomic_write(path) as f:
        f.write(b"# written by Mocap I/O\n")
        for library in mesh.material_libraries:
            f.write(f"mtllib {library}\n".encode())
        columns = vertices if mesh.colours is None else np.hstack([vertices, mesh.colours])
        for key, table in (("v", columns), ("vt", mesh.uvs), ("vn", mesh.normals)):
            if len(table):
                lines = format_table(table, precision).splitlines(keepends=True)
                f.write(b"".join(key.encode() + b" " + line for line in lines))
        f.write(_faces(mesh).encode())


def _faces(mesh):
    """The f/g/o/usemtl/s statements, switching state only where it changes."""
    membership = [[] for _ in range(len(mesh.face_sizes))]
    for name, faces in mesh.groups.items():
        for face in faces:
            membership[face].append(name)
    owner = [None] * len(mesh.face_sizes)
    for name, faces in mesh.objects.items():
        for face in faces:
            owner[face] = name
    starts = mesh.face_starts
    out, state = [], (None, None, None, None)
    for p, (start, size) in enumerate(zip(starts, mesh.face_sizes)):
        now = (owner[p], tuple(membership[p]), mesh.face_materials[p], mesh.face_smooth[p])
        if now[0] != state[0] and now[0] is not None:
            out.append(f"o {now[0]}")
        if now[1] != state[1]:
            out.append("g " + " ".join(now[1] or ("default",)))
        if now[2] != state[2] and now[2] >= 0:
            out.append(f"usemtl {mesh.materials[now[2]]}")
        if now[3] != state[3]:
            out.append(f"s {now[3] or 'off'}")
        state = now
        corners = []
        for c in range(start, start + size):
            text = str(mesh.face_vertices[c] + 1)
            uv = mesh.face_uvs[c] if mesh.face_uvs is not None else -1
            normal = mesh.face_normals[c] if mesh.face_normals is not None else -1
            if normal >= 0:
                text += f"/{uv + 1 if uv >= 0 else ''}/{normal + 1}"
            elif uv >= 0:
                text += f"/{uv + 1}"
            corners.append(text)
        out.append("f " + " ".join(corners))
    return "\n".join(out) + "\n" if out else ""
