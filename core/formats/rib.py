"""RenderMan RIB writer: a motion as stick figures (a sphere per joint and a cylinder per bone, each
in its joint's world transform), markers as spheres, a mesh or mesh animation as PointsPolygons; one
file of FrameBegin/FrameEnd blocks, or one file per frame (a path with a '#' run, see core.sequence).

Files follow the RenderMan RIB structuring conventions: ``##RenderMan RIB-Structure 1.1`` first,
then ##Scene, ##Creator, ##CreationDate, ##For, ##Frames and, where they apply, ##Shaders (a
nonstandard surface shader) and ##CapabilitiesNeeded (motion blur); every frame block opens with
its ##CameraOrientation (eye, look-at point, up), and ##Include precedes each archive asked for.
The camera, the same for every frame, looks at the middle of everything the frames show from a
three-quarter view above, far enough for the whole motion to fit its field of view. Lengths are
in file units; the world is right-handed with the data's up axis up (core.figure.Figure.up).
"""

import getpass
import os
import time

import numpy as np

from .. import rotations
from ..atomic import atomic_write
from ..errors import require_bounded
from ..figure import Figure
from ..fk import points_in_world
from ..markers import Markers
from ..motion import Motion
from ..numtext import format_table, line_spans, splice
from ..sequence import frame_path
from . import is_sequence

STANDARD_SHADERS = ("constant", "matte", "metal", "shinymetal", "plastic", "paintedplastic")
_BLOCK = 256  # frames formatted at a time


def write_rib(
    data,
    path,
    *,
    frames=None,
    radius=None,
    shader="plastic",
    include=(),
    image=None,
    resolution=(640, 480),
    fov=40.0,
    motion_blur=False,
    scene=None,
    user=None,
    date=None,
    precision=6,
):
    """Write `data` (Motion, Markers, Mesh or MeshAnimation) as RIB; returns the paths written.

    path         one file with a FrameBegin/FrameEnd block per frame, or a sequence "walk_####.rib":
                 one complete file per frame, numbered by frame (from 1)
    frames       indices of the frames to write (default: all)
    radius       joint and marker sphere radius (bones: half of it), file units (default: 1% of the
                 diagonal of the box holding every frame)
    shader       surface shader: a standard one, or another name (then listed in ##Shaders)
    include      RIB archives read into every frame's world (ReadArchive, announced by ##Include):
                 lights, a floor, ...
    image        the rendered images' names, a '#' run for the frame number (default: the RIB
                 file's name with .tif, "walk.####.tif")
    motion_blur  geometry moves from each frame to the next while the shutter is open (MotionBegin
                 blocks; ##CapabilitiesNeeded Motion Blur)
    scene, user, date
                 ##Scene (default: the file name), ##For (default: the user name), ##CreationDate
                 (default: now)
    """
    figure = Figure(data)
    if isinstance(data, Motion):
        data.require_writable()
    index = np.arange(figure.frame_count)[slice(None) if frames is None else frames]
    index = np.atleast_1d(index)
    low, high = figure.bounds()
    size = float(np.linalg.norm(high - low)) or 1.0
    radius = 0.01 * size if radius is None else float(radius)
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"radius must be a positive number, not {radius}")
    name = os.path.basename(str(path))
    stem = os.path.splitext(name)[0]
    image = image or (stem + ".tif" if is_sequence(path) else stem + ".####.tif")
    header = {
        "Scene": scene or stem.replace("#", "").strip("._-") or stem,
        "Creator": "Mocap I/O (mocap_io)",
        "CreationDate": date or time.ctime(),
        "For": user or _user(),
    }
    capabilities = ["Motion Blur"] if motion_blur else []
    shaders = [] if shader in STANDARD_SHADERS else [shader]
    camera = _Camera(low, high, figure.up, fov, resolution)
    scene_text = _Scene(figure, radius, shader, include, camera, motion_blur, precision, shaders)

    def head(count):
        lines = ["##RenderMan RIB-Structure 1.1"] + [f"##{key} {value}" for key, value in header.items()]
        lines.append(f"##Frames {count}")
        lines += [f"##Shaders {', '.join(shaders)}"] if shaders else []
        lines += [f"##CapabilitiesNeeded {', '.join(capabilities)}"] if capabilities else []
        return ("\n".join(lines) + "\nversion 3.04\n").encode()

    if is_sequence(path):
        paths = [frame_path(path, int(f) + 1) for f in index]
        for file, start in zip(paths, range(len(index))):
            with atomic_write(file) as f:
                f.write(head(1))
                for block in scene_text.frames(index[start : start + 1], image):
                    f.write(block)
        return paths
    with atomic_write(path) as f:
        f.write(head(len(index)))
        for start in range(0, len(index), _BLOCK):
            for block in scene_text.frames(index[start : start + _BLOCK], image):
                f.write(block)
    return [os.fspath(path)]


