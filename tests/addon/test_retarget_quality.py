"""Retargeting an animator accepts (issue 27), onto Blender's rigs: the corpus takes onto Rigify's
human metarig and the glTF CesiumMan, plain and with fix_feet, judged by tests/retarget_quality.py.

The rigs are read as core Skeletons in the takes' axes (Y up: tests/blender_rigs.py) and the core
retargets onto them, as the add-on's retarget_take does before it bakes; no baking here."""

import pytest

import rig_samples
from blender_scene import bpy
from corpus_files import CORPUS, needs_corpus
from mocap_io import core
from retarget_quality import HEADER, OPEN, TAKES, UP, failures, measure, read_take, row

pytestmark = needs_corpus
CESIUMMAN = "mesh/khronos-cesiumman/CesiumMan.glb"


@pytest.fixture(scope="module")
def rigs():
    """{name: (skeleton, roles or None)}, each rig read once."""
    import blender_rigs

    out = {}
    if bpy.app.version[:2] != (4, 2):  # bpy 4.2.23 crashes at exit once Rigify has been enabled
        out["rigify"] = (blender_rigs.rigify_metarig_skeleton(), None)
    cesium = blender_rigs.cesiumman_skeleton(CORPUS / CESIUMMAN)
    out["cesiumman"] = (cesium, blender_rigs.roles_by_name(cesium, rig_samples.CESIUM_MAN_ROLES))
    blender_rigs.empty_scene()
    return out


@pytest.mark.parametrize("fix_feet", [False, True], ids=["plain", "fix_feet"])
@pytest.mark.parametrize("take", list(TAKES))
@pytest.mark.parametrize("rig", ["rigify", "cesiumman"])
def test_takes_onto_blender_rigs_pass_the_animator_checks(rigs, rig, take, fix_feet):
    if rig not in rigs:
        pytest.skip("the bpy 4.2 module crashes when Python exits once Rigify has been enabled")
    skeleton, roles = rigs[rig]
    source = read_take(CORPUS, take)
    moved = core.retarget(source, skeleton, fix_feet=fix_feet)
    quality = measure(source, moved, core.auto_map(source.skeleton, skeleton), UP, unit=1.0, target_roles=roles)
    assert quality.stance_frames and quality.contact_frames, "the harness found no stance in the source"
    assert not quality.map_errors, quality.map_errors
    failed = failures(quality, fix_feet)
    expected = OPEN.get((take, rig), set()) if fix_feet else set()
    assert set(failed) == expected, f"\n{HEADER}\n{row(take, rig, fix_feet, quality)}\nworst at frames {quality.frames}"


def test_the_rigs_stand_y_up_facing_z_on_their_floor(rigs):
    """The harness's reading of the Blender rigs: in the takes' axes (Y up, facing +Z, left at +X),
    metres, the feet's lowest points on the floor at rest."""
    import numpy as np

    from mocap_io.core.bone_map import find_roles

    for name, (skeleton, roles) in rigs.items():
        roles = roles or find_roles(skeleton)
        _, rest = skeleton.rest_world()
        head, hips = rest[roles["head"]], rest[roles["hips"]]
        assert 0.3 < head[1] - hips[1] < 1.0, name
        for side, sign in (("L", 1.0), ("R", -1.0)):
            ankle, toe = rest[roles[f"foot.{side}"]], rest[roles[f"toe.{side}"]]
            assert toe[2] > ankle[2] and sign * ankle[0] > 0.05 and 0.0 <= toe[1] < ankle[1] < 0.1, (name, side)
        assert np.isclose(rest[:, 1].min(), min(rest[roles[f"toe.{s}"], 1] for s in "LR"), atol=0.03), name
