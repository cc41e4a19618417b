"""Where tasks run: locally (`local_map`) or on a Dask cluster (`Cluster`)."""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from referee.archives.failures import Stop, Unusable

__all__ = ["Cluster", "local_map", "scheduler_lost"]


def local_map(function: Callable, items: list) -> Iterator:
    return map(function, items)


class Cluster:
    """A Dask client: maps functions over items as tasks, a bounded number in flight (memory stays flat),
    in order or as they complete. Tasks carry descriptions only; a lost worker's are recomputed."""

    def __init__(self, address: str) -> None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise Unusable("--scheduler needs Dask: pip install 'referee[dask]'") from None
        # The client's own log would print a traceback a retry while a lost scheduler is sought: the run
        # says what happened in one line instead (`validate`).
        self.levels = {name: logging.getLogger(name).level for name in list(logging.root.manager.loggerDict)
                       if name.split(".")[0] in ("distributed", "tornado", "asyncio")}
        for name in self.levels:
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        try:
            self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as error:
            self.close()
            raise Stop(f"cannot reach the Dask scheduler at {address}: {error}") from None
        self.address = address

    def map(self, function: Callable, items: list, *args: Any, ordered: bool = True) -> Iterator:
        from dask.distributed import as_completed

        in_flight = max(2, 2 * sum(self.client.nthreads().values()))
        todo = iter(items)

        def submit(item: Any) -> Any:
            return self.client.submit(function, item, *args, pure=False, retries=2)

        pending = deque(submit(item) for item in islice(todo, in_flight))
        if ordered:
            while pending:
                result = pending.popleft().result()
                pending.extend(submit(item) for item in islice(todo, 1))
                yield result
            return
        running = as_completed(pending)
        for future in running:
            result = future.result()
            for item in islice(todo, 1):
                running.add(submit(item))
            yield result

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close(timeout=2)
        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)


def scheduler_lost(error: BaseException) -> bool:
    from concurrent.futures import CancelledError

    try:
        from distributed.comm import CommClosedError
    except ImportError:
        return False
    return isinstance(error, (CancelledError, CommClosedError, ConnectionError, TimeoutError))
