"""Bone maps: which joint of one skeleton drives which joint of another.

`auto_map` finds body parts (roles such as "upper_arm.L" or the spine) on each skeleton, from names
first and from structure where names fail, and pairs the joints that play the same role. Presets are
plain JSON objects {"source joint": "target joint", ...}, easy to edit by hand.
"""

import functools
import json
import re

import numpy as np

from .atomic import atomic_write
from .errors import ParseError
from .skeleton import Skeleton, child_lists, descendants

# Every limb is a chain of roles, root to tip; a name may fit several roles of its chain (candidates
# in order of preference), and the chain's order decides: Xsens "Shoulder" after "Collar" is the
# upper arm, Mixamo "Shoulder" before "Arm" the clavicle.
ARM = ("clavicle", "upper_arm", "forearm", "hand", "palm")
LEG = ("hip", "thigh", "shin", "foot", "toe")
FINGERS = ("thumb", "index", "middle", "ring", "pinky")
TORSO = ("ground", "hips", "spine", "neck", "head")  # spine and neck may hold several joints
_WORDS = {
    "arm": {
        "clavicle": ["clavicle"],
        "collar": ["clavicle"],
        "collarbone": ["clavicle"],
        "shoulder": ["clavicle", "upper_arm"],
        "arm": ["upper_arm"],
        "upperarm": ["upper_arm"],
        "uparm": ["upper_arm"],
        "humerus": ["upper_arm"],
        "forearm": ["forearm"],
        "lowerarm": ["forearm"],
        "lowarm": ["forearm"],
        "elbow": ["forearm"],
        "radius": ["forearm"],
        "hand": ["hand", "palm"],
        "wrist": ["hand"],
        "palm": ["palm"],
        "fingerbase": ["palm"],
        "handroot": ["palm"],
    },
    "leg": {
        "hipjoint": ["hip"],
        "thigh": ["thigh"],
        "upleg": ["thigh"],
        "upperleg": ["thigh"],
        "femur": ["thigh"],
        "hip": ["thigh"],
        "leg": ["shin"],
        "lowleg": ["shin"],
        "lowerleg": ["shin"],
        "shin": ["shin"],
        "calf": ["shin"],
        "knee": ["shin"],
        "tibia": ["shin"],
        "foot": ["foot", "toe"],
        "ankle": ["foot"],
        "toe": ["toe"],
        "toes": ["toe"],
        "toebase": ["toe"],
        "ball": ["toe"],
    },
    "torso": {
        "root": ["hips", "ground"],
        "reference": ["ground"],
        "hips": ["hips"],
        "hip": ["hips"],
        "pelvis": ["hips"],
        **dict.fromkeys(
            ["spine", "back", "lowerback", "upperback", "torso", "abdomen", "ab", "waist", "chest", "thorax"], ["spine"]
        ),
        **dict.fromkeys(["upperchest", "l5", "l3", "l1", "t12", "t8", "t7", "t1"], ["spine"]),
        **dict.fromkeys(["neck", "lowerneck", "upperneck"], ["neck"]),
        "head": ["head"],
    },
}
_FINGER_WORDS = {**{f: f for f in FINGERS}, "little": "pinky", "pinkie": "pinky", "finger": "index", "fingers": "index"}
_SEGMENT_WORDS = {"metacarpal": 0, "meta": 0, "in": 0, "root": 0, "base": 1, "proximal": 1, "mid": 2, "intermediate": 2}
_SEGMENT_WORDS |= {"tip": 3, "distal": 3, "hand": None, "f": None}
_LEFT, _RIGHT = {"left", "l", "lf", "lft"}, {"right", "r", "rt", "rgt"}
_PREFIXES = {"def", "org", "mch", "fk", "bip", "mixamorig", "cc", "base", "jnt", "joint", "b", "bn", "bone"}
_PREFIXES |= {"skeleton", "armature"}  # glTF and FBX exports: the armature's name before the bone's
_SUFFIXES = {"jnt", "jt", "bone", "bn", "bind"}  # not "joint": CMU's "LHipJoint" is a bone of its own
_GENERIC = {"joint", "jnt", "jt", "bone", "bn", "bind"}  # words for any bone, within a name: "arm_joint_L_2"
_NOT_A_BODY_PART = {"end", "nub", "top", "twist", "roll", "ik", "pole", "target", "ctrl", "mch", "helper", "share"}


