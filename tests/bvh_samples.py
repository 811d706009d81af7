"""Small BVH samples and motions that the tests build themselves."""

import numpy as np

from mocap_io import core

SIMPLE = """HIERARCHY
ROOT Hips
{
\tOFFSET 1 2 3
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Chest
\t{
\t\tOFFSET 0 10 0
\t\tCHANNELS 3 Zrotation Xrotation Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 5 0
\t\t}
\t}
}
MOTION
Frames: 2
Frame Time: 0.0333333
1 2 3 0 0 0 0 0 0
4 5 6 90 0 0 0 0 90
"""


def write(tmp_path, text, name="t.bvh"):
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1") if isinstance(text, str) else text)
    return path


def read_text(tmp_path, text, **options):
    return core.read(write(tmp_path, text), **options)


def random_motion(frames=30, seed=0):
    """A 4-joint chain with every joint animated (no channel layout: the writer picks one)."""
    rng = np.random.default_rng(seed)
    skeleton = core.Skeleton(
        ["root", "a", "b", "c"],
        [-1, 0, 1, 1],
        [[0, 0, 0], [0, 10, 0], [5, 0, 1], [-5, 0, 1]],
        end_site_parents=[2, 3],
        end_site_offsets=[[1, 2, 3], [0, 0, 4]],
    )
    translations = np.broadcast_to(skeleton.offsets, (frames, 4, 3)).copy()
    translations[:, 0] = rng.normal(0, 20, (frames, 3))
    return core.Motion(skeleton, 120.0, rng.uniform(-3, 3, (frames, 4, 3)), ["ZXY", "XYZ", "YZX", "ZYX"], translations)
