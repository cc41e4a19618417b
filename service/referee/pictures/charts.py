"""Charts of an archive's report (`referee.archives.report`), built with the one SVG builder: bars of counts by
label, and histograms of counts by value. Every bar carries its numbers (`data-label` and `data-value`;
a histogram's bins `data-from` and `data-to` too), so the figures of a page can be read back and checked
against the results they count."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from referee.pictures.svg import Svg, number

__all__ = ["STYLE", "bars", "histogram"]

#: Every chart's style, scoped to charts so that a page holding them keeps its own; a page that holds
#: charts has it once (the charts do not repeat it).
STYLE = """
.referee-chart text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; font-size: 12px; fill: #222; }
.referee-chart .caption { font-size: 14px; font-weight: bold; }
.referee-chart .value, .referee-chart .tick { font-size: 11px; fill: #555; }
.referee-chart .axis { stroke: #999; stroke-width: 1; }
.referee-chart .bar rect { fill: #4a78b5; stroke: #555; stroke-width: 0.5; }
.referee-chart .none { font-style: italic; fill: #777; }
"""
WIDTH = 560
CAPTION = 30
ROW = 22
LABELS = 210  # the width of a bar chart's labels
PLOT = 200  # a histogram's height


def chart(title: str, height: float) -> Svg:
    svg = Svg(WIDTH, height, title=title, kind="chart")
    svg.text(None, 8, CAPTION / 2, title, text_anchor="start", class_="caption")
    return svg


def bars(title: str, counts: Sequence[tuple[str, int]], colours: Mapping[str, str] | None = None) -> Svg:
    """One horizontal bar a label, as long as its count, in the order given; a label's bar takes its
    colour from `colours` (a player's colour), else the chart's."""
    svg = chart(title, CAPTION + ROW * max(1, len(counts)) + 8)
    if not counts:
        svg.text(None, LABELS, CAPTION + ROW / 2, "none", text_anchor="start", class_="none")
    biggest = max((value for _, value in counts), default=0) or 1
    room = WIDTH - LABELS - 70
    for row, (label, value) in enumerate(counts):
        y = CAPTION + row * ROW
        svg.text(None, LABELS - 8, y + ROW / 2, label, text_anchor="end")
        bar = svg.group(None, class_="bar", data_label=label, data_value=value)
        width = room * value / biggest
        colour = (colours or {}).get(label)
        svg.rect(bar, LABELS, y + 3, width, ROW - 6, style=f"fill: {colour}" if colour else None)
        svg.tooltip(bar, f"{label}: {value:,}")
        svg.text(None, LABELS + width + 5, y + ROW / 2, f"{value:,}", text_anchor="start", class_="value")
    return svg


def histogram(title: str, counts: Mapping[int, int], unit: str, bins: int = 24, colour: str | None = None) -> Svg:
    """Vertical bars of the counts of values (a game's plies, a player's scores), `bins` at most, each
    bin the values `data-from` to `data-to` (both included)."""
    svg = chart(title, CAPTION + PLOT + 40)
    left, right, bottom = 50, WIDTH - 20, CAPTION + PLOT
    if not counts:
        svg.text(None, left, CAPTION + PLOT / 2, "none", text_anchor="start", class_="none")
        return svg
    low, high = min(counts), max(counts)
    step = max(1, math.ceil((high - low + 1) / bins))
    binned = [0] * ((high - low) // step + 1)
    for value, count in counts.items():
        binned[(value - low) // step] += count
    tallest = max(binned)
    width = (right - left) / len(binned)
    svg.line(None, (left, bottom), (right, bottom), class_="axis")
    svg.text(None, left - 6, CAPTION + 8, f"{tallest:,}", text_anchor="end", class_="tick")
    svg.text(None, left - 6, bottom, "0", text_anchor="end", class_="tick")
    for index, count in enumerate(binned):
        first, last = low + index * step, low + index * step + step - 1
        label = str(first) if step == 1 else f"{first}–{last}"
        bar = svg.group(None, class_="bar", data_label=label, data_value=count, data_from=first, data_to=last)
        height = (PLOT - 10) * count / tallest
        svg.rect(bar, left + index * width + 1, bottom - height, max(width - 2, 1), height,
                 style=f"fill: {colour}" if colour else None)
        svg.tooltip(bar, f"{label} {unit}: {count:,}")
    for index in sorted({0, len(binned) // 2, len(binned) - 1}):
        x = left + (index + 0.5) * width
        svg.text(None, x, bottom + 12, number(low + index * step), class_="tick")
    svg.text(None, (left + right) / 2, bottom + 30, unit, class_="tick")
    return svg
