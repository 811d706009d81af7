"""`mocap-io preview`: a motion, markers or a mesh animation at a glance, drawn with Pillow.

PNG: poses at evenly spaced frames, coloured from dark (first) to light (last), in three views
(front, side, top; one scale for all three) above a plot of every point's speed over time (the five
fastest in colour). GIF: the three views playing. Meshes are drawn as wireframes. Two motions (`compare`): both at the
same times, from the side and the front of each, above its floor (a retarget against its source).

Pillow is the imaging dependency (the optional extra `mocap_io[preview]`): one well-kept package
with no dependencies of its own that draws lines and text and writes PNG and animated GIF itself;
matplotlib would bring a dozen packages for the same pictures, imageio needs Pillow anyway, and an
MP4 would need an ffmpeg binary. The Blender extension and the core never import it.
"""

import io
import os
import sys

import numpy as np

from ..core.atomic import atomic_write
from ..core.figure import Figure
from .errors import MissingDependency, UsageError
from .files import PLURAL, kind_of, make_folder
from .progress import Progress

_STOPS = np.array([(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)], dtype=float)
_HIGHLIGHT = [(228, 26, 28), (55, 126, 184), (77, 175, 74), (152, 78, 163), (255, 127, 0)]
_BACKGROUND, _INK, _FAINT = (255, 255, 255), (40, 40, 40), (215, 215, 215)
_MAX_EDGES = 20000  # mesh edges drawn per pose (an even subset beyond that)
_MAX_GIF_FRAMES = 300
# the images written, by extension: Pillow's format name and its options ('-' is PNG)
IMAGES = {
    ".png": ("PNG", {}),
    ".jpg": ("JPEG", {"quality": 92}),
    ".jpeg": ("JPEG", {"quality": 92}),
    ".webp": ("WEBP", {"lossless": True}),
    ".gif": ("GIF", {}),  # the motion playing
}


def _pillow():
    try:
        from PIL import Image, ImageDraw, ImageFont  # pyright: ignore[reportMissingImports] - optional: not in the type-check venv
    except ImportError:
        raise MissingDependency(
            "preview needs Pillow: pip install 'mocap_io[preview]' (or pip install pillow)"
        ) from None
    return Image, ImageDraw, ImageFont


def image_format(output, moving=True):
    """The Pillow format `output` names by its extension ('-': PNG): PNG, JPEG, WEBP, or (`moving`)
    GIF; None for a GIF when not `moving`. Any other extension is a UsageError."""
    name = IMAGES[_image_extension(output)][0]
    return None if name == "GIF" and not moving else name


def _image_extension(output):
    ext = ".png" if output == "-" else os.path.splitext(str(output))[1].lower()
    if ext not in IMAGES:
        raise UsageError(
            f"{output}: preview writes {', '.join(IMAGES)} (a .gif plays the motion), not '{ext or 'no extension'}'"
        )
    return ext


def _save(image, output, **options):
    """Encode `image` in the format `output` names (see image_format) and write it."""
    Image, _, _ = _pillow()
    name, defaults = IMAGES[_image_extension(output)]
    Image.init()
    if name not in Image.SAVE:
        raise MissingDependency(f"{output}: this Pillow cannot write {name}: pip install --upgrade pillow")
    buffer = io.BytesIO()
    image.save(buffer, format=name, **defaults, **options)
    _write(buffer.getvalue(), output)


def preview(data, output, *, size=None, poses=None, up=None, gif_fps=25.0, title="", progress=False):
    """Draw `data` (Motion, Markers, Mesh or MeshAnimation) to `output`: a .gif plays it, a .png,
    .jpg or .webp ('-': PNG on standard output) is the sheet. `up`: "x", "-z", ... (default:
    Figure.up). `progress`: a GIF's frames drawn are shown on standard error (on a terminal)."""
    moving = image_format(output) == "GIF"
    figure = Figure(data)
    up_vector = figure.up if up is None else np.eye(3)["xyz".index(up[-1])] * (-1 if up.startswith("-") else 1)
    views = _views(up_vector)
    if not figure.frame_count:
        raise ValueError(f"{title}: no frames to draw")
    if moving:
        images, milliseconds = _gif(figure, views, size or (960, 360), gif_fps, title, progress)
        _save(images[0], output, save_all=True, append_images=images[1:], duration=milliseconds, loop=0)
    else:
        _save(_sheet(figure, views, size or (1200, 800), poses, title), output)


