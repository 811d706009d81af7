"""How retargeted takes look to an animator (issue 27): every corpus source onto every target rig,
plain and with fix_feet, measured by tests/retarget_quality.py, one row each with PASS/FAIL per
acceptance point.

    python tools/retarget_report.py [-v] [word ...]

Only rows whose "source target" holds every word are run; -v adds, under each failing row, the
frame of each worst value. Columns: see tests/retarget_quality.py (PASS/FAIL per acceptance point,
"-" where a point is not judged: slide without fix_feet, limbs with it, or undefined: n/a).

Sources: the CMU walk (cgspeed BVH), the Bandai Namco dash (BVH), CMU 02_03 (ASF/AMC). Targets: a
Mixamo-style rig in an A pose (tests/rig_samples.py), Blender's Rigify metarig and the glTF
CesiumMan (these two need the bpy module: left out with a note without it), and the sources'
own skeletons onto each other. `core.retarget(source, target)` with auto_map; the Blender rigs are
read Y up like the takes (tests/blender_rigs.py). Needs the corpus (../shared/corpus, or
MOCAP_IO_CORPUS).
"""

import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]

import rig_samples  # noqa: E402
from corpus_files import CORPUS  # noqa: E402
from mocap_io import core  # noqa: E402
from retarget_quality import HEADER, TAKES, UP, failures, measure, read_take, row  # noqa: E402

CESIUMMAN = "mesh/khronos-cesiumman/CesiumMan.glb"


class Target:
    """A target rig: its skeleton, metres per unit, the floor to measure soles from (None: the
    rest pose's) and roles given by hand (None: find_roles)."""

    def __init__(self, skeleton, unit, floor=None, roles=None):
        self.skeleton, self.unit, self.floor, self.roles = skeleton, unit, floor, roles


def sources():
    return {name: read_take(CORPUS, name) for name in TAKES}


def targets(takes):
    """{name: Target}: the core rigs, the Blender ones where bpy imports, the sources' skeletons
    (standing on their takes' ground, y 0: their rest poses hang from the origin)."""
    out = {"mixamo-a": Target(rig_samples.mixamo_a_pose(), 0.01)}
    try:
        import blender_rigs
    except ImportError as error:
        print(f"note: no Blender rigs (Rigify metarig, CesiumMan) without the bpy module: {error}\n")
    else:
        out["rigify"] = Target(blender_rigs.rigify_metarig_skeleton(), 1.0)
        cesium = blender_rigs.cesiumman_skeleton(CORPUS / CESIUMMAN)
        out["cesiumman"] = Target(cesium, 1.0, roles=blender_rigs.roles_by_name(cesium, rig_samples.CESIUM_MAN_ROLES))
    for name, take in takes.items():
        out[f"{name}-skel"] = Target(take.skeleton, TAKES[name][1], floor=0.0)
    return out


def main(words, verbose=False):
    if not CORPUS.is_dir():
        sys.exit(f"no corpus at {CORPUS}")
    takes = sources()
    rigs = targets(takes)
    print(HEADER)
    map_notes = {}
    for source_name, take in takes.items():
        for target_name, rig in rigs.items():
            if target_name == f"{source_name}-skel" or not all(w in f"{source_name} {target_name}" for w in words):
                continue
            bone_map = core.auto_map(take.skeleton, rig.skeleton)
            for fix in (False, True):
                start = time.perf_counter()
                try:
                    moved = core.retarget(take, rig.skeleton, fix_feet=fix)
                    quality = measure(
                        take,
                        moved,
                        bone_map,
                        UP,
                        unit=rig.unit,
                        target_floor=rig.floor,
                        target_roles=rig.roles,
                    )
                except Exception as error:
                    print(f"{source_name:<8} {target_name:<10} {'fix' if fix else 'plain':<5} ERROR {error!r}")
                    continue
                print(row(source_name, target_name, fix, quality), f" {time.perf_counter() - start:.1f}s")
                if verbose and failures(quality, fix):
                    print(f"{'':25}worst at frames {quality.frames}")
                if quality.map_errors:
                    map_notes[source_name, target_name] = quality.map_errors
    for (source_name, target_name), errors in map_notes.items():
        print(f"\nauto_map {source_name} -> {target_name}: {len(errors)} roles mapped elsewhere")
        for error in errors:
            print("   ", error)


if __name__ == "__main__":
    main([w for w in sys.argv[1:] if w != "-v"], verbose="-v" in sys.argv[1:])
