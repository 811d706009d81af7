"""The formats wing: every format module lives in core.formats, and the names scripts used before
the move (core.bvh, core.pc2, ...) still resolve."""

import importlib

import pytest

from mocap_io import core


@pytest.mark.parametrize(
    "name, function",
    [
        ("asf", "read_asf"),
        ("asf", "write_acclaim"),
        ("bvh", "read_bvh"),
        ("bvh", "write_bvh"),
        ("htr", "read_htr"),
        ("htr", "write_htr"),
        ("htr", "write_gtr"),
        ("c3d", "read_c3d"),
        ("c3d", "write_c3d"),
        ("trc", "read_trc"),
        ("trc", "write_trc"),
        ("obj", "read_obj"),
        ("memg", "read_memg"),
        ("memg", "encode"),
        ("pc2", "write_pc2"),
    ],
)
def test_format_modules_live_in_formats_and_keep_their_core_names(name, function):
    module = importlib.import_module(f"mocap_io.core.formats.{name}")
    assert getattr(core, name) is module
    assert callable(getattr(module, function))


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError):
        core.no_such_format  # noqa: B018
