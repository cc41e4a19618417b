"""How the sections time calls: functions taking turns, and a call's best time per call."""

from __future__ import annotations

import time
from typing import Any, Callable

__all__ = ["interleaved", "per_call_us"]


def interleaved(repeat: int, functions: dict[Any, Callable[[], Any]]) -> dict[Any, tuple[Any, float]]:
    """Each function's result and best wall time over `repeat` rounds; a round runs every function once,
    so a burst of load from elsewhere on the machine hits all of them alike."""
    best = {key: (None, float("inf")) for key in functions}
    for _ in range(repeat):
        for key, function in functions.items():
            start = time.perf_counter()
            result = function()
            elapsed = time.perf_counter() - start
            if elapsed < best[key][1]:
                best[key] = (result, elapsed)
    return best


def per_call_us(call: Callable[[], Any], seconds: float = 0.5) -> float:
    """Microseconds a call, best of 5 runs of about `seconds` each."""
    best = float("inf")
    for _ in range(5):
        count, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(100):
                call()
            count += 100
        best = min(best, elapsed / count * 1e6)
    return best
