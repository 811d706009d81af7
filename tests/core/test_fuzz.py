"""Mutants of every format (tests/fuzz_cases.py) read in a child process limited to 3 GiB of address
space and 5 s per case: only ParseError (or OSError) may escape, memory stays bounded."""

import pytest

import fuzz_cases

PEAK_BOUND = 1 << 30  # resident memory of the child, bytes

pytestmark = pytest.mark.slow  # `pytest -m "not slow"` leaves it out (pytest.ini); CI runs it


@pytest.mark.parametrize("fmt", fuzz_cases.FORMATS)
def test_mutants_fail_only_with_parse_errors(fmt):
    report = fuzz_cases.run(fmt, fuzz_cases.CASES)
    outcomes = report["outcomes"]
    print(
        f"{fmt}: {report['cases']} cases, {outcomes}, {report['seconds']:.1f} s, "
        f"peak {report['peak_rss'] / 2**20:.0f} MiB"
    )
    assert not report["failures"], "\n".join(
        f"case {f['case']} ({f['seed']}, {f['mutation']}): {f['error']}" for f in report["failures"]
    )
    assert sum(outcomes.values()) == report["cases"] == fuzz_cases.CASES
    assert outcomes["read"] and outcomes["ParseError"]  # the mutants reach both ends
    assert report["peak_rss"] < PEAK_BOUND
