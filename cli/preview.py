"""`mocap-io preview`: a motion, markers or a mesh animation at a glance, drawn with Pillow.

PNG: poses at evenly spaced frames, coloured from dark (first) to light (last), in three views
(front, side, top; one scale for all three) above a plot of every point's speed over time (the five
fastest in colour). GIF: the three views playing. Meshes are drawn as wireframes.

Pillow is the imaging dependency (the optional extra `mocap_io[preview]`): one well-kept package
with no dependencies of its own that draws lines and text and writes PNG and animated GIF itself;
matplotlib would bring a dozen packages for the same pictures, imageio needs Pillow anyway, and an
MP4 would need an ffmpeg binary. The Blender extension and the core never import it.
"""

import io
import sys

import numpy as np

from ..core.atomic import atomic_write
from ..core.figure import Figure
from . import MissingDependency

_STOPS = np.array([(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)], dtype=float)
_HIGHLIGHT = [(228, 26, 28), (55, 126, 184), (77, 175, 74), (152, 78, 163), (255, 127, 0)]
_BACKGROUND, _INK, _FAINT = (255, 255, 255), (40, 40, 40), (215, 215, 215)
_MAX_EDGES = 20000  # mesh edges drawn per pose (an even subset beyond that)
_MAX_GIF_FRAMES = 300


def _pillow():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise MissingDependency(
            "preview needs Pillow: pip install 'mocap_io[preview]' (or pip install pillow)"
        ) from None
    return Image, ImageDraw, ImageFont


def preview(data, output, *, size=None, poses=None, up=None, gif_fps=25.0, title=""):
    """Draw `data` (Motion, Markers, Mesh or MeshAnimation) to `output`: a .gif plays it, anything
    else ('-': standard output) is the PNG sheet. `up`: "x", "-z", ... (default: Figure.up)."""
    figure = Figure(data)
    up_vector = figure.up if up is None else np.eye(3)["xyz".index(up[-1])] * (-1 if up.startswith("-") else 1)
    views = _views(up_vector)
    if not figure.frame_count:
        raise ValueError(f"{title}: no frames to draw")
    buffer = io.BytesIO()
    if str(output).lower().endswith(".gif"):
        images, milliseconds = _gif(figure, views, size or (960, 360), gif_fps, title)
        images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=milliseconds, loop=0)
    else:
        _sheet(figure, views, size or (1200, 800), poses, title).save(buffer, format="PNG")
    if output == "-":
        sys.stdout.buffer.write(buffer.getvalue())
        sys.stdout.flush()
    else:
        with atomic_write(output) as f:
            f.write(buffer.getvalue())


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


def _gif(figure, views, size, gif_fps, title):
    """The frames of an animated GIF and their duration in ms: the three views of each frame (at
    most `gif_fps` per second and _MAX_GIF_FRAMES frames), all at one scale."""
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
    return images, milliseconds
