"""C3D and TRC in Blender: what Blender shows (world positions of the empties, evaluated vertices of
the point cloud) equals the core's positions, gaps stay gaps, failures leave nothing, and export
gives back the core's data."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from blender_scene import (
    bpy,
    data_counts,
    evaluated_vertices,
    failed_import,
    fresh_scene,
    mutants_import_or_fail_cleanly,
)
from corpus_files import CORPUS, by_path, manifest, needs_corpus
from mocap_io import core
from mocap_io.addon import export_markers, import_markers
from mocap_io.addon.common import compat, units
from mocap_io.addon.common.names import blender_names
from mocap_io.addon.to_blender.markers import import_markers_steps
from mocap_io.core.markers import Markers

LABELS = ["RASI", "LASI", "RASI", "L" * 70, "knee marker", "never seen"]
IMPORT = {".c3d": "mocap_c3d", ".trc": "mocap_trc"}


def sample_take(frames=30, rate=100.0, units="mm"):
    """Six markers in mm with a leading, two interior and a trailing gap, and one never seen."""
    rng = np.random.default_rng(7)
    t = np.arange(frames)[:, None, None]
    phase = rng.normal(0, 1, (1, len(LABELS), 3))
    positions = (rng.normal(0, 400, (1, len(LABELS), 3)) + 15 * np.sin(t / 5 + phase)).astype(np.float32)
    positions[:4, 1] = np.nan
    positions[10:13, 2] = np.nan
    positions[20:25, 2] = np.nan
    positions[-3:, 3] = np.nan
    positions[:, 5] = np.nan
    return Markers(LABELS, positions, rate, units=units)


def written(tmp_path, name, markers=None):
    """A take written by the core; (path, the Markers the core reads from it)."""
    path = tmp_path / name
    core.write(sample_take() if markers is None else markers, path)
    return path, core.read(path)


def in_blender(positions, ext, metres=0.001):
    """File positions in Blender's axes and metres: C3D Z up as is, TRC Y up: (x, y, z) -> (x, -z, y)."""
    positions = np.asarray(positions, dtype=float) * metres
    return positions if ext == ".c3d" else np.stack([positions[..., 0], -positions[..., 2], positions[..., 1]], -1)


def held(positions):
    """Per frame and marker, the last seen position (the first seen before it), by a loop."""
    out = np.array(positions, dtype=float)
    for m in range(out.shape[1]):
        seen = [f for f in range(len(out)) if not np.isnan(out[f, m, 0])]
        for f in range(len(out)):
            before = [s for s in seen if s <= f]
            out[f, m] = out[before[-1] if before else seen[0], m] if seen else 0.0
    return out


def empties_at(names, frame, subframe=0.0):
    """World positions (M, 3) and viewport-hidden flags of the objects `names` at a scene frame."""
    bpy.context.scene.frame_set(frame, subframe=subframe)
    objects = [bpy.data.objects[n] for n in names]
    return np.array([o.matrix_world.translation for o in objects]), np.array([o.hide_viewport for o in objects])


def vertices_at(obj, frame, subframe):
    """(V, 3) evaluated vertices of a mesh object at a scene frame and subframe."""
    bpy.context.scene.frame_set(frame, subframe=subframe)
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    try:
        return np.array([v.co[:] for v in mesh.vertices])
    finally:
        evaluated.to_mesh_clear()


def location_keys(obj):
    """(frames, interpolation names) of the keys of the empty's location X curve."""
    (curve,) = [c for c in compat.action_fcurves(obj) if c.data_path == "location" and c.array_index == 0]
    return [k.co[0] for k in curve.keyframe_points], [k.interpolation for k in curve.keyframe_points]


def import_file(path, **options):
    operator = getattr(bpy.ops.import_anim, IMPORT[path.suffix])
    assert operator(filepath=str(path), **options) == {"FINISHED"}


@pytest.mark.parametrize("ext", [".c3d", ".trc"])
def test_empties_show_the_core_positions_and_hide_in_gaps(tmp_path, ext):
    path, markers = written(tmp_path, "take" + ext)
    fresh_scene()
    import_file(path)
    expected, names = in_blender(markers.positions, ext), blender_names(markers.names)
    assert names[2] == "RASI.001" and names[3] == "L" * 63
    for frame in range(markers.frame_count):
        shown, hidden = empties_at(names, 1 + frame)
        seen = markers.valid[frame]
        np.testing.assert_allclose(shown[seen], expected[frame, seen], rtol=0, atol=1e-6)
        assert list(hidden) == list(~seen)
    parent = bpy.data.objects["take"]
    assert sorted(c.name for c in parent.children) == sorted(names) and parent.type == "EMPTY"
    assert bpy.context.scene.render.fps == 100 and bpy.context.scene.frame_end == markers.frame_count


