"""What every section of the benchmarks writes its report with."""

from __future__ import annotations

import sys

__all__ = ["progress", "table", "verdict"]


def progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def verdict(goal: str, met: bool | None) -> str:
    """A target's cell: met, **missed** (bold, to be seen at a glance), or n/a (no reference measured)."""
    if met is None:
        return f"{goal}: n/a"
    return f"{goal}: met" if met else f"**{goal}: missed**"


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
