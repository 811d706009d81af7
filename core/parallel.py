"""Numpy work on every core: numpy releases the GIL inside its loops, so threads are enough."""

import collections
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

THREADS = min(4, os.cpu_count() or 1)


def parallel_map(function: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
    """function(item) for each item, in order, computed on up to THREADS threads; a generator, so
    results can be used (written, say) as they arrive. A single item runs in the calling thread."""
    items = list(items)
    if len(items) <= 1:
        yield from map(function, items)
        return
    with ThreadPoolExecutor(THREADS) as pool:
        yield from pool.map(function, items)


def parallel_stream(
    function: Callable[[Item], Result], items: Iterable[Item], ahead: int = 2 * THREADS
) -> Iterator[Result]:
    """function(item) for each item, in order, computed on up to THREADS threads, like
    `parallel_map`, but `items` (any iterable, a generator reading a file, say) is drawn only as
    results are taken, at most `ahead` items in flight: a long stream keeps few items and results
    in memory at once."""
    items = iter(items)
    with ThreadPoolExecutor(THREADS) as pool:
        pending = collections.deque(pool.submit(function, item) for item in itertools.islice(items, ahead))
        try:
            while pending:
                result = pending.popleft().result()
                pending.extend(pool.submit(function, item) for item in itertools.islice(items, 1))
                yield result
        finally:
            for future in pending:
                future.cancel()