def _write(data, output):
    """The image's bytes to the file `output` (written atomically, its folder made) or, for '-', to
    standard output."""
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        make_folder(output)
        with atomic_write(output) as f:
            f.write(data)


def _views(up):
    """(name, horizontal axis, vertical axis) of the front, side and top views for the up direction."""
    axis = int(np.argmax(np.abs(up)))
    side, front = np.eye(3)[(axis + 2) % 3], np.eye(3)[(axis + 1) % 3]  # Y up: X to the side, Z to the front
    out = []
    for name, looking, screen_up in (("front", -front, up), ("side", -side, up), ("top", -up, -np.cross(side, up))):
        out.append((name, np.cross(looking, screen_up), screen_up))
    return out


def _font(size):
    _, _, ImageFont = _pillow()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _colours(count):
    """`count` colours from dark blue to yellow (viridis stops), first to last."""
    where = np.linspace(0, len(_STOPS) - 1, count) if count > 1 else np.zeros(1)
    low = np.minimum(where.astype(int), len(_STOPS) - 2)
    mix = (where - low)[:, None]
    return [tuple(int(v) for v in c) for c in (_STOPS[low] * (1 - mix) + _STOPS[low + 1] * mix).round()]


class _Panel:
    """A rectangle of the image showing one view at a given scale (pixels per file unit)."""

    def __init__(self, box, view, scale, centre):
        self.box, (self.name, self.right, self.up), self.scale, self.centre = box, view, scale, centre

    def project(self, points):
        """(..., 2) pixel positions of points (..., 3)."""
        x0, y0, x1, y1 = self.box
        flat = np.stack([points @ self.right, points @ self.up], axis=-1) - self.centre
        return np.stack([(x0 + x1) / 2 + flat[..., 0] * self.scale, (y0 + y1) / 2 - flat[..., 1] * self.scale], -1)


def _panels(figure, views, boxes, margin=14):
    """One _Panel per view, framing every point of every frame at one common scale."""
    low, high = figure.bounds()
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])])
    spans, centres = [], []
    for _, right, up in views:
        flat = np.stack([corners @ right, corners @ up], axis=-1)
        spans.append(np.ptp(flat, axis=0))
        centres.append((flat.min(axis=0) + flat.max(axis=0)) / 2)
    fits = [
        min((b[2] - b[0] - 2 * margin) / max(s[0], 1e-12), (b[3] - b[1] - 2 * margin) / max(s[1], 1e-12))
        for b, s in zip(boxes, spans)
    ]
    scale = min(fits) if np.any(np.array(spans) > 0) else 1.0
    return [_Panel(b, v, scale, c) for b, v, c in zip(boxes, views, centres)]


def _draw_pose(draw, panel, figure, points, colour, width, dot):
    """One pose (N, 3) in a panel: segments as lines, points as dots (markers: dots only)."""
    pixels = panel.project(points)
    segments = figure.segments
    if len(segments) > _MAX_EDGES:
        segments = segments[np.linspace(0, len(segments) - 1, _MAX_EDGES).astype(int)]
    ends = pixels[segments]
    shown = np.isfinite(ends).all(axis=(1, 2))
    for (ax, ay), (bx, by) in ends[shown].tolist():
        draw.line([(ax, ay), (bx, by)], fill=colour, width=width)
    if dot and figure.kind != "mesh":
        for x, y in pixels[np.isfinite(pixels).all(axis=1)].tolist():
            draw.ellipse([x - dot, y - dot, x + dot, y + dot], fill=colour)


def _frame_panels(draw, font, panels):
    for panel in panels:
        draw.rectangle(panel.box, outline=_FAINT)
        draw.text((panel.box[0] + 6, panel.box[1] + 4), panel.name, fill=_INK, font=font)


def _heading(figure, title):
    what = {"skeleton": "joints and End Sites", "markers": "markers", "mesh": "vertices"}[figure.kind]
    frames = f"{figure.frame_count} frames at {figure.fps:.6g} fps ({figure.frame_count / figure.fps:.3g} s)"
    return f"{title}   {figure.point_count} {what}, {frames}"


