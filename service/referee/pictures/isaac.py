"""Isaac: the 10 × 10 board of `info.board` (columns a..j, rows 1..10 from Black's seat), the pieces as
bars with their value dots, both score markers on the track (Black's score s on cell index s, White's on
99 − s), and each player's unplaced and removed pieces. Each cell is `<g data-cell="c4">`, each piece
`<g data-piece="c4-g4">`. Marks: the piece placed or removed (and the line it scored), the legal
placements' end cells and the removable pieces."""

from __future__ import annotations

from collections import Counter
from typing import Any

from referee.pictures.scene import Gallery, Scene, caption, title_of
from referee.pictures.svg import INK_ON, PLAYER_COLOURS, Svg, classes

__all__ = ["STYLE", "draw"]

CELL = 38.0
MARGIN = 30.0
PANEL = 150.0
CAPTION = 30.0
STYLE = """
.square { fill: #efe6d2; stroke: #b9a782; stroke-width: 1; }
.score-index { font-size: 8px; fill: #a8976f; }
.piece .outline { stroke: #111; stroke-width: 1.2; }
.line-scored { fill: #ff9f1c; fill-opacity: .18; stroke: none; pointer-events: none; }
.removed-piece { fill: none; stroke: #d62828; stroke-width: 2.5; stroke-dasharray: 5 3; }
.marker { stroke: #111; stroke-width: 1.5; }
.panel-title { font-size: 13px; fill: #222; font-weight: bold; }
"""


class Grid:
    """Where the cells of a board of `columns` × `rows` are drawn, for a viewer (White sees it turned 180°)."""

    def __init__(self, columns: list[str], rows: int, flipped: bool) -> None:
        self.columns, self.rows, self.flipped = columns, rows, flipped

    def cell(self, name: str) -> tuple[int, int]:
        """(column index, row index) of a cell name such as `c4`."""
        return self.columns.index(name[0]), int(name[1:]) - 1

    def name(self, column: int, row: int) -> str:
        return f"{self.columns[column]}{row + 1}"

    def corner(self, column: int, row: int) -> tuple[float, float]:
        """The top-left pixel of a cell."""
        if self.flipped:
            column, row = len(self.columns) - 1 - column, self.rows - 1 - row
        return MARGIN + column * CELL, MARGIN + (self.rows - 1 - row) * CELL

    def span(self, piece: str) -> list[tuple[int, int]]:
        """The cells of a piece written by its end cells (`c4-g4`)."""
        (c1, r1), (c2, r2) = (self.cell(end) for end in piece.split("-"))
        return [(c, r) for c in range(min(c1, c2), max(c1, c2) + 1) for r in range(min(r1, r2), max(r1, r2) + 1)]

    def box(self, cells: list[tuple[int, int]]) -> tuple[float, float, float, float]:
        corners = [self.corner(c, r) for c, r in cells]
        x, y = min(p[0] for p in corners), min(p[1] for p in corners)
        return x, y, max(p[0] for p in corners) + CELL - x, max(p[1] for p in corners) + CELL - y

    def score_cell(self, player: str, score: int) -> tuple[int, int] | None:
        """The cell of a score on a player's track (None once it reached the end of the track)."""
        size = len(self.columns) * self.rows
        if score >= size:
            return None
        index = score if player == "black" else size - 1 - score
        return index % len(self.columns), index // len(self.columns)


def values_by_length(board: dict[str, Any]) -> dict[int, int]:
    return {piece["length"]: piece["value"] for piece in board["pieces"]}


def legal_marks(legal: list[str] | None) -> tuple[set[str], set[str]]:
    """The end cells of the legal placements, and the pieces a legal removal names."""
    ends, removable = set(), set()
    for move in legal or []:
        if move.startswith("x"):
            removable.add(move[1:].split("+")[0])
        elif move != "pass":
            ends.update(move.split("-"))
    return ends, removable