def test_gaps_are_unkeyed_and_the_key_before_a_gap_is_constant(tmp_path):
    """Without hiding, every marker is shown: through a gap it holds its last seen position (before
    its first key, the first)."""
    path, markers = written(tmp_path, "take.c3d")
    fresh_scene()
    import_file(path, hide_gaps=False)
    names = blender_names(markers.names)
    holding = held(in_blender(markers.positions, ".c3d"))
    for frame in range(markers.frame_count):
        shown, hidden = empties_at(names[:5], 1 + frame)
        np.testing.assert_allclose(shown, holding[frame, :5], rtol=0, atol=1e-6)
        assert not hidden.any()
    for m, name in enumerate(names[:5]):
        frames, kinds = location_keys(bpy.data.objects[name])
        seen = np.flatnonzero(markers.valid[:, m])
        assert frames == list(1.0 + seen)
        before_gap = {int(f) for f, g in zip(seen[:-1], np.diff(seen)) if g > 1}
        assert kinds == ["CONSTANT" if f in before_gap else "LINEAR" for f in seen]
        assert not any(c.data_path == "hide_viewport" for c in compat.action_fcurves(bpy.data.objects[name]))
    never = bpy.data.objects[names[5]]
    assert never.hide_viewport and never.animation_data is None  # never seen: hidden, nothing keyed


def test_point_cloud_plays_the_core_positions(tmp_path):
    path, markers = written(tmp_path, "take.c3d")
    fresh_scene()
    objects, messages = import_markers(bpy.context, [str(path)], representation="POINT_CLOUD")
    (obj,) = objects
    cache = path.parent / "mocap_io_cache" / path.with_suffix(".pc2").name
    assert obj.type == "MESH" and obj.modifiers[0].type == "MESH_CACHE" and cache.exists()
    assert messages.notes == [f"cache written to {cache}"]
    assert [g.name for g in obj.vertex_groups] == blender_names(markers.names)
    assert obj.instance_type == "VERTS" and len(obj.children) == 1  # a sphere on each vertex
    holding = held(in_blender(markers.positions, ".c3d"))
    for frame in (0, 3, 4, 11, 17, 22, 29):
        np.testing.assert_allclose(evaluated_vertices(obj, 1 + frame), holding[frame], rtol=0, atol=1e-6)


@pytest.mark.parametrize("representation", ["EMPTIES", "POINT_CLOUD"])
def test_keep_scene_rate_places_file_frames_in_time(tmp_path, representation):
    """A 100 Hz file in a 25 fps scene: file frame i at scene frame 1 + i / 4 (subframes too)."""
    path, markers = written(tmp_path, "take.c3d")
    scene = fresh_scene()
    scene.render.fps = 25
    import_file(path, representation=representation, frame_rate="KEEP", hide_gaps=False)
    assert (scene.render.fps, scene.frame_end) == (25, math.ceil(1 + 29 / 4))
    expected = held(in_blender(markers.positions, ".c3d"))
    for i in (0, 4, 5, 14, 27):
        frame, subframe = divmod(1 + i / 4, 1)
        if representation == "EMPTIES":
            shown, _ = empties_at(blender_names(markers.names)[:5], int(frame), subframe)
        else:
            shown = vertices_at(bpy.data.objects["take"], int(frame), subframe)[:5]
        np.testing.assert_allclose(shown, expected[i, :5], rtol=0, atol=1e-6)


@pytest.mark.parametrize("hide_gaps", [True, False])
@pytest.mark.parametrize("out", [".c3d", ".trc"])
@pytest.mark.parametrize("ext", [".c3d", ".trc"])
def test_round_trip_gives_back_the_core_data(tmp_path, ext, out, hide_gaps):
    """File -> Blender -> file, in the first file's axes: the same labels (duplicates and names
    beyond 63 bytes too), rate, units and gaps; positions to single precision."""
    path, markers = written(tmp_path, "take" + ext)
    fresh_scene()
    import_file(path, hide_gaps=hide_gaps)
    axes = {"axis_forward": "Y", "axis_up": "Z"} if ext == ".c3d" else {"axis_forward": "-Z", "axis_up": "Y"}
    returned = export_markers(bpy.context, [bpy.data.objects["take"]], str(tmp_path / ("back" + out)), **axes)
    back = core.read(tmp_path / ("back" + out))
    for result in (returned, back):
        assert result.names == LABELS and result.rate == 100.0 and result.units == "mm"
        assert np.array_equal(result.valid, markers.valid)
        np.testing.assert_allclose(result.positions, markers.positions, rtol=2.4e-7, atol=0)


