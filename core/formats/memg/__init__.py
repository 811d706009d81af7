"""The CMU mesh-ensemble binary (.memg) beside its .obj: reader, writer and encoder. See docs/memg.md.

Layout (CMU's "Binary data format" description of its mesh-ensemble data; all integers int32,
reals float64, little-endian unless the endian flag reads as 1 only when byte-swapped): endian
flag 1, frame rate, k local frames, n timesteps, k x n 3x4 row-major affines (timestep-major),
then until the end of the file one block per group: name length, name, vertex count v, v 1-based
.obj vertex indices, mean pose (3v, xyz interleaved), parent frame index, U rows, U columns, U,
Q rows, Q columns, Q. Positions of group g at timestep t: TW[parent, t] (p + U Q[:, t]) (its
"Group animations").

Every timestep must be held by data (no timesteps without local frames), every local frame's 3x3
part must be invertible, every real finite.

The description does not say whether U and Q are stored row- or column-major. `layout="auto"`
decodes both and keeps the one whose animation is smoother in time and keeps edge lengths
steadier; when the two readings are identical (rank 1, one frame) or too close to call it keeps
column-major, the order of the format co-author's own matrix library (see docs/memg.md).
"""

from .encoder import encode
from .reader import LAYOUTS, MemgAnimation, read_memg
from .writer import write_memg

__all__ = ["LAYOUTS", "MemgAnimation", "encode", "read_memg", "write_memg"]