def draw_squares(svg: Svg, grid: Grid, ends: set[str]) -> None:
    for row in range(grid.rows):
        for column in range(len(grid.columns)):
            name = grid.name(column, row)
            x, y = grid.corner(column, row)
            group = svg.group(None, class_=classes("cell", "legal" if name in ends else None), data_cell=name)
            svg.rect(group, x, y, CELL, CELL, class_="square")
            svg.text(group, x + 7, y + CELL - 6, str(row * len(grid.columns) + column), class_="score-index")
            if name in ends:
                svg.circle(group, x + CELL / 2, y + CELL / 2, 4.5, class_="mark-legal")
            svg.tooltip(group, name)


def draw_piece(svg: Svg, grid: Grid, piece: str, player: str, value: int, marks: list[str]) -> None:
    cells = grid.span(piece)
    x, y, w, h = grid.box(cells)
    group = svg.group(None, class_=classes("piece", *marks), data_piece=piece, data_player=player)
    svg.rect(group, x + 4, y + 4, w - 8, h - 8, rx=7, fill=PLAYER_COLOURS[player], class_="outline")
    horizontal = w > h
    for dot in range(value):
        offset = (dot - (value - 1) / 2) * 9
        cx, cy = (x + w / 2 + offset, y + h / 2) if horizontal else (x + w / 2, y + h / 2 + offset)
        svg.circle(group, cx, cy, 3, fill=INK_ON.get(player, "#fff"))
    if "last" in marks:
        svg.rect(group, x + 1.5, y + 1.5, w - 3, h - 3, rx=8, class_="mark-last")
    svg.tooltip(group, f"{player} {piece} (length {len(cells)}, value {value})")


def draw_markers(svg: Svg, grid: Grid, scores: dict[str, int]) -> None:
    for number, (player, score) in enumerate(sorted(scores.items())):
        place = grid.score_cell(player, score)
        if place is None:
            continue
        x, y = grid.corner(*place)
        cx, cy = x + (CELL * 0.3 if number == 0 else CELL * 0.7), y + CELL * 0.3
        group = svg.group(None, class_="marker-group", data_marker=player, data_score=score)
        svg.circle(group, cx, cy, 8, fill=PLAYER_COLOURS[player], class_="marker")
        svg.text(group, cx, cy, str(score), font_size=8, fill=INK_ON.get(player, "#fff"))
        svg.tooltip(group, f"{player}'s score marker: {score}")


def draw_effects(svg: Svg, grid: Grid, effects: dict[str, Any]) -> None:
    """A removal: the line it scored shaded, the removed piece outlined where it lay."""
    if effects.get("kind") != "remove":
        return
    cells = grid.span(effects["piece"])
    kind, _, label = effects["line"].partition(" ")
    whole = [(c, cells[0][1]) for c in range(len(grid.columns))] if kind == "row" else \
        [(cells[0][0], r) for r in range(grid.rows)]
    svg.rect(None, *grid.box(whole), class_="line-scored", data_line=label)
    x, y, w, h = grid.box(cells)
    svg.rect(None, x + 3, y + 3, w - 6, h - 6, rx=7, class_="removed-piece", data_removed=effects["piece"])


def unplaced(board: dict[str, Any], state: dict[str, Any], player: str, grid: Grid) -> Counter:
    """Lengths of a player's pieces still off the board and never placed."""
    left = Counter({piece["length"]: piece["count"] for piece in board["pieces"]})
    left.subtract(len(grid.span(piece)) for piece in state["pieces"][player])
    left.subtract(state["removed"][player])
    return left