def _user():
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):  # no login name, no password entry
        return "unknown"


class _Camera:
    """A fixed perspective camera framing the box low..high from a three-quarter view above."""

    def __init__(self, low, high, up, fov, resolution):
        self.width, self.height = (int(v) for v in resolution)
        if self.width < 1 or self.height < 1:
            raise ValueError(f"resolution must be two positive whole numbers, not {resolution}")
        if not 0 < fov < 180:
            raise ValueError(f"fov must be between 0 and 180 degrees, not {fov}")
        self.fov = float(fov)
        self.up = np.asarray(up, dtype=float)
        axis = int(np.argmax(np.abs(self.up)))
        front, side = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]  # Y up: +Z front, +X side
        self.at = (low + high) / 2
        reach = max(float(np.linalg.norm(high - low)) / 2, 1e-6)
        # the shorter side of the image spans `fov` (RenderMan's rule): the bounding sphere fits it
        half = np.radians(self.fov) / 2
        distance = 1.1 * reach / np.sin(half)
        view = 2.0 * front + 1.0 * side + 0.8 * self.up
        self.eye = self.at + distance * view / np.linalg.norm(view)
        self.near, self.far = max(distance - 1.5 * reach, distance * 1e-3), distance + 1.5 * reach

    def matrix(self):
        """World to camera space (RenderMan's left-handed camera: x right, y up, z ahead), as the 16
        numbers of a RIB transform (row vectors)."""
        ahead = self.at - self.eye
        ahead /= np.linalg.norm(ahead)
        right = np.cross(ahead, self.up)
        right /= np.linalg.norm(right)
        up = np.cross(right, ahead)
        rows = np.stack([right, up, ahead])  # camera coordinates of a world vector: rows @ v
        out = np.eye(4)
        out[:3, :3] = rows.T
        out[3, :3] = -rows @ self.eye
        return out.ravel()

    def text(self, precision):
        """The requests after each frame's Display (the same in every frame)."""
        numbers = " ".join(_numbers(self.matrix(), precision))
        return (
            f"Format {self.width} {self.height} 1\n"
            f'Projection "perspective" "fov" [{self.fov:g}]\n'
            f"Clipping {self.near:.6g} {self.far:.6g}\n"
            f"Transform [{numbers}]\n"
        )

    def orientation(self, precision):
        return "##CameraOrientation " + " ".join(_numbers(np.concatenate([self.eye, self.at, self.up]), precision))


