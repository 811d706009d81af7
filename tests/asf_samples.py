"""A hand-written ASF that uses what the format allows, AMC text for it, and the Acclaim forward
kinematics written out independently (row vectors, as "Motion Data", section "Acclaim ASF/AMC",
states them)."""

import numpy as np

# The child is listed before its parent; the root's order mixes translations and rotations; axis
# orders differ; dofs include tx ty tz and l; limits span lines and hold inf; tabs, a comment after
# a value, an unknown section.
ASF = """# hand-written sample
:version 1.10
:name sample
:units
  mass 1.0
  length 0.45
  angle deg
:documentation
   first line of the notes
   # kept as written
:root
   order RZ TX TY TZ RX RY      # any order
   axis ZYX
   position 1 2 3
   orientation 10 20 30
:bonedata
  begin
     id 2
     name child
     direction 0 0 1
     length 2
     axis 5 -10 15 YZX
     dof rz rx l
     limits (-inf inf)
            (-10, 10)
            (0 1)
  end
  begin
     id 1
     name spine
     direction 0.6 0.8 0
     length 5
     axis 30 0 -45 XYZ
     dof ry tx rx ty rz tz
     bodymass 3.5
  end
  begin
\tname\ttip
\tdirection 1 0 0
\tlength 1.5
\taxis 0 90 0 XYZ
  end
:skin whatever.obj
:hierarchy
  begin
    root spine
    spine child
    child tip
  end
"""
# Axis angles in orders other than XYZ, where pairing the angles with the order's letters (as read
# here) and taking them as x, y, z differ.
ORDERED_AXES = """:units
  angle deg
:root
   axis YZX
   orientation 40 -25 60
:bonedata
  begin
     name bone
     direction 0 1 0
     length 2
     axis 10 20 30 ZYX
  end
:hierarchy
  begin
    root bone
  end
"""
DOFS = {
    "root": ("RZ", "TX", "TY", "TZ", "RX", "RY"),
    "spine": ("ry", "tx", "rx", "ty", "rz", "tz"),
    "child": ("rz", "rx", "l"),
}
BONES = {  # direction, length, axis angles, axis order, parent
    "spine": ((0.6, 0.8, 0.0), 5.0, (30.0, 0.0, -45.0), "XYZ", "root"),
    "child": ((0.0, 0.0, 1.0), 2.0, (5.0, -10.0, 15.0), "YZX", "spine"),
    "tip": ((1.0, 0.0, 0.0), 1.5, (0.0, 90.0, 0.0), "XYZ", "child"),
}
ROOT = ((1.0, 2.0, 3.0), (10.0, 20.0, 30.0), "ZYX")  # position, orientation, axis order


def amc_values(frames, seed=0):
    """{bone: (frames, dofs) values}: angles in degrees, translations and l in file units."""
    rng = np.random.default_rng(seed)
    values = {}
    for bone, dofs in DOFS.items():
        values[bone] = np.stack(
            [rng.uniform(-90, 90, frames) if d[0] in "rR" else rng.uniform(-3, 3, frames) for d in dofs], axis=1
        )
    return values


def amc_text(values, first=1, header=":FULLY-SPECIFIED\n:DEGREES\n", order=None):
    """AMC text of `values`, frames numbered from `first`, bones in `order` (default: as DOFS)."""
    frames = len(values["root"])
    lines = ["# comment", *header.splitlines()]
    for f in range(frames):
        lines.append(str(first + f))
        for bone in order or values:
            lines.append(bone + " " + " ".join(repr(float(v)) for v in values[bone][f]))
    return "\n".join(lines) + "\n"


def _row_rotation(axis, degrees):
    """4x4 row-vector rotation (v' = v @ R) about a coordinate axis."""
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    i = "XYZ".index(axis.upper())
    j, k = (i + 1) % 3, (i + 2) % 3
    r = np.eye(4)
    r[j, j] = r[k, k] = c
    r[j, k], r[k, j] = s, -s
    return r


def _row_translation(t):
    m = np.eye(4)
    m[3, :3] = t
    return m


def acclaim_positions(values, frame, scale=1.0):
    """{bone: start position} at `frame` by the formula of "Motion Data", row vectors: C from the
    axis, each angle about its order letter, left to right (as amc2bvh and DFKI's anim_utils pair
    them), M from the dofs in their order, B the parent's direction * length (plus its l) and the
    bone's own tx ty tz (root: position + translation); L = Cinv M C B, and the full transform is L
    times the parent's on the right."""

    def product(factors):
        out = np.eye(4)
        for m in factors:
            out = out @ m
        return out

    def motion(bone):
        dofs = DOFS.get(bone, ())
        row = values[bone][frame] if bone in values else []
        rotation = product([_row_rotation(d[1], v) for d, v in zip(dofs, row) if d[0] in "rR"])
        shift = np.zeros(3)
        for d, v in zip(dofs, row):
            if d[0] in "tT":
                shift["XYZ".index(d[1].upper())] += v
        stretch = sum(v for d, v in zip(dofs, row) if d == "l")
        return rotation, shift, stretch

    position, orientation, root_order = ROOT
    rotation, shift, _ = motion("root")
    c = product([_row_rotation(a, angle) for a, angle in zip(root_order, orientation)])
    world = {"root": np.linalg.inv(c) @ rotation @ c @ _row_translation(np.add(position, shift))}
    for bone, (_, _, axis, order, parent) in BONES.items():
        rotation, shift, _ = motion(bone)
        c = product([_row_rotation(a, angle) for a, angle in zip(order, axis)])
        offset = np.zeros(3)
        if parent != "root":
            p_direction, p_length = BONES[parent][:2]
            offset = np.multiply(p_direction, p_length + motion(parent)[2])
        local = np.linalg.inv(c) @ rotation @ c @ _row_translation(offset + shift)
        world[bone] = local @ world[parent]
    return {bone: m[3, :3] * scale for bone, m in world.items()}
