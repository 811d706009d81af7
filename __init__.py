"""Mocap I/O: Blender extension entry point (the add-on lives in `addon/`, the format code in `core/`)."""


def register():
    from .addon import register as _register
    _register()


def unregister():
    from .addon import unregister as _unregister
    _unregister()
