"""Iago: the 61 hexes of `info.board` (rows a..i from Black's side, diagonals 1..9), discs face up or
captive, the outer area and the centre; each hex is `<g data-cell="e5">`. Marks: the cell played
(`last`), its captures and releases, and the legal cells."""

from __future__ import annotations

import math
from typing import Any
from xml.etree.ElementTree import Element

from referee.pictures.scene import Gallery, Scene, caption
from referee.pictures.svg import INK_ON, PLAYER_COLOURS, Svg, classes

__all__ = ["STYLE", "draw"]

HEX = 26.0  # a hex's circumradius
MARGIN = 34.0
CAPTION = 30.0
STYLE = """
.hex { stroke: #6b5a3a; stroke-width: 1.2; }
.area-outer { fill: #e9d8b4; }
.area-inner { fill: #d2b98b; }
.area-centre { fill: #c9a96e; }
.centre-ring { fill: none; stroke: #6b5a3a; stroke-width: 1.5; }
.captive { fill: #c62828; stroke: #5a1010; stroke-width: 1.2; }
"""
FACE_UP = {"B": "black", "W": "white"}
CAPTIVE = {"b": "black", "w": "white"}


def geometry(board: dict[str, Any]) -> tuple[dict[str, tuple[int, int]], int]:
    """Each cell's (row, diagonal) from the published cells, and the side of the hexagon."""
    rows = board["rows"]
    cells = {cell["cell"]: (rows.index(cell["cell"][0]), int(cell["cell"][1:]) - 1) for cell in board["cells"]}
    return cells, board["side"]


def centre_of(row: float, diagonal: float, side: int, flipped: bool) -> tuple[float, float]:
    """Pixel centre of (row, diagonal); rows run up the page from Black's side (down for White's view)."""
    last = 2 * side - 2
    if flipped:
        row, diagonal = last - row, last - diagonal
    x = MARGIN + math.sqrt(3) * HEX * (diagonal - row / 2 + (side - 1) / 2) + math.sqrt(3) * HEX / 2
    y = MARGIN + 1.5 * HEX * (last - row) + HEX
    return x, y


def hexagon(x: float, y: float, radius: float) -> list[tuple[float, float]]:
    return [(x + radius * math.cos(math.radians(30 + 60 * k)), y + radius * math.sin(math.radians(30 + 60 * k)))
            for k in range(6)]


def marks_of(scene: Scene) -> dict[str, list[str]]:
    """Each cell's marks: the cell played, what it captured or released, the legal cells."""
    marks: dict[str, list[str]] = {}
    effects = scene.effects or {}
    for name, cells in (("last", [effects.get("cell")]), ("captured", effects.get("captured", [])),
                        ("released", effects.get("released", [])), ("legal", scene.legal or [])):
        for cell in cells:
            if cell:
                marks.setdefault(cell, []).append(name)
    return marks


def draw_disc(svg: Svg, group: Element, x: float, y: float, symbol: str) -> None:
    if symbol in FACE_UP:
        owner = FACE_UP[symbol]
        svg.circle(group, x, y, HEX * 0.68, fill=PLAYER_COLOURS[owner], stroke="#111", stroke_width=1.2,
                   class_="disc", data_owner=owner, data_face="up")
    elif symbol in CAPTIVE:
        owner = CAPTIVE[symbol]
        svg.circle(group, x, y, HEX * 0.68, class_="disc captive", data_owner=owner, data_face="captive")
        svg.circle(group, x, y, HEX * 0.26, fill=PLAYER_COLOURS[owner], stroke=INK_ON.get(owner, "#fff"),
                   stroke_width=1)


def draw_cell(svg: Svg, cell: str, area: str, symbol: str, marks: list[str], at: tuple[float, float]) -> None:
    x, y = at
    group = svg.group(None, class_=classes("cell", *marks), data_cell=cell, data_area=area)
    svg.polygon(group, hexagon(x, y, HEX - 0.6), class_=f"hex area-{area}")
    if area == "centre":
        svg.circle(group, x, y, HEX * 0.82, class_="centre-ring")
    draw_disc(svg, group, x, y, symbol)
    for mark in marks:
        if mark == "legal":
            if symbol == ".":
                svg.circle(group, x, y, HEX * 0.2, class_="mark-legal")
        else:
            svg.polygon(group, hexagon(x, y, HEX - 3), class_=f"mark-{mark}")
    svg.tooltip(group, cell)


def draw_labels(svg: Svg, side: int, rows: list[str], flipped: bool) -> None:
    """Row letters left of each row and diagonal numbers below the lower edge."""
    last = 2 * side - 2
    for row, letter in enumerate(rows):
        first = max(0, row - (side - 1))
        svg.text(None, *centre_of(row, first - 0.85, side, flipped), letter, class_="label")
    for diagonal in range(last + 1):
        lowest = max(0, diagonal - (side - 1))
        svg.text(None, *centre_of(lowest - 0.85, diagonal, side, flipped), str(diagonal + 1), class_="label")


#: The playground's hint for this game, and its clicks: the JavaScript of `click(element)`, which turns a
#: click on an element the picture names (`data-...`) into a move (templates/play.html).
PLAY_HINT = "Click a hex to place a disc."
PLAY_CLICKS = """\
function click(element) {
  if (element.dataset.cell) play(element.dataset.cell);
}
"""

#: The README's picture (see `gallery`): setup, seed, seed of the moves' choice, least plies, and what the
#: last move must have done.
GALLERY: Gallery = ({}, 0, 11, 30, lambda e: bool(e["captured"]) and bool(e["released"]))


def draw(scene: Scene) -> Svg:
    board = scene.info["board"]
    cells, side = geometry(board)
    flipped = scene.viewer == "white"
    width = 2 * MARGIN + math.sqrt(3) * HEX * (2 * side - 1)
    height = 2 * MARGIN + 1.5 * HEX * (2 * side - 2) + 2 * HEX + CAPTION
    svg = Svg(width, height, game="iago", title="Iago: " + caption(scene.outcome), style=STYLE)
    rows = scene.state["board"]
    marks = marks_of(scene)
    for cell in board["cells"]:
        row, diagonal = cells[cell["cell"]]
        symbol = rows[row][diagonal - max(0, row - (side - 1))]
        draw_cell(svg, cell["cell"], cell["area"], symbol, marks.get(cell["cell"], []),
                  centre_of(row, diagonal, side, flipped))
    draw_labels(svg, side, board["rows"], flipped)
    text = caption(scene.outcome)
    if scene.state.get("penalty_claim"):
        text += " · penalty claim pending"
    svg.text(None, width / 2, height - CAPTION / 2 - 4, text, class_="caption")
    return svg
