"""Timing for the benchmark scripts: the best of several runs, each after a garbage collection."""

import gc
import time


def best(function, repeat=3):
    """The shortest of `repeat` runs of function(), in seconds."""
    return interleaved({"": function}, repeat)[""]


def interleaved(functions, rounds):
    """Best time of each function (a dict of them), run in turns for `rounds` rounds: on a shared
    machine every candidate meets the same quiet and busy moments."""
    times = {name: float("inf") for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            gc.collect()
            start = time.perf_counter()
            function()
            times[name] = min(times[name], time.perf_counter() - start)
    return times