def test_export_axes_and_units(tmp_path):
    """A Z-up C3D exported to TRC with TRC's default axes (Y up) and in metres."""
    path, markers = written(tmp_path, "take.c3d")
    fresh_scene()
    import_file(path)
    assert bpy.ops.export_anim.mocap_trc(filepath=str(tmp_path / "y_up.trc"), units="M") == {"FINISHED"}
    back = core.read(tmp_path / "y_up.trc")
    x, y, z = np.moveaxis(markers.positions.astype(float) / 1000, -1, 0)
    assert back.units == "m"
    np.testing.assert_allclose(back.positions, np.stack([x, z, -y], -1), rtol=2.4e-7, atol=1e-12)


def test_point_cloud_exports_its_vertices_with_the_labels(tmp_path):
    path, markers = written(tmp_path, "take.c3d")
    fresh_scene()
    import_file(path, representation="POINT_CLOUD")
    assert bpy.context.active_object.type == "MESH"
    assert bpy.ops.export_anim.mocap_c3d(filepath=str(tmp_path / "back.c3d")) == {"FINISHED"}
    back = core.read(tmp_path / "back.c3d")
    assert back.names == LABELS and back.valid.all()  # a vertex holds its place through a gap
    expected = held(markers.positions)
    np.testing.assert_allclose(back.positions[:, :5], expected[:, :5], rtol=2.4e-7, atol=0)


@pytest.mark.parametrize(
    "rate, frame_rate, fps, base",
    [(59.94, "SNAP", 60, 60 / 59.94), (30000 / 1001, "SNAP", 30, 1.001), (120.0, "SNAP", 120, 1.0)],
)
def test_scene_rate_from_the_file(tmp_path, rate, frame_rate, fps, base):
    """C3D stores the rate in single precision: a standard rate within its rounding is that rate,
    and an export writes it back."""
    take = sample_take()
    path, _ = written(tmp_path, "take.c3d", Markers(take.names, take.positions, rate, units="mm"))
    scene = fresh_scene()
    import_file(path, frame_rate=frame_rate)
    assert scene.render.fps == fps and scene.render.fps_base == pytest.approx(base, rel=1e-7)
    export_markers(bpy.context, [bpy.data.objects["take"]], str(tmp_path / "back.trc"))
    assert f"\n{rate!r}\t".replace(".0\t", "\t") in (tmp_path / "back.trc").read_text()[:300]
    export_markers(bpy.context, [bpy.data.objects["take"]], str(tmp_path / "back.c3d"))
    assert core.read(tmp_path / "back.c3d").rate == np.float32(rate)


def test_exact_rate_is_the_stored_single(tmp_path):
    take = sample_take()
    path, _ = written(tmp_path, "take.c3d", Markers(take.names, take.positions, 59.94, units="mm"))
    scene = fresh_scene()
    import_file(path, frame_rate="EXACT")
    assert Fraction(scene.render.fps) / Fraction(scene.render.fps_base) == pytest.approx(
        float(np.float32(59.94)), rel=1e-7
    )


@pytest.mark.parametrize("units, option, metres", [("m", "FILE", 1.0), ("cm", "FILE", 0.01), ("mm", "M", 1.0)])
def test_units_from_the_file_or_the_option(tmp_path, units, option, metres):
    take = sample_take()
    path, markers = written(tmp_path, "take.trc", Markers(take.names, take.positions / 1000, 100, units=units))
    fresh_scene()
    import_file(path, units=option)
    shown, _ = empties_at(blender_names(markers.names)[:1], 1)
    np.testing.assert_allclose(shown[0], in_blender(markers.positions[0, 0], ".trc", metres), rtol=1e-6)


def test_an_unknown_unit_reads_as_millimetres_and_says_so(tmp_path):
    take = sample_take()
    path, markers = written(tmp_path, "take.trc", Markers(take.names, take.positions, 100, units="furlongs"))
    fresh_scene()
    _, messages = import_markers(bpy.context, [str(path)])
    assert messages.notes == ["take: length unit 'furlongs' unknown: read as millimetres"]
    shown, _ = empties_at(blender_names(markers.names)[:1], 1)
    np.testing.assert_allclose(shown[0], in_blender(markers.positions[0, 0], ".trc"), rtol=1e-6)