class _Scene:
    """The frame blocks of one figure."""

    def __init__(self, figure, radius, shader, include, camera, motion_blur, precision, shaders):
        self.figure, self.radius, self.camera = figure, radius, camera
        self.view = camera.text(precision)
        self.motion_blur, self.precision = motion_blur, precision
        lights = (
            'LightSource "ambientlight" 1 "intensity" [0.15]\n'
            f'LightSource "distantlight" 2 "intensity" [0.9] "from" [{" ".join(_numbers(camera.eye, precision))}] '
            f'"to" [{" ".join(_numbers(camera.at, precision))}]\n'
        )
        archives = "".join(f'##Include {file}\nReadArchive "{file}"\n' for file in include)
        self.world = f'{lights}{archives}Color [0.8 0.8 0.8]\nSurface "{shader}"\n'
        self.frame_notes = [camera.orientation(precision)] + ([f"##Shaders {', '.join(shaders)}"] if shaders else [])
        if figure.kind == "mesh":
            mesh = figure.mesh
            counts = " ".join(map(str, mesh.face_sizes.tolist()))
            corners = " ".join(map(str, mesh.face_vertices.tolist()))
            self.polygons = f"PointsPolygons [{counts}] [{corners}]".encode()

    def frames(self, index, image):
        """Bytes of the frame blocks of frames `index`."""
        later = np.minimum(index + 1, self.figure.frame_count - 1)
        shapes = self.shapes(index, later if self.motion_blur else None)
        for k, frame in enumerate(index):
            number = int(frame) + 1
            opening = f"FrameBegin {number}\n" + "\n".join(self.frame_notes) + "\n"
            opening += f'Display "{frame_path(image, number) if "#" in image else image}" "file" "rgba"\n'
            opening += self.view
            if self.motion_blur:
                opening += "Shutter 0 1\n"
            yield (opening + "WorldBegin\n" + self.world).encode()
            yield shapes[k]
            yield b"WorldEnd\nFrameEnd\n"

    def shapes(self, index, later):
        """Per frame of `index`, the bytes of its geometry (moving to the frames `later` if given)."""
        data = self.figure.data
        if isinstance(data, Motion):
            return self.skeleton(data, index, later)
        if isinstance(data, Markers):
            return self.markers(data, index, later)
        return self.mesh(index, later)

    def skeleton(self, motion, index, later):
        """A sphere per joint and a cylinder per bone (to each child and End Site) in the joint's
        world transform (rotation and position; an HTR scale sizes no sphere)."""
        segments = self.figure.segments
        transforms, bones, lengths = _skeleton_frames(motion, index, segments)
        moved = (None, None) if later is None else _skeleton_frames(motion, later, segments)[:2]
        text = _Text(len(index))
        joint = text.requests("ConcatTransform", transforms, moved[0], self.precision)
        turn = text.requests("ConcatTransform", bones, moved[1], self.precision)
        sphere = text.piece(f"Sphere {self.radius:.6g} {-self.radius:.6g} {self.radius:.6g} 360\n".encode())
        values, which = np.unique(lengths, return_inverse=True)  # a rigid figure's bones: few lengths
        starts, sizes = text.rows("".join(f"{v:.6g}\n" for v in values.tolist()).encode())
        which = which.reshape(lengths.shape)
        cylinder = text.piece(f"Cylinder {self.radius / 2:.6g} 0 ".encode()), text.piece(b" 360\n")
        begin, end = text.piece(b"TransformBegin\n"), text.piece(b"TransformEnd\n")
        columns = []
        for j, name in enumerate(motion.skeleton.names):
            columns += [_label(text, name), *joint(j), sphere]
            for b in np.flatnonzero(segments[:, 0] == j):
                length = starts[which[:, b]], sizes[which[:, b]]
                # joints at one place (CMU's hip joints) have no bone between them
                columns += _only([begin, *turn(b), cylinder[0], length, cylinder[1], end], lengths[:, b] > 0)
            columns.append(text.piece(b"AttributeEnd\n"))
        return text.join(columns)

    def markers(self, markers, index, later):
        """A sphere per marker seen in the frame (and, with motion blur, in the next one)."""
        places = markers.positions[index].astype(float)
        seen = np.isfinite(places).all(axis=-1)
        after = None
        if later is not None:
            after = markers.positions[later].astype(float)
            seen &= np.isfinite(after).all(axis=-1)
            after = np.nan_to_num(after)
        text = _Text(len(index))
        move = text.requests("Translate", np.nan_to_num(places), after, self.precision)
        sphere = text.piece(f"Sphere {self.radius:.6g} {-self.radius:.6g} {self.radius:.6g} 360\n".encode())
        end = text.piece(b"AttributeEnd\n")
        columns = []
        for m, name in enumerate(markers.names):
            columns += _only([_label(text, name), *move(m), sphere, end], seen[:, m])
        return text.join(columns)

    def mesh(self, index, later):
        """PointsPolygons of each frame's vertex positions."""
        points = self.figure.points(index)
        require_bounded(points, lambda f, v, axis: f"vertex {v} {'xyz'[axis]} at frame {index[f]}")
        moved = None if later is None else self.figure.points(later)
        out = []
        for k in range(len(index)):
            shape = self.polygons + b' "P" [' + format_table(points[k], self.precision).replace(b"\n", b" ") + b"]\n"
            if moved is not None:  # motion blur: from this frame's points to the next's
                after = format_table(moved[k], self.precision).replace(b"\n", b" ")
                shape = b"MotionBegin [0 1]\n" + shape + self.polygons + b' "P" [' + after + b"]\nMotionEnd\n"
            out.append(b'AttributeBegin\nAttribute "identifier" "string name" ["mesh"]\n' + shape + b"AttributeEnd\n")
        return out


