"""Blender's 63-byte name limit: names shortened and made unique the way Blender 5 does it, ahead of
Blender, so that every later lookup (pose bones, F-curve paths, vertex groups) uses the same name.

Blender cuts a name to 63 bytes of UTF-8 (5.0 at a character boundary; 4.2 mid-character, which
Python then cannot decode) and makes a clashing name unique as "name.001", "name.002", ...
(BLI_uniquename: a numeric suffix already there is continued; the base is cut so that the suffix
fits). Names given to Blender this way are kept as they are in every version.
"""

import re

LIMIT = 63  # bytes of UTF-8 in a bone, vertex group or shape key name
_NUMBERED = re.compile(r"(.*)\.(\d+)", re.DOTALL)


def shorten(name, limit=LIMIT):
    """`name` cut to at most `limit` bytes of UTF-8, at a character boundary."""
    return name.encode("utf-8")[:limit].decode("utf-8", "ignore")


def blender_names(names, limit=LIMIT):
    """The names Blender would give to `names` created in order in one collection: each shortened,
    a clash numbered .001, .002, ..."""
    taken, out = set(), []
    for name in names:
        name = shorten(name, limit)
        if name in taken:
            numbered = _NUMBERED.fullmatch(name)
            base, number = (numbered[1], int(numbered[2])) if numbered else (name, 0)
            while name in taken:
                number += 1
                suffix = f".{number:03d}"
                name = shorten(base, limit - len(suffix)) + suffix
        taken.add(name)
        out.append(name)
    return out