def auto_map(source: Skeleton, target: Skeleton) -> dict[str, str]:
    """A bone map: which joint of `source` drives which joint of `target`.

    Joints pair where both skeletons have a joint for the same role (see `find_roles`), then where
    the remaining joints have the same normalised name. Spines and necks of different lengths pair
    from both ends inwards: the bottom and top joints always, the ones between in proportion. Every
    target joint is driven by at most one source joint.

    Parameters
    ----------
    source, target : Skeleton

    Returns
    -------
    dict of str to str
        {source joint name: target joint name}, in source joint order: a plain dict to edit, or to
        save with `save_preset`.

    Examples
    --------
    >>> from mocap_io.core import Skeleton, auto_map
    >>> source = Skeleton(["Hips", "Spine", "Head"], [-1, 0, 1], [[0, 90, 0], [0, 10, 0], [0, 40, 0]])
    >>> target = Skeleton(["pelvis", "spine", "head"], [-1, 0, 1], [[0, 1.0, 0], [0, 0.2, 0], [0, 0.5, 0]])
    >>> auto_map(source, target)
    {'Hips': 'pelvis', 'Spine': 'spine', 'Head': 'head'}
    """
    mine, theirs = find_roles(source), find_roles(target)
    candidates = []
    for role, joint in mine.items():
        if role in ("spine", "neck"):
            candidates += _pair_chains(joint, theirs.get(role, []))
        elif role in theirs:
            candidates.append((joint, theirs[role]))
    normal = {}
    for k, name in enumerate(target.names):
        normal.setdefault(_normal(name), k)
    candidates += [(j, normal[_normal(n)]) for j, n in enumerate(source.names) if _normal(n) in normal]
    pairs, used = {}, set()
    for j, k in candidates:
        if j not in pairs and k not in used:
            pairs[j] = k
            used.add(k)
    return {source.names[j]: target.names[pairs[j]] for j in sorted(pairs)}


def find_roles(skeleton):
    """{role: joint index} of the body parts found on `skeleton`; "spine" and "neck" map to lists
    of joints, bottom to top. Limb roles ("upper_arm.L", "thigh.R", "index.1.L", ...) come from names
    (case, separators, prefixes such as "mixamorig:" or "DEF-", sides as Left/L_/.L/_l/r...), and where
    names fail from structure (see `_structure_roles`); where names give only limb and side
    ("arm_joint_L__4_", "leg_joint_R_1"), the shape of that chain decides (see `_along_roles`). The
    torso follows from the limbs: the hips are where the legs meet, the chest (top of the spine)
    where the arms meet, the neck leads from there to the head.
    """
    roles = _name_roles(skeleton)
    taken = {j for value in roles.values() for j in np.ravel(value)}
    named = {(_limb_of(role), role[-1]) for role in roles if _limb_of(role)}
    for role, joint in _structure_roles(skeleton).items():  # whole limbs that names did not find
        if (_limb_of(role), role[-1]) not in named and joint not in taken:
            roles[role] = joint
    roles.update(_torso(skeleton, roles))
    return roles


def up_from_roles(roles, positions):
    """(3,) the signed coordinate axis nearest the direction from the hips to the head (else the
    top of the spine), median over the frames of `positions` (F, J, 3); None when `roles` (from
    `find_roles`) lack them or they are at one place."""
    top = roles.get("head", roles.get("spine", [None])[-1])
    if "hips" not in roles or top is None:
        return None
    direction = np.median(positions[:, top] - positions[:, roles["hips"]], axis=0)
    if np.allclose(direction, 0.0):
        return None
    axis = int(np.argmax(np.abs(direction)))
    return np.eye(3)[axis] * np.sign(direction[axis])


def _limb_of(role):
    """ARM or LEG for a limb role ("upper_arm.L"), else None."""
    part = role.split(".")[0]
    return ARM if part in ARM else LEG if part in LEG else None


