"""What every section of the benchmarks writes its report with: progress on stderr, Markdown tables,
targets met or missed, numbers and ratios."""

from __future__ import annotations

import sys

__all__ = ["number", "progress", "ratio", "table", "times", "verdict"]


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


def number(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def times(value: float) -> str:
    return f"{value:,.1f}×" if value < 100 else f"{value:,.0f}×"


def ratio(value: float, reference: float | None) -> str:
    """`value ÷ reference` with two decimals (the targets are ratios like 0.85), or a dash."""
    return f"{value / reference:,.2f}×" if reference else "—"
