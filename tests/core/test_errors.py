"""core.errors: ParseError's message."""

from mocap_io.core.errors import ParseError


def test_a_parse_error_is_one_line_whatever_bytes_the_file_holds():
    error = ParseError("take.c3d", "parameter 'A\x00B\nC' has no group", offset=12)
    assert str(error) == "take.c3d, byte 12: parameter 'A\\x00B\\x0aC' has no group"
