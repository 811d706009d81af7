"""The Examples sections of the public core API's docstrings run as written (doctest), under the
names their modules' docstrings say they assume (numpy as np; core; rotations)."""

import doctest
import importlib

import numpy as np
import pytest

from mocap_io import core
from mocap_io.core import rotations

MODULES = ["rotations", "motion", "skeleton", "markers", "mesh", "formats", "resample", "retarget", "bone_map"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    module = importlib.import_module(f"mocap_io.core.{name}")
    names = {"np": np, "core": core, "rotations": rotations}
    flags = doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, extraglobs=names, optionflags=flags, raise_on_error=False, verbose=False)
    assert result.attempted > 0, f"{name}: no examples"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (see the output above)"