def test_several_files_at_once(tmp_path):
    (tmp_path / "a").mkdir()
    written(tmp_path / "a", "walk.c3d")
    written(tmp_path / "a", "run.c3d")
    fresh_scene()
    files = [{"name": "walk.c3d"}, {"name": "run.c3d"}]
    assert bpy.ops.import_anim.mocap_c3d(files=files, directory=str(tmp_path / "a")) == {"FINISHED"}
    assert {"walk", "run"} <= set(bpy.data.objects.keys())
    assert len(bpy.data.objects["run"].children) == len(LABELS)


def failed_marker_import(path, **options):
    """The one-line report of a marker import that must fail (see blender_scene.failed_import)."""
    return failed_import(getattr(bpy.ops.import_anim, IMPORT[path.suffix]), filepath=str(path), **options)


def test_a_failure_while_building_leaves_nothing(tmp_path, monkeypatch):
    path, _ = written(tmp_path, "take.c3d")
    add_curve, calls = compat.add_curve, []

    def failing(*args):
        calls.append(args)
        if len(calls) == 7:  # the third marker's first curve
            raise KeyError("curve")
        return add_curve(*args)

    monkeypatch.setattr(compat, "add_curve", failing)
    text = failed_marker_import(path)
    assert len(calls) == 7 and f"{path}: unexpected KeyError: 'curve'" in text


def test_a_point_cloud_import_that_fails_leaves_no_cache_folder(tmp_path):
    """The second file is broken: nothing is built, and no empty mocap_io_cache/ is left beside
    the first (its cache's folder is made only when the caches are written, last)."""
    written(tmp_path, "a.c3d")
    (tmp_path / "b.c3d").write_bytes(b"\x00" * 100)
    files = [{"name": "a.c3d"}, {"name": "b.c3d"}]
    options = {"files": files, "directory": str(tmp_path), "representation": "POINT_CLOUD"}
    text = failed_import(bpy.ops.import_anim.mocap_c3d, **options)
    assert f"{tmp_path / 'b.c3d'}" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.c3d", "b.c3d"]


def test_a_cache_that_cannot_be_written_leaves_nothing(tmp_path):
    path, _ = written(tmp_path, "take.c3d")
    (tmp_path / "mocap_io_cache" / "take.pc2").mkdir(parents=True)  # a folder has the cache's name
    text = failed_marker_import(path, representation="POINT_CLOUD")
    assert f"{tmp_path / 'mocap_io_cache' / 'take.pc2'}: Is a directory" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mocap_io_cache", "take.c3d"]
    assert [p.name for p in (tmp_path / "mocap_io_cache").iterdir()] == ["take.pc2"]


def test_a_failed_second_cache_removes_the_first(tmp_path):
    written(tmp_path, "a.c3d")
    written(tmp_path, "b.c3d")
    (tmp_path / "mocap_io_cache" / "b.pc2").mkdir(parents=True)
    fresh_scene()
    before = data_counts()
    with pytest.raises(OSError):
        import_markers(bpy.context, [str(tmp_path / "a.c3d"), str(tmp_path / "b.c3d")], representation="POINT_CLOUD")
    assert data_counts() == before and not (tmp_path / "mocap_io_cache" / "a.pc2").exists()


def test_a_corrupt_file_fails_naming_the_byte(tmp_path):
    path, _ = written(tmp_path, "take.c3d")
    data = bytearray(path.read_bytes())
    data[1] = 0x51  # not the parameter key
    path.write_bytes(bytes(data))
    text = failed_marker_import(path)
    assert "take.c3d, byte 1:" in text


def test_a_rate_no_scene_can_play_is_refused_and_every_rate_a_reader_gives_plays():
    """Readers refuse rates outside core.errors.RATES (1e-3 to 1e6 Hz); the scene's guard stays for
    rates given otherwise (an importer's fps option)."""
    with pytest.raises(ValueError, match=r"^1e-07 fps cannot be a Blender scene's frame rate \(1e-6 to 3.3e9\)$"):
        units.scene_rate(1e-7)
    for rate in core.errors.RATES:
        fps, base = units.scene_rate(rate)
        assert fps / base == pytest.approx(rate)


def test_cancel_leaves_nothing(tmp_path):
    path, _ = written(tmp_path, "take.c3d")
    fresh_scene()
    before = data_counts()
    work = import_markers_steps(bpy.context, [str(path)])
    for _ in range(4):  # read, then the first markers
        next(work)
    assert data_counts() != before
    work.close()
    assert data_counts() == before


