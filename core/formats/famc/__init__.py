"""MPEG-4 FAMC (ISO/IEC 14496-16 Amd.2, Frame-based Animated Mesh Compression): `bits` reads and
writes the fixed-length fields in the standard's byte order and in the reference software's,
`cabac` is the binary arithmetic coder the standard's pseudo-code calls, and `syntax` reads and
writes every syntax element of the segment header and the skinning model."""
