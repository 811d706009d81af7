"""MPEG-4 FAMC (ISO/IEC 14496-16 Amd.2, Frame-based Animated Mesh Compression): `bits` reads and
writes the fixed-length fields in the standard's byte order and in the reference software's,
`cabac` is the binary arithmetic coder the standard's pseudo-code calls, `syntax` reads and
writes every syntax element of the segment header and the skinning model, `skinning` and
`transforms` hold the model's mathematics, `stream` decodes and encodes segments (with our own
residual syntax) and `container` the .famc + .obj pair (see docs/famc.md)."""

from . import container, stream
from .container import read_famc, write_famc

__all__ = ["container", "read_famc", "stream", "write_famc"]
