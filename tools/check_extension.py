"""CI: the extension zip as users get it. Builds it from this checkout with Blender's builder,
validates it, checks that it holds exactly the add-on's files and stays small, installs it into
the running bpy and imports a BVH through the installed extension.

    python tools/check_extension.py       (inside a venv with bpy; CI runs it under 5.0 and 4.2)
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import tomllib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_BYTES = 1_000_000  # 200 kB with six formats; a stray venv or corpus would be ~1 GB


def expected_files():
    """What a user needs: the manifest, the licence, the entry module and the core and addon code."""
    code = [p.relative_to(ROOT).as_posix() for folder in ("core", "addon") for p in (ROOT / folder).rglob("*.py")]
    return {"blender_manifest.toml", "LICENSE", "__init__.py", *code}


def run(*command, **options):
    done = subprocess.run(command, capture_output=True, text=True, **options)
    if done.returncode != 0 or "Traceback" in done.stderr:
        sys.exit(f"{' '.join(map(str, command))} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def check(folder):
    extension_tool = ROOT / "tools" / "blender_extension.py"
    run(sys.executable, extension_tool, "build", "--source-dir", ROOT, "--output-dir", folder)
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    archive = folder / f"{manifest['id']}-{manifest['version']}.zip"
    run(sys.executable, extension_tool, "validate", archive)
    names = set(zipfile.ZipFile(archive).namelist())
    if names != expected_files():
        sys.exit(
            f"unexpected files in the zip: {sorted(names - expected_files())}; "
            f"missing: {sorted(expected_files() - names)}"
        )
    size = archive.stat().st_size
    if size > MAX_BYTES:
        sys.exit(f"the zip is {size:,} bytes, more than {MAX_BYTES:,}")
    environment = dict(os.environ, BLENDER_USER_RESOURCES=str(folder / "user"))
    print(run(sys.executable, __file__, "install", archive, cwd=folder, env=environment), end="")
    print(f"{archive.name}: {len(names)} files, {size:,} bytes, valid")


def install_and_import(archive):
    """In a bpy whose user resources are a scratch folder: install the zip, import a BVH through it."""
    import bpy

    from sample_motion import cmu_like_motion

    bpy.ops.extensions.package_install_files(filepath=str(archive), repo="user_default", enable_on_install=True)
    extension = sys.modules["bl_ext.user_default.mocap_io"]
    operator = bpy.types.IMPORT_ANIM_OT_mocap_bvh
    assert operator.__module__.startswith(extension.__name__ + "."), operator.__module__
    assert "mocap_io" not in sys.modules, "the pip-installed package was imported, not the extension"
    extension.core.write(cmu_like_motion(extension.core, 60), "walk.bvh")
    assert bpy.ops.import_anim.mocap_bvh(filepath="walk.bvh") == {"FINISHED"}
    armature = bpy.context.scene.objects["walk"]
    bones, frames = len(armature.data.bones), tuple(armature.animation_data.action.frame_range)
    assert armature.type == "ARMATURE" and bones == 31 and frames == (1, 60), (armature.type, bones, frames)
    print(
        f"installed into bpy {bpy.app.version_string} as {extension.__name__}; imported walk.bvh: "
        f"{bones} bones, frames {frames[0]:g}-{frames[1]:g}"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["install"]:
        install_and_import(pathlib.Path(sys.argv[2]))
    else:
        with tempfile.TemporaryDirectory() as scratch:
            check(pathlib.Path(scratch))