def load_preset(path):
    """A bone map saved by `save_preset` (or written by hand): a JSON object of joint names."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise ParseError(path, f"expected a JSON object of joint names: {e.msg}", line=e.lineno) from None
    except UnicodeDecodeError as e:
        raise ParseError(path, "expected UTF-8 text", offset=e.start) from None
    except RecursionError:
        raise ParseError(path, "expected a JSON object of joint names, not deeply nested lists") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ParseError(path, 'expected a JSON object {"source joint": "target joint", ...}')
    return data


def save_preset(bone_map, path):
    """Write `bone_map` ({source joint: target joint}) as a JSON preset; the file appears once complete."""
    text = json.dumps({str(k): str(v) for k, v in bone_map.items()}, indent=2, ensure_ascii=False)
    with atomic_write(path) as f:
        f.write((text + "\n").encode("utf-8"))


def _pair_chains(mine, theirs):
    """Pairs of two chains of joints, bottom to bottom and top to top, the ones between spread."""
    short, long = (mine, theirs) if len(mine) <= len(theirs) else (theirs, mine)
    if not short:
        return []
    spread = [len(long) - 1] if len(short) == 1 else np.rint(np.linspace(0, len(long) - 1, len(short))).astype(int)
    pairs = [(a, long[i]) for a, i in zip(short, spread)]
    return pairs if short is mine else [(b, a) for a, b in pairs]


def _tokens(name):
    """Lower-case words and numbers of a joint name: namespace ("mixamorig:") dropped, split at
    separators, case changes and digits ("LeftUpLeg" -> left up leg, "spine_01" -> spine 01)."""
    name = re.split(r"[:|]", name)[-1]
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)
    return [w.lower() for w in words]


def _normal(name):
    return "".join(_tokens(name))


@functools.lru_cache(maxsize=4096)
def _parse(name):
    """(side "L", "R" or None, chain, candidate roles) of a joint name, or None for a name that
    is no body part: chain is "arm", "leg", "torso" or a finger; roles are role names or, for
    fingers, segment numbers (0 metacarpal, 1 proximal, ...). No candidates: a joint somewhere
    along the limb, named by the limb alone with a number or a generic word ("arm_joint_L__4_",
    "leg_joint_R_1", "arm.L.002"), whose role the chain's shape decides (see `_along_roles`)."""
    tokens = _tokens(name)
    if _normal(name) in _WORDS["torso"]:  # "L5", "T12": vertebrae, not sides
        return None, "torso", tuple(_WORDS["torso"][_normal(name)])
    while len(tokens) > 1 and (tokens[0] in _PREFIXES or tokens[0].isdigit()):
        tokens = tokens[1:]
    while len(tokens) > 1 and tokens[-1] in _SUFFIXES:
        tokens = tokens[:-1]
    if _NOT_A_BODY_PART & set(tokens):
        return None
    sides = {"L" for t in tokens if t in _LEFT} | {"R" for t in tokens if t in _RIGHT}
    words = [t for t in tokens if t not in _LEFT | _RIGHT and not t.isdigit()]
    numbers = [int(t) for t in tokens if t.isdigit()]
    key = "".join(words)
    generic = not _known(key) and bool(_GENERIC & set(words))
    if generic:  # "torso_joint_2", "arm_joint_L_3": the body part is in the other words
        words = [w for w in words if w not in _GENERIC]
        key = "".join(words)
    if not sides and key[:1] in ("l", "r") and not _known(key) and _known(key[1:]):  # "lhumerus", "rfoot"
        sides, key, words = {key[0].upper()}, key[1:], [key[1:]]
    side = sides.pop() if len(sides) == 1 else None
    if key in _WORDS["torso"] and (side is None or key == "root"):
        return None, "torso", tuple(_WORDS["torso"][key])
    if side is None:
        return None
    for chain in ("arm", "leg"):
        if key == chain and (generic or numbers):  # a joint of a numbered limb chain
            return side, chain, ()
        if key in _WORDS[chain]:
            return (side, chain, tuple(_WORDS[chain][key])) if not any(numbers) else None  # .001: a twist segment
    fingers = {_FINGER_WORDS[w] for w in words if w in _FINGER_WORDS}
    if len(fingers) == 1 and all(w in _FINGER_WORDS or w in _SEGMENT_WORDS for w in words):
        segments = [_SEGMENT_WORDS[w] for w in words if _SEGMENT_WORDS.get(w) is not None]
        candidates = numbers[-1:] or segments[-1:] or [1, 0]  # a bare "Thumb" is the first bone (or a base)
        return side, fingers.pop(), tuple(candidates)
    return None


def _known(key):
    return any(key in words for words in _WORDS.values()) or key in _FINGER_WORDS


def _name_roles(skeleton):
    """Roles from names: each chain's joints in file order (parents first) get the most roles their
    candidates allow in increasing chain order (see `_assign`); limbs named only as a limb along
    their joints ("arm_joint_L_1", "arm_joint_L_2", ...) get theirs from their shape (`_along_roles`)."""
    chains = {}
    for j, name in enumerate(skeleton.names):
        parsed = _parse(name)
        if parsed is not None:
            side, chain, candidates = parsed
            chains.setdefault((side, chain), []).append((j, candidates))
    along = {}
    for (side, chain), members in chains.items():
        if any(not candidates for _, candidates in members):  # "arm.L" is the limb too beside "arm.L.001"
            along[side, chain] = [j for j, candidates in members if not candidates or _limb_only(skeleton.names[j])]
            chains[side, chain] = [(j, candidates) for j, candidates in members if j not in along[side, chain]]
    roles = {}
    for (side, chain), members in chains.items():
        order = {"arm": ARM, "leg": LEG, "torso": TORSO}.get(chain, range(5))
        ranks = tuple(tuple(order.index(c) for c in candidates if c in order) for _, candidates in members)
        repeat = {2, 3} if chain == "torso" else set()
        for (j, _), rank in zip(members, _assign(ranks, repeat)):
            if rank is None:
                continue
            role = order[rank] if chain in ("arm", "leg", "torso") else f"{chain}.{rank}"
            if chain == "torso":
                roles.setdefault(f"torso.{role}", []).append(j)
            else:
                roles[f"{role}.{side}"] = j
    if along:
        roles.update(_along_roles(skeleton, along, roles))
    return roles


