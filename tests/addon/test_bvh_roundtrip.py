"""Every corpus BVH file, imported with the defaults and exported with the defaults, is the file it
was: the same header (channel lists, OFFSETs, End Sites, Frame Time text), the same motion, and
Blender's own importer shows it where the core's FK puts the original, on every frame."""

import numpy as np
import pytest

from blender_scene import bpy, fresh_scene
from corpus_files import CORPUS, frame_count_warning, manifest, needs_corpus
from mocap_io import core
from mocap_io.addon import export_bvh, import_bvh
from mocap_io.addon.common.units import axis_matrix

CORPUS_BVH = [r["path"] for r in manifest("bvh")]  # Boxing_Toes has one row more than declared: strict=False


def size(motion):
    """The largest extent of the skeleton at rest (joints and End Sites), else of its motion."""
    rotation, position = motion.skeleton.rest_world()
    s = motion.skeleton
    ends = position[s.end_site_parents] + np.einsum("nij,nj->ni", rotation[s.end_site_parents], s.end_site_offsets)
    extent = np.ptp(np.vstack([position, ends]), axis=0).max()
    return extent if extent > 0 else np.ptp(motion.world_positions().reshape(-1, 3), axis=0).max()


def all_heads(obj, frames):
    """(F, J, 3) world-space heads of the pose bones on scene frames 1 .. frames, and their names."""
    bones = obj.pose.bones
    flat = np.empty(3 * len(bones), dtype=np.float32)
    heads = np.empty((frames, len(bones), 3))
    for f in range(frames):
        bpy.context.scene.frame_set(1 + f)
        bones.foreach_get("head", flat)
        heads[f] = flat.reshape(-1, 3)
    matrix = np.array(obj.matrix_world)
    return heads @ matrix[:3, :3].T + matrix[:3, 3], [b.name for b in bones]


@pytest.fixture(scope="module", params=CORPUS_BVH)
def round_trip(request, tmp_path_factory):
    """(original motion, exported motion, path of the export) after a default import and export."""
    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS}")
    path = str(CORPUS / request.param)
    fresh_scene()
    objects, _ = import_bvh(bpy.context, [path], strict=False)
    out = tmp_path_factory.mktemp("roundtrip") / "out.bvh"
    export_bvh(bpy.context, objects[0], out)
    bpy.data.objects.remove(objects[0])  # only the built-in importer's armature is left to evaluate
    with frame_count_warning(request.param):
        original = core.read(path, strict=False)
    return original, core.read(out), out


@needs_corpus
def test_the_header_is_the_files(round_trip):
    original, exported, path = round_trip
    a, b = original.skeleton, exported.skeleton
    assert b.names == a.names and list(b.parents) == list(a.parents)
    assert b.channels == a.channels
    assert exported.frame_time_text == original.frame_time_text
    assert f"Frame Time: {original.frame_time_text}\n" in path.read_text()
    tolerance = 5e-7 * max(np.abs(a.offsets).max(), 1.0)  # printed with 6 decimals
    np.testing.assert_allclose(b.offsets, a.offsets, rtol=0, atol=tolerance)
    assert list(b.end_site_parents) == list(a.end_site_parents)
    np.testing.assert_allclose(b.end_site_offsets, a.end_site_offsets, rtol=0, atol=tolerance)


@needs_corpus
def test_the_motion_is_the_files(round_trip):
    original, exported, _ = round_trip
    assert exported.frame_count == original.frame_count
    np.testing.assert_allclose(exported.local_rotations(), original.local_rotations(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(exported.translations, original.translations, rtol=0, atol=1e-6 * size(original))


@needs_corpus
def test_blenders_importer_shows_the_original_on_every_frame(round_trip):
    """Blender's built-in importer reads our export; its pose bones stand where the core's FK puts
    the original file's joints, within 1e-5 of the skeleton's size on every frame (gimbal-lock
    frames such as Boxing_Toes 2895 and fairmotion's frame 0 included)."""
    original, _, path = round_trip
    bpy.ops.import_anim.bvh(filepath=str(path))
    heads, names = all_heads(bpy.context.object, original.frame_count)
    expected = original.world_positions() @ axis_matrix("-Z", "Y").T
    index = {n.replace(" ", "_"): j for j, n in enumerate(original.skeleton.names)}
    errors = np.linalg.norm(heads - expected[:, [index[n] for n in names]], axis=-1)
    frame, joint = np.unravel_index(errors.argmax(), errors.shape)
    assert errors.max() <= 1e-5 * size(original), f"frame {frame}, joint {names[joint]}"