def test_export_of_user_empties_follows_what_moves_them(tmp_path):
    """Empties of a user's: a moving parent (the scene is stepped), hidden frames as gaps, stepped
    (constant) keys that are no gaps, and a parent selected stands for its children."""
    scene = fresh_scene()
    scene.frame_start, scene.frame_end = 1, 5
    rig = bpy.data.objects.new("rig", None)
    scene.collection.objects.link(rig)
    for frame, x in ((1, 0.0), (5, 4.0)):
        rig.location = (x, 0, 0)
        rig.keyframe_insert("location", frame=frame)
    riding = bpy.data.objects.new("riding", None)
    riding.parent, riding.location = rig, (0, 1, 0)
    free = bpy.data.objects.new("free", None)
    for obj in (riding, free):
        scene.collection.objects.link(obj)
    for frame, z, hidden in ((1, 0.0, False), (3, 2.0, True), (4, 3.0, False)):
        free.location, free.hide_viewport = (0, 0, z), hidden
        free.keyframe_insert("location", frame=frame)
        free.keyframe_insert("hide_viewport", frame=frame)
    for obj, kind in ((rig, "LINEAR"), (free, "CONSTANT")):
        for curve in compat.action_fcurves(obj):
            for key in curve.keyframe_points:
                key.interpolation = kind
    markers = export_markers(bpy.context, [rig, free], str(tmp_path / "user.trc"), units="m")
    assert markers.names == ["riding", "free"] and markers.rate == 24
    expected_riding = [[x, 0, -1] for x in (0, 1, 2, 3, 4)]  # TRC, Y up: Blender (x, y, z) -> (x, z, -y)
    np.testing.assert_allclose(markers.positions[:, 0], expected_riding, atol=1e-6)
    np.testing.assert_allclose(markers.positions[[0, 1, 3, 4], 1], [[0, 0, 0]] * 2 + [[0, 3, 0]] * 2, atol=1e-6)
    assert np.isnan(markers.positions[2, 1]).all()


def test_operators_menus_and_file_handlers():
    fresh_scene()
    for key, ext in (("c3d", ".c3d"), ("trc", ".trc")):
        handler = bpy.types.FileHandler.bl_rna_get_subclass_py(f"MOCAP_FH_{key}")
        assert handler is not None and handler.bl_file_extensions == ext
        assert getattr(bpy.ops.import_anim, f"mocap_{key}").poll()
        assert not getattr(bpy.ops.export_anim, f"mocap_{key}").poll()  # nothing selected
    with pytest.raises(ValueError, match="no empties to export"):
        export_markers(bpy.context, [], "nothing.c3d")


@pytest.mark.parametrize("fmt", ["c3d", "trc"])
def test_mutants_import_or_fail_cleanly(tmp_path, fmt):
    """The Blender-side fuzz (blender_scene), as empties and as a point cloud (values beyond float32 included)."""
    mutants_import_or_fail_cleanly(
        tmp_path, fmt, lambda path, case: import_file(path, representation=("EMPTIES", "POINT_CLOUD")[case % 2])
    )


ROWS = manifest("c3d") + manifest("trc")


@needs_corpus
@pytest.mark.parametrize("row", by_path(r for r in ROWS if r["path"].lower().endswith((".c3d", ".trc"))))
def test_corpus_files_import_as_the_core_reads_them(row, tmp_path):
    """`ok` and `error (strict)` files import (the latter fail in strict mode, leaving nothing);
    `error` files fail, leaving nothing. Imported positions equal the core's at sampled frames."""
    path = CORPUS / row["path"]
    ext = path.suffix.lower()
    local = tmp_path / ("file" + ext)  # the operator is chosen by extension: DEC_INT.C3D too
    local.write_bytes(path.read_bytes())
    if row["expect"].startswith("error:"):
        assert "file" + ext in failed_marker_import(local)
        return
    if row["expect"].startswith("error (strict)"):
        assert "file.c3d, byte" in failed_marker_import(local, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the core's tests check them
        markers = core.read(local)
    fresh_scene()
    import_file(local)
    names = blender_names(markers.names)
    assert len(bpy.data.objects["file"].children) == markers.marker_count
    expected = in_blender(markers.positions, ext)
    for frame in sorted({0, markers.frame_count // 2, markers.frame_count - 1}):
        shown, hidden = empties_at(names, 1 + frame)
        seen = markers.valid[frame]
        np.testing.assert_allclose(shown[seen], expected[frame, seen], rtol=1e-6, atol=1e-9)
        assert list(hidden) == list(~seen)