def _sheet(figure, views, size, poses, title):
    Image, ImageDraw, _ = _pillow()
    width, height = size
    image = Image.new("RGB", size, _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = _font(max(10, height // 60))
    top, views_bottom = max(20, height // 28), int(height * 0.62)
    draw.text((8, 4), _heading(figure, title), fill=_INK, font=font)
    third = width / 3
    boxes = [(int(i * third) + 4, top, int((i + 1) * third) - 4, views_bottom) for i in range(3)]
    panels = _panels(figure, views, boxes)
    _frame_panels(draw, font, panels)
    count = poses or (4 if figure.kind == "mesh" else 8)
    frames = np.unique(np.linspace(0, figure.frame_count - 1, max(1, count)).round().astype(int))
    colours = _colours(len(frames))
    points = figure.points(frames)
    thick = max(1, height // 400) + (figure.kind != "mesh")
    for panel in panels:
        for pose, colour in zip(points, colours):
            _draw_pose(draw, panel, figure, pose, colour, thick, thick)
    _speed_plot(draw, font, figure, (4, views_bottom + 8, width - 4, height - 4))
    return image


def _speeds(figure):
    """(F - 1,) times and (F - 1, K) speeds in file units per second, with a name per column: every
    point's for skeletons and markers, the mean and the largest vertex speed for meshes."""
    times = (np.arange(1, figure.frame_count) - 0.5) / figure.fps
    if figure.kind != "mesh":
        points = figure.points()
        with np.errstate(invalid="ignore"):
            return times, np.linalg.norm(np.diff(points, axis=0), axis=-1) * figure.fps, figure.names
    mean, most, previous = [], [], None
    for _, block in figure.blocks():
        if previous is not None:
            block = np.concatenate([previous, block])
        speed = np.linalg.norm(np.diff(block, axis=0), axis=-1) * figure.fps
        mean.append(speed.mean(axis=1))
        most.append(speed.max(axis=1))
        previous = block[-1:]
    return times, np.stack([np.concatenate(mean), np.concatenate(most)], axis=1), ["mean vertex", "fastest vertex"]


def _speed_plot(draw, font, figure, box):
    x0, y0, x1, y1 = box
    draw.rectangle(box, outline=_FAINT)
    label = "speed (file units / s) over time (s)"
    draw.text((x0 + 6, y0 + 4), label, fill=_INK, font=font)
    if figure.frame_count < 2:
        draw.text((x0 + 6, y0 + 24), "one frame: no speeds", fill=_INK, font=font)
        return
    times, speeds, names = _speeds(figure)
    finite = speeds[np.isfinite(speeds)]
    ceiling = float(np.percentile(finite, 99.5)) if finite.size else 1.0
    ceiling = ceiling if ceiling > 0 else 1.0
    left, right, top, bottom = x0 + 56, x1 - 170, y0 + 26, y1 - 22
    if right - left < 20 or bottom - top < 10:
        draw.text((x0 + 6, y0 + 24), "too small for the plot: a larger --size shows it", fill=_INK, font=font)
        return
    span = (figure.frame_count - 1) / figure.fps
    samples = np.unique(np.linspace(0, len(times) - 1, min(len(times), 2 * (right - left))).astype(int))
    xs = left + times[samples] / span * (right - left)

    def ys(column):
        return bottom - np.clip(column[samples] / ceiling, 0, 1) * (bottom - top)

    with np.errstate(invalid="ignore"):
        mean = np.nanmean(np.where(np.isfinite(speeds), speeds, np.nan), axis=0)
    order = np.argsort(-np.nan_to_num(mean, nan=-1.0))
    fastest = order[: len(_HIGHLIGHT)]
    for column in order[len(_HIGHLIGHT) :]:
        _polyline(draw, xs, ys(speeds[:, column]), _FAINT)
    for colour, column in zip(_HIGHLIGHT, fastest):
        _polyline(draw, xs, ys(speeds[:, column]), colour)
    for k, (colour, column) in enumerate(zip(_HIGHLIGHT, fastest)):
        draw.line([(right + 10, top + 8 + 16 * k), (right + 26, top + 8 + 16 * k)], fill=colour, width=3)
        draw.text((right + 30, top + 16 * k), str(names[column])[:22], fill=_INK, font=font)
    draw.line([(left, top), (left, bottom), (right, bottom)], fill=_INK)
    for value in np.linspace(0, ceiling, 5):
        y = bottom - value / ceiling * (bottom - top)
        draw.text((x0 + 4, y - 6), f"{value:.3g}", fill=_INK, font=font)
    for t in np.linspace(0, span, 6):
        x = left + t / span * (right - left)
        draw.text((x - 10, bottom + 4), f"{t:.3g}", fill=_INK, font=font)


def _polyline(draw, xs, ys, colour):
    good = np.isfinite(ys)
    points = list(zip(xs[good].tolist(), ys[good].tolist()))
    if len(points) > 1:
        draw.line(points, fill=colour, width=1)


def _gif(figure, views, size, gif_fps, title, progress=False):
    """The frames of an animated GIF and their duration in ms: the three views of each frame (at
    most `gif_fps` per second and _MAX_GIF_FRAMES frames), all at one scale; `progress`: a bar of
    the frames drawn on standard error (on a terminal)."""
    Image, ImageDraw, _ = _pillow()
    width, height = size
    font = _font(max(10, height // 30))
    top = max(20, height // 14)
    third = width / 3
    boxes = [(int(i * third) + 4, top, int((i + 1) * third) - 4, height - 4) for i in range(3)]
    panels = _panels(figure, views, boxes)
    step = max(1, int(np.ceil(figure.fps / gif_fps)), int(np.ceil(figure.frame_count / _MAX_GIF_FRAMES)))
    frames = np.arange(0, figure.frame_count, step)
    milliseconds = max(20, int(round(1000 * step / figure.fps / 10)) * 10)  # GIF delays are in 1/100 s
    colour = tuple(int(v) for v in _STOPS[1])
    images = []
    bar = Progress(len(frames), enabled=progress, unit="frames")
    for start in range(0, len(frames), 64):
        block = figure.points(frames[start : start + 64])
        for k, pose in enumerate(block):
            image = Image.new("RGB", size, _BACKGROUND)
            draw = ImageDraw.Draw(image)
            draw.text((8, 4), f"{title}   frame {frames[start + k] + 1} of {figure.frame_count}", fill=_INK, font=font)
            _frame_panels(draw, font, panels)
            for panel in panels:
                _draw_pose(draw, panel, figure, pose, colour, 2, 2)
            images.append(image.convert("P", palette=Image.Palette.ADAPTIVE, colors=16))
            bar.update()
    bar.close()
    return images, milliseconds


# --- two motions side by side: `mocap-io preview A B OUT.png`, `mocap-io retarget ... --preview OUT.png` ---

_PAIR_COLOURS = [(31, 99, 180), (214, 39, 40)]  # first (source): blue, second (target): red
_FLOOR = (110, 110, 110)


def compare(
    first,
    second,
    output,
    *,
    labels=("first", "second"),
    names=("", ""),
    size=None,
    poses=None,
    up=None,
    shared_view=False,
    title="",
):
    """Draw two Motions side by side to the image `output` (.png, .jpg, .webp; '-': PNG on standard
    output): the poses of both at
    the same times (`poses`, default 6, evenly over the time both cover), rows source side, target
    side, source front, target front (the side and the front of each figure, from its up and its
    facing: from its right hip to its left, turned a quarter about up), each figure at one height
    (its rest pose's, see _rest_size) above a floor line at its own floor (the lowest point any foot
    reaches in the take).

    labels      the row names ("source", "target")
    names       the file names shown with them
    up          "x", "-z", ...: the up axis of both (default: each Figure.up)
    shared_view draw the second figure from the first's side and front too (the same up and facing):
                for motions in one world, such as a retarget and its source, so that a figure turned
                the wrong way shows turned
    """
    figures = [Figure(m) for m in (first, second)]
    for figure, name in zip(figures, names):
        if figure.kind != "skeleton":
            raise ValueError(f"{name}: holds {PLURAL[kind_of(figure.data)]}; comparing two files works on motions")
        if not figure.frame_count:
            raise ValueError(f"{name}: no frames to draw")
    if image_format(output, moving=False) is None:
        raise UsageError(f"{output}: two motions are compared in a still image (.png, .jpg, .webp), not a GIF")
    forced = None if up is None else np.eye(3)["xyz".index(up[-1])] * (-1 if up.startswith("-") else 1)
    subjects = []
    for k, figure in enumerate(figures):
        view = subjects[0].view if shared_view and k else None
        subjects.append(_Subject(figure, labels[k], names[k], _PAIR_COLOURS[k], forced, view))
    times, span = _common_times(figures, poses or 6)
    for subject in subjects:
        subject.choose(times)
    _save(_comparison_sheet(subjects, times, span, size or (1200, 800), title), output)


def _common_times(figures, count):
    """`count` times (s) evenly over the time every figure of more than one frame covers (a figure of
    one frame is that pose at every time), and that span."""
    spans = [(f.frame_count - 1) / f.fps for f in figures if f.frame_count > 1]
    span = min(spans) if spans else 0.0
    return (np.linspace(0.0, span, max(1, count)) if span > 0 else np.zeros(1)), span


class _Subject:
    """One motion of a comparison: how it is seen (up, facing), its floor and size, which points are
    feet and which are on the right side, and its poses at the chosen times."""

    def __init__(self, figure, label, name, colour, up, view):
        from ..core.bone_map import find_roles
        from ..core.skeleton import child_lists, descendants

        self.figure, self.label, self.name, self.colour = figure, label, name, colour
        self.pale = tuple(int(c + (255 - c) * 0.55) for c in colour)
        skeleton = figure.data.skeleton
        roles = find_roles(skeleton)
        children = child_lists(skeleton.parents)
        joints, ends = skeleton.joint_count, np.asarray(skeleton.end_site_parents, dtype=np.intp)

        def points_below(tops):
            below = np.zeros(joints, dtype=bool)
            for top in tops:
                below[descendants(children, top)] = True
            return np.concatenate([below, below[ends]])

        self.feet = points_below([roles[f"foot.{s}"] for s in "LR" if f"foot.{s}" in roles])
        self.right = points_below([j for role, j in roles.items() if role.endswith(".R") and np.ndim(j) == 0])
        self.centre = roles.get("hips", 0)  # each pose is drawn centred on it
        # what the drawing is fitted to and drawn in colour: not a ground joint above the hips (drawn faint)
        self.body = points_below([self.centre]) if "hips" in roles else np.ones(len(self.feet), dtype=bool)
        if view is None:
            up = figure.up if up is None else up
            view = (up, _facing(figure, roles, up))
        self.view = view
        self.up, self.forward = view
        self.size = _rest_size(skeleton, roles, self, figure)
        self.floor, self.floor_of = self._floor()

    def _floor(self):
        """The lowest height along `up` of a foot point (else of any point) over every frame."""
        which = self.feet if self.feet.any() else np.ones_like(self.feet)
        low = np.inf
        for _, points in self.figure.blocks():
            heights = points[:, which] @ self.up
            if np.isfinite(heights).any():
                low = min(low, float(np.nanmin(heights)))
        return (low if np.isfinite(low) else 0.0), ("lowest foot point" if self.feet.any() else "lowest point")

    def choose(self, times):
        """The frame nearest each time and the poses there."""
        self.frames = np.clip(np.round(times * self.figure.fps).astype(int), 0, self.figure.frame_count - 1)
        self.poses = self.figure.points(self.frames)

    def views(self):
        """(name, screen right, screen up) of the side (the figure walking to the right) and the front
        (the figure facing the viewer: its left on the right)."""
        return [("side", self.forward, self.up), ("front", np.cross(-self.forward, self.up), self.up)]

    def flat(self, right):
        """(P, N, 2) the poses in a view in sizes: across from the hips, up from the floor."""
        across = (self.poses - self.poses[:, self.centre : self.centre + 1]) @ right
        return np.stack([across, self.poses @ self.up - self.floor], axis=-1) / self.size

    def describe(self):
        """The figure's line of the heading."""
        f, axis = self.figure, int(np.argmax(np.abs(self.up)))
        floor = self.floor * float(np.sign(self.up[axis]))
        return (
            f"{self.label}: {self.name}   {f.frame_count} frames at {f.fps:.6g} fps   {self.size:.4g} file units "
            f"tall (rest pose)   up {_axis_name(self.up)}, faces {_axis_name(self.forward)}   "
            f"floor {'xyz'[axis]} = {floor:.3g}"
        )


def _axis_name(vector):
    """ "+Z" for a direction near an axis (within 5 degrees), else its rounded components."""
    axis = int(np.argmax(np.abs(vector)))
    if abs(vector[axis]) > np.cos(np.radians(5)):
        return ("+" if vector[axis] > 0 else "-") + "XYZ"[axis]
    return "(" + ", ".join(f"{round(v, 2) + 0.0:.2f}" for v in vector) + ")"  # + 0.0: no "-0.00"


def _facing(figure, roles, up):
    """(3,) the unit direction the figure faces, across `up`: the left hip (else shoulder, ...) from
    the right one, turned a quarter about `up`, averaged over up to 25 frames; when the skeleton has
    no left and right, the axis after `up` (+Z for +Y up), as the one-figure views take it."""
    for part in ("thigh", "hip", "upper_arm", "clavicle", "foot", "shin"):
        if f"{part}.L" in roles and f"{part}.R" in roles:
            points = figure.points(np.unique(np.linspace(0, figure.frame_count - 1, 25).astype(int)))
            across = points[:, roles[f"{part}.L"]] - points[:, roles[f"{part}.R"]]
            across -= np.outer(across @ up, up)
            lengths = np.linalg.norm(across, axis=1)
            good = lengths > 0
            if good.any():
                left = (across[good] / lengths[good, None]).mean(axis=0)
                if np.linalg.norm(left) > 1e-3:
                    forward = np.cross(left, up)
                    return forward / np.linalg.norm(forward)
    return np.eye(3)[(int(np.argmax(np.abs(up))) + 1) % 3]


def _rest_size(skeleton, roles, subject, figure):
    """The figure's height: from the lowest foot point to the top of the head (the head joint and what
    is below it in the tree, its End Site) in the rest pose, along the rest pose's hips-to-head
    direction, so that arms held out in a T pose or up do not count and a rest pose lying down does;
    without a hips and a head, the largest extent of the rest pose (else of the take); 1 when it has
    no extent."""
    from ..core.fk import points_in_world
    from ..core.skeleton import child_lists, descendants

    linear, position = skeleton.rest_world()
    ends = points_in_world(linear[None], position[None], skeleton.end_site_parents, skeleton.end_site_offsets)[0]
    points = np.concatenate([position, ends])
    head = roles.get("head")
    size = 0.0
    if "hips" in roles and head is not None and np.linalg.norm(position[head] - position[roles["hips"]]) > 0:
        along = position[head] - position[roles["hips"]]
        heights = points @ (along / np.linalg.norm(along))
        top = np.zeros(skeleton.joint_count, dtype=bool)
        top[descendants(child_lists(skeleton.parents), head)] = True
        top = np.concatenate([top, top[np.asarray(skeleton.end_site_parents, dtype=np.intp)]])
        size = float(heights[top].max() - heights[subject.feet if subject.feet.any() else subject.body].min())
    if not size > 0:
        size = float(np.ptp(points[subject.body], axis=0).max())
    if not size > 0:
        low, high = figure.bounds()
        size = float((high - low).max())
    return size if size > 0 else 1.0


def _comparison_sheet(subjects, times, span, size, title):
    """The image: a heading (title, a line per figure, the key), the times over the columns, then the
    rows source side, target side, source front, target front; one pose per cell, every cell of both
    figures at one scale in heights (so both stand equally tall) with the floor at one level."""
    Image, ImageDraw, _ = _pillow()
    width, height = size
    image = Image.new("RGB", size, _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font_size = max(10, height // 60)
    font, small = _font(font_size), _font(max(9, font_size - 2))
    line = font_size + 6
    floors = " or ".join(dict.fromkeys(s.floor_of for s in subjects))
    key = f"thick, dots: feet   pale: right side   grey line: floor ({floors} of the take)"
    key_width = draw.textlength(key, font=small)
    draw.text((width - 8 - key_width, 6), key, fill=_INK, font=small)
    draw.text((8, 4), _fit(draw, title, font, width - key_width - 30), fill=_INK, font=font)
    for k, subject in enumerate(subjects):
        y = 4 + line * (k + 1)
        draw.rectangle([8, y + 2, 8 + font_size, y + font_size], fill=subject.colour)
        draw.text(
            (16 + font_size, y), _fit(draw, subject.describe(), font, width - 24 - font_size), fill=_INK, font=font
        )
    top = 4 + line * 3
    label_width = max(90, width // 9)
    draw.text(
        (8, top + 2), "time" + (" (common part)" if _durations_differ(subjects, span) else ""), fill=_INK, font=small
    )
    columns = len(times)
    cell_width = (width - label_width - 4) / columns
    for c, t in enumerate(times):
        draw.text((label_width + c * cell_width + 6, top), f"{t:.2f} s", fill=_INK, font=font)
    top += line
    gap = max(6, height // 100)
    row_height = (height - top - 4 - gap) / 4
    label_height = font_size + 4
    pad = max(4, int(min(cell_width, row_height)) // 30)
    inner = (cell_width - 2 * pad, row_height - label_height - 2 * pad)
    if min(inner) < 16:
        raise UsageError(
            f"{width}x{height} is too small for {columns} poses of two figures: give a larger --size or fewer --poses"
        )
    flats = [[s.flat(right) for _, right, _ in s.views()] for s in subjects]
    body = np.concatenate([f[:, s.body].reshape(-1, 2) for s, pair in zip(subjects, flats) for f in pair])
    body = body[np.isfinite(body).all(axis=1)]
    across = max(float(np.abs(body[:, 0]).max()), 1e-9) if len(body) else 1.0
    below = max(0.0, -float(body[:, 1].min())) if len(body) else 0.0
    above = max(float(body[:, 1].max()), 1e-9) if len(body) else 1.0
    scale = min(inner[0] / (2 * across), inner[1] / (above + below))  # pixels per figure size
    thick = max(2, round(scale * 0.012))
    for v in range(2):  # source side, target side, (a gap), source front, target front
        for k, subject in enumerate(subjects):
            y0 = round(top + (2 * v + k) * row_height + v * gap)
            y1 = round(top + (2 * v + k + 1) * row_height + v * gap)
            view = subject.views()[v][0]
            draw.rectangle([4, y0 + 1, label_width - 4, y1 - 1], fill=(244, 244, 244))
            draw.text((10, y0 + 6), subject.label, fill=subject.colour, font=font)
            draw.text((10, y0 + 6 + line), _fit(draw, subject.name, small, label_width - 18), fill=_INK, font=small)
            draw.text((10, y0 + 6 + 2 * line), f"{view} view", fill=_INK, font=font)
            for c in range(columns):
                x0, x1 = round(label_width + c * cell_width), round(label_width + (c + 1) * cell_width)
                cell = Image.new("RGB", (x1 - x0 - 2, y1 - y0 - 2), _BACKGROUND)  # drawn apart: clipped to its box
                _draw_cell(ImageDraw.Draw(cell), cell.size, subject, flats[k][v][c], c, scale, below, pad, thick, small)
                image.paste(cell, (x0 + 1, y0 + 1))
                draw.rectangle([x0, y0, x1 - 1, y1 - 1], outline=_FAINT)
    return image


def _draw_cell(draw, size, subject, flat, column, scale, below, pad, thick, font):
    """One pose (`flat`: (N, 2) in sizes, across from the hips and up from the floor) in a cell of `size`."""
    width, height = size
    floor = height - pad - below * scale
    draw.line([(pad, floor), (width - pad, floor)], fill=_FLOOR, width=max(1, thick - 1))
    draw.text((5, 2), f"frame {subject.frames[column] + 1}", fill=_INK, font=font)
    pixels = np.stack([width / 2 + flat[:, 0] * scale, floor - flat[:, 1] * scale], axis=-1)
    _draw_subject(draw, subject, pixels, thick)


def _draw_subject(draw, subject, pixels, thick):
    """One pose: bones as lines (the right side pale, the left over it; a joint above the hips, such
    as a ground joint, faint), the feet thicker with a dot at each foot point."""
    segments = subject.figure.segments
    shown = np.isfinite(pixels[segments]).all(axis=(1, 2))
    right, body = subject.right[segments[:, 1]], subject.body[segments].all(axis=1)
    for group in (shown & ~body, shown & body & right, shown & body & ~right):
        for s in np.flatnonzero(group):
            a, b = segments[s]
            colour = _FAINT if not body[s] else subject.pale if right[s] else subject.colour
            foot = subject.feet[a] and subject.feet[b]
            draw.line([tuple(pixels[a]), tuple(pixels[b])], fill=colour, width=2 * thick + 1 if foot else thick)
    dot = thick + 1
    for j in np.flatnonzero(subject.feet):
        if np.isfinite(pixels[j]).all():
            x, y = pixels[j]
            colour = subject.pale if subject.right[j] else subject.colour
            draw.ellipse([x - dot, y - dot, x + dot, y + dot], fill=colour, outline=_INK)


def _durations_differ(subjects, span):
    return any(
        s.figure.frame_count > 1 and (s.figure.frame_count - 1) / s.figure.fps > span + 0.5 / s.figure.fps
        for s in subjects
    )


def _fit(draw, text, font, width):
    """`text` cut with an ellipsis to fit `width` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text + "..."