def _limb_only(name):
    """Whether a name says only which limb ("arm.L", "Leg_R"): with numbers along it, the first joint of its chain."""
    tokens = [t for t in _tokens(name) if t not in _LEFT | _RIGHT | _PREFIXES | _GENERIC and not t.isdigit()]
    return tokens in (["arm"], ["leg"])


def _along_roles(skeleton, along, roles):
    """Roles of the joints that names place only on a limb and side ({(side, "arm"): joints}): down
    the chain they form with the joints of that limb that names did place, the two longest bones in
    a row are the upper arm and forearm (thigh and shin), as in `_limb`, whatever their numbers."""
    parents = skeleton.parents
    _, position = skeleton.rest_world()
    found = {}
    for (side, chain), members in along.items():
        order = ARM[:4] if chain == "arm" else LEG
        named = {roles[f"{role}.{side}"] for role in order if f"{role}.{side}" in roles}
        line = []
        for j in sorted(set(members) | named):  # parents come first: root to tip, twist bones between skipped
            if not line or line[-1] in _path(parents, -1, j):
                line.append(j)
        for role, j in _along(line, position, order).items():
            if j in members and f"{role}.{side}" not in roles:
                found[f"{role}.{side}"] = j
    return found


def _assign(candidates, repeat):
    """For a sequence of joints with candidate ranks (preferred first), the ranks (or None) that
    assign the most joints with ranks increasing along the sequence (equal allowed for `repeat`),
    the preferred candidates breaking ties: a dynamic programme from the end of the sequence, over
    the rank given last."""
    lasts = range(-1, 1 + max((max(c, default=0) for c in candidates), default=0))
    best = {last: ((0, 0), ()) for last in lasts}  # score (assigned, -preferences), ranks from here on
    for options in reversed(candidates):
        step = {}
        for last in lasts:
            score, rest = best[last]
            step[last] = (score, (None,) + rest)
            for preference, rank in enumerate(options):
                if rank > last or (rank == last and rank in repeat):
                    (count, penalty), rest = best[rank]
                    if (count + 1, penalty - preference) > step[last][0]:
                        step[last] = ((count + 1, penalty - preference), (rank,) + rest)
        best = step
    return best[-1][1]


def _structure_roles(skeleton):
    """Limb roles from the hierarchy and rest pose alone: the hips are the joint where three large
    branches meet (two legs and the spine, the largest); the arms are the two largest branches off
    the path from the hips to the top of the spine, above the hips (not legs larger than the arms,
    not a tail). In each limb the upper and lower bone are the
    longest two in a row; left is the side the toes point left of (or +X without toes: the left of
    both BVH's and Blender's conventions)."""
    parents = skeleton.parents
    count = len(parents)
    children, size = _tree(parents)
    third = [sorted((size[c] for c in children[j]), reverse=True)[2:3] for j in range(count)]
    if not any(t and t[0] >= 2 for t in third):
        return {}
    hips = max(range(count), key=lambda j: (third[j][0] if third[j] else 0, -j))
    spine, *legs = sorted(children[hips], key=lambda c: -size[c])[:3]
    _, position = skeleton.rest_world()
    up = position[descendants(children, spine)].mean(axis=0) - position[hips]
    top = max(descendants(children, spine), key=lambda j: position[j] @ up)
    path = _path(parents, hips, top)
    on_path = set(path)
    branches = [c for j in path[1:-1] for c in children[j] if c not in on_path]  # not the legs or a tail
    arms = sorted(branches, key=lambda c: -size[c])[:2]
    limbs = {
        "leg": [_limb(children, size, position, r, LEG) for r in legs],
        "arm": [_limb(children, size, position, r, ARM[:4]) for r in arms if size[r] >= 3],
    }
    toes = [(limb["toe"], limb["foot"]) for limb in limbs["leg"] if "toe" in limb]
    forward = sum((position[t] - position[f] for t, f in toes), np.zeros(3))
    left = np.cross(up, forward) if np.linalg.norm(np.cross(up, forward)) > 0 else np.array([1.0, 0, 0])
    roles = {}
    for kind, upper in (("leg", "thigh"), ("arm", "upper_arm")):
        pair = sorted((limb for limb in limbs[kind] if upper in limb), key=lambda limb: position[limb[upper]] @ left)
        sides = "RL" if len(pair) == 2 else "L" if pair and position[pair[0][upper]] @ left > 0 else "R"
        for side, limb in zip(sides, pair):
            roles.update({f"{role}.{side}": j for role, j in limb.items()})
    return roles


