"""Core models -> Blender data: armatures and actions, meshes and shape keys (one straight pass each)."""
