"""Mocap I/O: Blender extension entry point (the add-on lives in `addon/`, the format code in `core/`)."""

import atexit

_registered = False


def register():
    """Register the add-on. In the `bpy` module (no Blender binary) also unregister it at exit: bpy
    4.2 frees classes still registered after Python has shut down, and crashes (rc 139)."""
    global _registered
    import bpy

    from .addon import register as _register

    _register()
    _registered = True
    if not bpy.app.binary_path:
        atexit.register(unregister)


def unregister():
    """Unregister the add-on; a no-op when it is not registered (at exit, Blender and our exit
    handler may both ask)."""
    global _registered
    atexit.unregister(unregister)
    if _registered:
        _registered = False
        from .addon import unregister as _unregister

        _unregister()
