"""A small RIB reader of the tests' own (RenderMan Interface 3.2, ASCII RIB): tokens, requests with
their arguments, structure comments, nesting of the Begin/End blocks, and the geometry a renderer
would place (its transform semantics: row vectors, ConcatTransform premultiplies the current
transform, TransformBegin/AttributeBegin save it and the End restores it)."""

import re

import numpy as np

_TOKEN = re.compile(
    rb"""(?P<comment>\#[^\n]*)
    |(?P<string>"(?:[^"\\]|\\.)*")
    |(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<open>\[)|(?P<close>\])
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<space>\s+)
    |(?P<bad>.)""",
    re.X | re.S,
)
BLOCKS = {
    "FrameBegin": "FrameEnd",
    "WorldBegin": "WorldEnd",
    "AttributeBegin": "AttributeEnd",
    "TransformBegin": "TransformEnd",
    "MotionBegin": "MotionEnd",
}
KNOWN = {
    "version",
    "Display",
    "Format",
    "Projection",
    "Clipping",
    "Transform",
    "Shutter",
    "LightSource",
    "Color",
    "Surface",
    "Attribute",
    "ConcatTransform",
    "Translate",
    "Sphere",
    "Cylinder",
    "PointsPolygons",
    "ReadArchive",
    *BLOCKS,
    *BLOCKS.values(),
}


def tokens(data):
    """(kind, value) tokens of RIB bytes: comment (text after '#', '##' comments keep one '#'),
    string (unescaped), number (float), '[' / ']', name. A stray character is an error."""
    out = []
    for match in _TOKEN.finditer(data):
        kind, text = match.lastgroup, match.group()
        if kind == "space":
            continue
        if kind == "bad":
            raise ValueError(f"unexpected byte {text!r} at {match.start()}")
        if kind == "comment":
            out.append(("comment", text[1:].decode()))
        elif kind == "string":
            out.append(("string", re.sub(rb"\\(.)", _unescape, text[1:-1]).decode()))
        elif kind == "number":
            out.append(("number", float(text)))
        elif kind in ("open", "close"):
            out.append((text.decode(), None))
        else:
            out.append(("name", text.decode()))
    return out


def _unescape(match):
    """The character a backslash escape stands for (\\n and \\r: line breaks; others: themselves)."""
    return {b"n": b"\n", b"r": b"\r"}.get(match.group(1), match.group(1))


def requests(data):
    """[(request name, [arguments]) or ("#", comment text)], arrays as lists of numbers or strings."""
    out, array = [], None
    for kind, value in tokens(data):
        if kind == "comment":
            out.append(("#", value))
        elif kind == "[":
            if array is not None:
                raise ValueError("nested arrays")
            array = []
        elif kind == "]":
            if array is None:
                raise ValueError("']' without '['")
            out[-1][1].append(array)
            array = None
        elif array is not None:
            array.append(value)
        elif kind == "name":
            out.append((value, []))
        else:
            if not out or out[-1][0] == "#":
                raise ValueError(f"argument {value!r} before any request")
            out[-1][1].append(value)
    if array is not None:
        raise ValueError("unclosed '['")
    return out


def check_structure(data):
    """The requests of a RIB file after checking what every conforming file must satisfy: known
    requests only, every Begin closed by its End in order; returns (requests, header comments)."""
    parsed = requests(data)
    unknown = sorted({name for name, _ in parsed if name != "#" and name not in KNOWN})
    assert not unknown, f"unknown requests {unknown}"
    stack = []
    for name, _ in parsed:
        if name in BLOCKS:
            stack.append(name)
        elif name in BLOCKS.values():
            assert stack and BLOCKS[stack[-1]] == name, f"{name} closes {stack[-1] if stack else 'nothing'}"
            stack.pop()
    assert not stack, f"unclosed {stack}"
    header = []
    for name, value in parsed:
        if name != "#":
            break
        header.append(value)
    return parsed, header


def frames(parsed):
    """The requests of each frame block, FrameBegin to FrameEnd, keyed by frame number."""
    out, current = {}, None
    for name, arguments in parsed:
        if name == "FrameBegin":
            current = out.setdefault(int(arguments[0]), [])
        if current is not None:
            current.append((name, arguments))
        if name == "FrameEnd":
            current = None
    return out


def matrix(numbers):
    return np.asarray(numbers, dtype=float).reshape(4, 4)


def shapes(frame, sample=0):
    """What a renderer places in a frame's world: [(shape request, arguments, object-to-world
    transform (4, 4), row vectors)], and the camera transform (the current transform at WorldBegin:
    world to camera). Inside a MotionBegin block only request number `sample` counts (0: the shutter
    opening, 1: its closing)."""
    current, saved, camera, out = np.eye(4), [], None, []
    step = None  # requests seen in the open MotionBegin block
    for name, arguments in frame:
        if name == "MotionBegin":
            step = 0
            continue
        if name == "MotionEnd":
            step = None
            continue
        if step is not None:
            step += 1
            if step - 1 != sample:
                continue
        if name in ("TransformBegin", "AttributeBegin"):
            saved.append(current)
        elif name in ("TransformEnd", "AttributeEnd"):
            current = saved.pop()
        elif name == "Transform":
            current = matrix(arguments[0])
        elif name == "ConcatTransform":
            current = matrix(arguments[0]) @ current
        elif name == "Translate":
            moved = np.eye(4)
            moved[3, :3] = arguments[:3]
            current = moved @ current
        elif name == "WorldBegin":
            camera, current = current, np.eye(4)
        elif name in ("Sphere", "Cylinder", "PointsPolygons"):
            out.append((name, arguments, current))
    return out, camera
