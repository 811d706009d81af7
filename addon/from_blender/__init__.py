"""Blender data -> core models: armatures' animation as Motions, meshes as MeshAnimations."""