class _Text:
    """Frame blocks assembled from pieces of one buffer (constants, rows of formatted tables), by
    columns: a column is a piece per frame, (start, length) as numbers or arrays over the frames."""

    def __init__(self, frames):
        self.frames, self.parts, self.size = frames, [], 0

    def piece(self, data):
        """The column of `data` (bytes) in every frame."""
        self.parts.append(data)
        self.size += len(data)
        return self.size - len(data), len(data)

    def rows(self, lines):
        """(starts, lengths) of the lines of `lines` (bytes), their newlines left out."""
        starts, lengths = line_spans(lines)
        return self.piece(lines)[0] + starts, lengths

    def requests(self, request, values, moved, precision):
        """A function of item n: the columns of its request (``Translate x y z``, else ``request
        [numbers]``) in each frame of `values` (F, N, k), or of a MotionBegin block from it to
        `moved` (the same shape) if given."""
        words = (b"Translate ", b"\n") if request == "Translate" else (request.encode() + b" [", b"]\n")
        head, tail = (self.piece(word) for word in words)
        tables = []
        for table in [values] if moved is None else [values, moved]:
            starts, lengths = self.rows(format_table(table.reshape(-1, table.shape[-1]), precision))
            tables.append((starts.reshape(table.shape[:2]), lengths.reshape(table.shape[:2])))
        if moved is None:
            return lambda n: [head, (tables[0][0][:, n], tables[0][1][:, n]), tail]
        begin, end = self.piece(b"MotionBegin [0 1]\n"), self.piece(b"MotionEnd\n")
        return lambda n: [begin] + [c for s, k in tables for c in (head, (s[:, n], k[:, n]), tail)] + [end]

    def join(self, columns):
        """Per frame, the bytes of `columns` one after the other."""
        shape = (self.frames, len(columns))
        starts = np.empty(shape, dtype=np.intp)
        lengths = np.empty(shape, dtype=np.intp)
        for i, (start, length) in enumerate(columns):
            starts[:, i], lengths[:, i] = start, length
        text = splice(b"".join(self.parts), starts, lengths)
        ends = np.cumsum(lengths.sum(axis=1)).tolist()
        return [text[a:b] for a, b in zip([0] + ends[:-1], ends)]


def _only(columns, keep):
    """`columns` in the frames where `keep` (F,) holds, empty in the others."""
    return [(start, length * keep) for start, length in columns]


def _label(text, name):
    """The column opening the named attribute block of a joint or marker."""
    return text.piece(b'AttributeBegin\nAttribute "identifier" "string name" [' + _quoted(name) + b"]\n")


def _skeleton_frames(motion, index, segments):
    """Per frame of `index`: joint world transforms (F, J, 16) as RIB numbers (rotation and position),
    bone turns (F, S, 16) taking +Z along each bone in its joint's frame, and bone lengths (F, S)."""
    s = motion.skeleton
    take = motion.take(index)
    linear, position = take.world_transforms()  # HTR's scales size End Sites and bones
    rotation = linear if take.scales is None else linear / take.scales[..., None, None]
    ends = points_in_world(linear, position, s.end_site_parents, s.end_site_offsets)
    points = np.concatenate([position, ends], axis=1)
    matrices = np.zeros(position.shape[:2] + (4, 4))
    matrices[..., :3, :3] = np.swapaxes(rotation, -1, -2)  # row vectors: the transpose
    matrices[..., 3, :3] = position
    matrices[..., 3, 3] = 1.0
    parent, child = segments[:, 0], segments[:, 1]
    vector = np.einsum("fsji,fsj->fsi", rotation[:, parent], points[:, child] - points[:, parent])
    lengths = np.linalg.norm(vector, axis=-1)
    direction = np.where(lengths[..., None] > 0, vector, [0.0, 0.0, 1.0])
    turns = np.zeros(vector.shape[:2] + (4, 4))
    turns[..., :3, :3] = np.swapaxes(rotations.rotation_between(np.array([0.0, 0.0, 1.0]), direction), -1, -2)
    turns[..., 3, 3] = 1.0
    frames = len(index)
    return matrices.reshape(frames, -1, 16), turns.reshape(frames, -1, 16), lengths


def _numbers(values, precision):
    """The numbers of `values` as text, one string each."""
    return format_table(np.reshape(values, (1, -1)), precision).decode().split()


def _quoted(text):
    """A RIB string literal of `text` (quotes and backslashes escaped), as bytes."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return b'"' + escaped.encode("utf-8") + b'"'
