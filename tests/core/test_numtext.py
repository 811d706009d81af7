"""The vectorised number formatter agrees with printf-style formatting."""

import io

import numpy as np
import pytest

from mocap_io.core.numtext import format_table


@pytest.mark.parametrize("decimals", range(0, 11))
def test_matches_savetxt(decimals):
    rng = np.random.default_rng(decimals)
    values = rng.normal(0, 50, (40, 7))
    values[0] = [-1e-9, 0.5, -1234567.5, 0, 999.9999996, 12345.678, -9999.99999]
    values[1, :3] = [-0.4, 123456.5, 1e15]
    ours = format_table(values, decimals).split(b"\n")
    reference = io.BytesIO()
    np.savetxt(reference, values, fmt=f"%.{decimals}f")
    theirs = reference.getvalue().split(b"\n")
    assert len(ours) == len(theirs) == 41
    for a, b in zip(ours, theirs):
        for x, y in zip(a.split(b" "), b.split(b" ")):
            # printf rounds the exact binary value, we round the scaled value: they may differ by
            # one unit in the last place for values that sit on a rounding boundary
            assert x == y or abs(float(x) - float(y)) <= 1.01 * 10.0 ** -decimals
            assert not x.startswith(b"-") or float(x) != 0  # never "-0"


def test_shapes_and_errors():
    assert format_table(np.zeros((3, 0))) == b"\n\n\n"
    assert format_table(np.array([[1.0, -2.0]]), 2) == b"1.00 -2.00\n"
    with pytest.raises(ValueError):
        format_table(np.array([[np.nan]]))
