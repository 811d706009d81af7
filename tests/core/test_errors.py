"""core.errors: ParseError's message, the one memory bound every reader checks, the two kinds of
reader message."""

import pytest

from mocap_io.core.errors import (
    MEMORY_FLOOR,
    MEMORY_PER_BYTE,
    FileNote,
    FileWarning,
    FrameCountWarning,
    ParseError,
    check_memory,
    memory_allowed,
)


def test_a_parse_error_is_one_line_whatever_bytes_the_file_holds():
    error = ParseError("take.c3d", "parameter 'A\x00B\nC' has no group", offset=12)
    assert str(error) == "take.c3d, byte 12: parameter 'A\\x00B\\x0aC' has no group"


def test_the_memory_bound_grows_with_the_file_and_names_its_place():
    assert memory_allowed(0) == MEMORY_FLOOR and memory_allowed(10) == MEMORY_FLOOR + 10 * MEMORY_PER_BYTE
    check_memory("t.bvh", memory_allowed(2**20), 2**20, "what")  # up to the bound: no error
    with pytest.raises(ParseError) as info:
        check_memory("t.c3d", memory_allowed(2**20) + 1, 2**20, "many frames", offset=40, why=": too many")
    error = info.value
    assert (error.line, error.offset) == (None, 40)
    assert str(error) == (
        f"t.c3d, byte 40: many frames would take 164 MiB from a file of 1.0 MiB "
        f"(at most {MEMORY_PER_BYTE} x the file size + {MEMORY_FLOOR >> 20} MiB): too many"
    )
    with pytest.raises(ParseError, match=r"t\.amc, line 7: ") as info:
        check_memory("t.amc", 10**12, 0, "frames", line=7)


def test_readers_say_warnings_and_notes_apart_by_their_category():
    assert issubclass(FrameCountWarning, FileWarning) and not issubclass(FileNote, FileWarning)
    assert issubclass(FileWarning, UserWarning) and issubclass(FileNote, UserWarning)  # shown where warnings are
