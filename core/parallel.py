"""Numpy work on every core: numpy releases the GIL inside its loops, so threads are enough."""

import os
from concurrent.futures import ThreadPoolExecutor

THREADS = min(4, os.cpu_count() or 1)


def parallel_map(function, items):
    """function(item) for each item, in order, computed on up to THREADS threads; a generator, so
    results can be used (written, say) as they arrive. A single item runs in the calling thread."""
    items = list(items)
    if len(items) <= 1:
        yield from map(function, items)
        return
    with ThreadPoolExecutor(THREADS) as pool:
        yield from pool.map(function, items)