def _limb(children, size, position, root, order):
    """Roles `order` along a limb from `root`, following the largest child (see `_along`)."""
    chain = [root]
    while children[chain[-1]]:
        chain.append(max(children[chain[-1]], key=lambda c: size[c]))
    return _along(chain, position, order)


def _along(chain, position, order):
    """Roles `order` along a chain of joints, root to tip: the two longest bones in a row are
    order[1] and order[2] (upper arm and forearm, thigh and shin)."""
    bones = np.linalg.norm(np.diff(position[chain], axis=0), axis=1)
    if len(bones) < 2:
        return {}
    k = int(np.argmax(bones[:-1] + bones[1:])) - 1  # chain[i] plays order[i - k]
    return {order[i - k]: j for i, j in enumerate(chain) if 0 <= i - k < len(order)}


_FACE = 8  # joints under one bone that make it a face rig's root (Rigify's `face`), not a head


def _torso(skeleton, roles):
    """Torso roles from the limbs (see `find_roles`); from names where the limbs do not tell."""
    parents = skeleton.parents
    named = {role: roles.pop(f"torso.{role}") for role in TORSO if f"torso.{role}" in roles}

    def meeting(*names):
        for name in names:
            ends = [roles.get(f"{name}.{side}") for side in "LR"]
            if None not in ends:
                return _common_ancestor(parents, *ends)
            if any(e is not None for e in ends):
                return max(parents[next(e for e in ends if e is not None)], 0)
        return None

    hips = meeting("hip", "thigh")
    chest = meeting("clavicle", "upper_arm")
    if hips is None:
        hips = named.get("hips", [None])[0]
    found = {} if hips is None else {"hips": hips}
    children, size = _tree(parents)
    if chest is None or hips is None or hips not in _path(parents, -1, chest):
        spine = [j for j in named.get("spine", []) if j != hips]  # "torso_joint_1" may be the hips
        neck = named.get("neck", [])
        head = named["head"][0] if "head" in named else _tip(children, size, neck[-1]) if neck else None
        found.update({k: v for k, v in {"spine": spine, "neck": [j for j in neck if j != head]}.items() if v})
        if head is not None:  # a neck chain's top joint without a head above it is the head
            found["head"] = head
        return found
    spine = _path(parents, hips, chest)[1:]
    limbs = {j for role, j in roles.items() if role.split(".")[0] in ARM}
    head = next((j for j in named.get("head", []) if chest in _path(parents, -1, j)[:-1]), None)
    if head is None:  # follow the branch of the chest that holds no arm up the neck
        upward = [c for c in children[chest] if not limbs & set(descendants(children, c))]
        head = max(upward, key=lambda c: size[c], default=None)
        head = None if head is None else _tip(children, size, head)
    if spine:
        found["spine"] = spine
    if head is not None and head != chest:
        found["head"] = head
        neck = _path(parents, chest, head)[1:-1]
        if neck:
            found["neck"] = neck
    return found


def _tip(children, size, joint):
    """The head from a joint of the neck: down while there is one child; a fork (eyes, jaw) hangs
    from the head, and so does a face rig's root (Rigify's `face`, a bone with many under it)."""
    while len(children[joint]) == 1:
        below = children[joint][0]
        if len(children[below]) > 1 and size[below] > _FACE:
            break
        joint = below
    return joint


def _tree(parents):
    """Children of every joint (lists) and the size of every joint's subtree (itself included)."""
    size = np.ones(len(parents), dtype=int)
    for j in range(len(parents) - 1, -1, -1):  # children come after their parents
        if parents[j] >= 0:
            size[parents[j]] += size[j]
    return child_lists(parents), size


def _path(parents, top, joint):
    """Joints from `top` down to `joint` (both included); from the root when `top` is no ancestor."""
    path = [joint]
    while path[-1] != top and parents[path[-1]] >= 0:
        path.append(parents[path[-1]])
    return path[::-1]


def _common_ancestor(parents, a, b):
    above = set(_path(parents, -1, a))
    while b not in above and parents[b] >= 0:
        b = parents[b]
    return b