def draw_panel(svg: Svg, scene: Scene, grid: Grid, x: float) -> None:
    board, state = scene.info["board"], scene.state
    y = MARGIN
    for player in scene.info["players"]:
        svg.text(None, x, y, f"{title_of(player)}: {state['scores'][player]}", class_="panel-title", text_anchor="start")
        y += 18
        svg.text(None, x, y, "unplaced:", class_="label", text_anchor="start")
        y += 12
        for length, count in sorted(unplaced(board, state, player, grid).items()):
            for _ in range(count):
                svg.rect(None, x, y, length * 8, 7, rx=3, fill=PLAYER_COLOURS[player], stroke="#111", stroke_width=0.8,
                         class_="unplaced", data_player=player, data_length=length)
                y += 10
        removed = "".join(map(str, state["removed"][player])) or "none"
        svg.text(None, x, y + 6, f"removed: {removed}", class_="label", text_anchor="start")
        y += 34
    svg.text(None, x, y, f"phase: {state['phase']}", class_="label", text_anchor="start")


#: The playground's hint for this game, and its clicks: the JavaScript of `click(element)`, which turns a
#: click on an element the picture names (`data-...`) into a move (templates/play.html).
PLAY_HINT = "Placement: click a piece's two end cells. Scoring: click one of your pieces, then an advance."
PLAY_CLICKS = """\
function click(element) {
  const state = current().state;
  if (state.phase === "scoring" && element.dataset.piece) {
    const piece = element.dataset.piece;
    const moves = view.legal.filter((m) => m.startsWith(`x${piece}+`));
    if (moves.length === 0) { play(`x${piece}+0`); return; }
    select(element, piece);
    offer(`Remove ${piece}: choose the marker's advance`, moves.map((m) => [`+${m.split("+")[1]}`, m]));
    return;
  }
  const cell = element.dataset.cell;
  if (!cell) return;
  if (view.selection === null || view.selection === cell) { select(element, cell); $("hint").textContent = `end ${cell} chosen: click the other end`; return; }
  const ends = [view.selection, cell].sort((a, b) => a.charCodeAt(0) - b.charCodeAt(0) || Number(a.slice(1)) - Number(b.slice(1)));
  play(`${ends[0]}-${ends[1]}`);
}
"""

#: The README's picture (see `gallery`): setup, seed, seed of the moves' choice, least plies, and what the
#: last move must have done.
GALLERY: Gallery = ({}, 0, 5, 10, lambda e: e["kind"] == "remove" and e["markers_on_line"] > 0)


def draw(scene: Scene) -> Svg:
    board, state, effects = scene.info["board"], scene.state, scene.effects or {}
    grid = Grid(board["columns"], board["rows"], scene.viewer == "white")
    width = 2 * MARGIN + CELL * len(grid.columns) + PANEL
    height = 2 * MARGIN + CELL * grid.rows + CAPTION
    svg = Svg(width, height, game="isaac", title="Isaac: " + caption(scene.outcome), style=STYLE)
    ends, removable = legal_marks(scene.legal)
    draw_squares(svg, grid, ends)
    draw_effects(svg, grid, effects)
    values = values_by_length(board)
    for player in scene.info["players"]:
        for piece in state["pieces"][player]:
            marks = ["last" if effects.get("kind") == "place" and effects.get("piece") == piece else None,
                     "legal" if piece in removable else None]
            draw_piece(svg, grid, piece, player, values[len(grid.span(piece))], [m for m in marks if m])
    draw_markers(svg, grid, state["scores"])
    for column in range(len(grid.columns)):
        x, y = grid.corner(column, 0)
        svg.text(None, x + CELL / 2, (y + CELL + 12) if not grid.flipped else MARGIN + CELL * grid.rows + 12,
                 grid.columns[column], class_="label")
    for row in range(grid.rows):
        x, y = grid.corner(0, row)
        svg.text(None, MARGIN - 12, y + CELL / 2, str(row + 1), class_="label")
    draw_panel(svg, scene, grid, MARGIN * 1.6 + CELL * len(grid.columns))
    svg.text(None, (width - PANEL) / 2, height - CAPTION / 2 - 2, caption(scene.outcome), class_="caption")
    return svg
