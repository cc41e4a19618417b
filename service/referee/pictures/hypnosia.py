"""Hypnosia: the board the state plays on, drawn from its description (circles, entries, bridges, centre
points, home length), so a custom board is drawn as given: concentric circles of spaces (index growing
counter-clockwise, as seats are numbered), each bridge from its space to its target, each seated player's
home track outside their entry, the centre's scoring spaces, the pawns (a double marked 2) and the unused
dice. Spaces are `data-space` (`0.5`, `centre`; home spaces `h2` with `data-player`), units
`data-unit` with `data-player` and `data-pawns`, dice `data-die`. Marks: the last die moves (from, to,
captures), the units that can move."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from referee.pictures.scene import Gallery, Scene, caption, title_of
from referee.pictures.svg import INK_ON, PLAYER_COLOURS, Svg, classes, polar

__all__ = ["STYLE", "board_description", "draw"]

OUTER = 230.0  # radius of the outer circle
CENTRE = 58.0  # radius of the centre
HOME_STEP = 30.0
MARGIN = 22.0
CAPTION = 30.0
STYLE = """
.ring { fill: none; stroke: #c9bfa8; stroke-width: 1; }
.space circle.spot { fill: #fbf7ec; stroke: #7d705a; stroke-width: 1.2; }
.space.bridge-foot circle.spot { stroke: #1f5f8b; stroke-width: 2.5; }
.bridge { stroke: #1f5f8b; stroke-width: 5; stroke-opacity: .35; stroke-linecap: round; }
.home rect { stroke: #7d705a; stroke-width: 1.2; fill-opacity: .35; }
.centre-disc { fill: #efe4c6; stroke: #7d705a; stroke-width: 1.5; }
.slot { fill: #fbf7ec; stroke: #7d705a; stroke-width: 1; }
.points { font-size: 10px; fill: #6b5f49; }
.pawn { stroke: #111; stroke-width: 1.3; }
.die rect { fill: #fff; stroke: #111; stroke-width: 1.5; }
.die.last rect { stroke: #ff9f1c; stroke-width: 3; }
.legal-ring { fill: none; stroke: #0b7a55; stroke-width: 2.5; stroke-dasharray: 4 2; }
"""


def board_description(state: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    """The description of the board a state plays on: the state's own (`options.board`), or the game's
    published default when the state writes it as null (or names it)."""
    board = state["options"]["board"]
    if isinstance(board, dict):
        return board
    return info["board"]["default"]


class Layout:
    """Where every space of a board is drawn: circle 0 outermost, each circle turned so that the first
    bridge reaching it is radial, the viewer's entry at the bottom."""

    def __init__(self, board: dict[str, Any], bottom_entry: int) -> None:
        self.board = board
        self.circles: list[int] = board["circles"]
        self.size = 2 * (OUTER + HOME_STEP * (board["home_length"] + 0.7) + MARGIN)
        self.cx = self.cy = self.size / 2
        step = (OUTER - CENTRE - 18) / max(len(self.circles) - 1, 1)
        self.radii = [OUTER - step * k for k in range(len(self.circles))]
        self.starts = [math.pi / 2 + 2 * math.pi * bottom_entry / self.circles[0]]
        for circle in range(1, len(self.circles)):
            self.starts.append(self.start_of(circle))

    def start_of(self, circle: int) -> float:
        for bridge in self.board["bridges"]:
            target = bridge["to"]
            if isinstance(target, list) and target[0] == circle:
                source = self.angle(*bridge["from"])
                return source + 2 * math.pi * target[1] / self.circles[circle]
        return self.starts[circle - 1]

    def angle(self, circle: int, index: int) -> float:
        return self.starts[circle] - 2 * math.pi * index / self.circles[circle]

    def space(self, circle: int, index: int) -> tuple[float, float]:
        return polar(self.cx, self.cy, self.radii[circle], self.angle(circle, index))

    def home(self, entry: int, distance: int, shift: float = 0.0) -> tuple[float, float]:
        """A home space: `distance` steps outward from the player's entry (turned by `shift` radians when
        players share an entry, so that each track shows)."""
        return polar(self.cx, self.cy, OUTER + HOME_STEP * (distance + 0.3), self.angle(0, entry) + shift)

    def spot_radius(self, circle: int) -> float:
        return min(13.0, math.pi * self.radii[circle] / self.circles[circle] * 0.78)


Homes = dict[str, tuple[int, float]]


def seated(scene: Scene, board: dict[str, Any]) -> Homes:
    """Each seated player's entry and the turn of their home track (players may share an entry), in
    seat order."""
    seats = scene.info["board"]["seats"]
    entries = [(seats[seat]["colour"], board["entries"][seat]) for seat in scene.state["options"]["seats"]]
    homes = {}
    for colour, entry in entries:
        sharing = [other for other, at in entries if at == entry]
        homes[colour] = (entry, (sharing.index(colour) - (len(sharing) - 1) / 2) * 0.17)
    return homes


def where(layout: Layout, homes: Homes, location: str, player: str) -> tuple[float, float] | None:
    """The pixel position of a location in notation (`h2` of a player, `0.5`, `centre`)."""
    if location.startswith("h"):
        entry, shift = homes[player]
        return layout.home(entry, int(location[1:]), shift)
    if location == "centre":
        return layout.cx, layout.cy
    if "." in location:
        circle, index = location.split(".")
        return layout.space(int(circle), int(index))
    return None  # captured


def draw_marks(svg: Svg, group: Any, x: float, y: float, radius: float, marks: list[str]) -> None:
    for mark in marks:
        svg.circle(group, x, y, radius, class_=f"mark-{mark}")


def draw_board(svg: Svg, layout: Layout, marks: dict[str, list[str]], homes: Homes) -> None:
    board = layout.board
    entry_colours: dict[str, list[str]] = {}
    for colour, (entry, _) in homes.items():
        entry_colours.setdefault(f"0.{entry}", []).append(colour)
    feet = {f"{b['from'][0]}.{b['from'][1]}" for b in board["bridges"]}
    for radius in layout.radii:
        svg.circle(None, layout.cx, layout.cy, radius, class_="ring")
    for bridge in board["bridges"]:
        start = layout.space(*bridge["from"])
        target = bridge["to"]
        end = layout.space(*target) if isinstance(target, list) else \
            polar(layout.cx, layout.cy, CENTRE - 6, layout.angle(*bridge["from"]))
        svg.line(None, start, end, class_="bridge", data_bridge=f"{bridge['from'][0]}.{bridge['from'][1]}")
    for circle, count in enumerate(layout.circles):
        for index in range(count):
            name = f"{circle}.{index}"
            x, y = layout.space(circle, index)
            group = svg.group(None, class_=classes("space", "bridge-foot" if name in feet else None, *marks.get(name, [])),
                              data_space=name)
            radius = layout.spot_radius(circle)
            svg.circle(group, x, y, radius, class_="spot")
            for number, colour in enumerate(entry_colours.get(name, [])):  # players may share an entry
                svg.circle(group, x, y, (radius - 3) / (number + 1), fill=PLAYER_COLOURS[colour], fill_opacity=0.35,
                           class_="entry", data_entry=colour)
            draw_marks(svg, group, x, y, radius + 3.5, marks.get(name, []))
            svg.tooltip(group, name)


def draw_centre(svg: Svg, layout: Layout, entered: list[str], marks: list[str]) -> None:
    group = svg.group(None, class_=classes("space", "centre", *marks), data_space="centre")
    svg.circle(group, layout.cx, layout.cy, CENTRE, class_="centre-disc")
    points = layout.board["centre_points"]
    for slot, value in enumerate(points):
        x, y = polar(layout.cx, layout.cy, CENTRE * 0.55, -math.pi / 2 + 2 * math.pi * slot / len(points))
        svg.circle(group, x, y, 12, class_="slot", data_slot=slot)
        if slot < len(entered):
            svg.circle(group, x, y, 10, fill=PLAYER_COLOURS[entered[slot]], class_="pawn", data_player=entered[slot])
        svg.text(group, x, y, str(value), class_="points")
    draw_marks(svg, group, layout.cx, layout.cy, CENTRE + 3, marks)
    svg.tooltip(group, "centre")


def draw_homes(svg: Svg, layout: Layout, homes: Homes, marks: dict[str, list[str]]) -> None:
    for colour, (entry, shift) in homes.items():
        for distance in range(1, layout.board["home_length"] + 1):
            x, y = layout.home(entry, distance, shift)
            name = f"h{distance}"
            group = svg.group(None, class_=classes("space", "home", *marks.get(f"{colour}:{name}", [])),
                              data_space=name, data_player=colour)
            svg.rect(group, x - 11, y - 11, 22, 22, rx=3, fill=PLAYER_COLOURS[colour])
            draw_marks(svg, group, x, y, 15, marks.get(f"{colour}:{name}", []))
            svg.tooltip(group, f"{colour} {name}")


def draw_units(svg: Svg, layout: Layout, scene: Scene, homes: Homes, movable: set[str]) -> None:
    to_move = scene.state.get("to_move")
    for player, locations in scene.state["pawns"].items():
        for location, count in sorted(Counter(locations).items()):
            position = where(layout, homes, location, player)
            if position is None or location == "centre":
                continue
            for pawn in range(count if location.startswith("h") else 1):
                legal = player == to_move and location in movable
                pawns = 1 if location.startswith("h") else count
                group = svg.group(None, class_=classes("unit", "double" if pawns == 2 else None, "legal" if legal else None),
                                  data_unit=location, data_player=player, data_pawns=pawns)
                svg.circle(group, *position, 9.5, fill=PLAYER_COLOURS[player], class_="pawn")
                if legal:
                    svg.circle(group, *position, 13, class_="legal-ring")
                if pawns == 2:
                    svg.text(group, *position, "2", font_size=11, font_weight="bold", fill=INK_ON.get(player, "#fff"))
                svg.tooltip(group, f"{player} {'double' if pawns == 2 else 'pawn'} at {location}")


def draw_dice(svg: Svg, dice: list[int] | None, rolled: bool) -> None:
    pips = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
            5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
    for number, die in enumerate(dice or []):
        x, y = MARGIN + number * 40, MARGIN
        group = svg.group(None, class_=classes("die", "last" if rolled else None), data_die=die)
        svg.rect(group, x, y, 32, 32, rx=5)
        for dx, dy in pips.get(die, []):
            svg.circle(group, x + 16 + dx * 8, y + 16 + dy * 8, 3, fill="#111")
        svg.tooltip(group, f"die {die}")


def effect_marks(scene: Scene, to_move: str | None) -> tuple[dict[str, list[str]], list[tuple[str, str, str]]]:
    """Marks by location key (`0.5`, `centre`, `red:h2`) and the trails (from, to, player) of the last die moves."""
    marks: dict[str, list[str]] = {}
    trails: list[tuple[str, str, str]] = []
    effects = scene.effects or {}
    player: str = effects.get("player") or to_move or ""
    for move in effects.get("moves", []):
        start = f"{player}:{move['from']}" if move["from"].startswith("h") else move["from"]
        marks.setdefault(start, []).append("from")
        marks.setdefault(move["to"], []).append("captured" if move["captured"] else "last")
        trails.append((move["from"], move["to"], player))
    return marks, trails


def movable_units(legal: list[str] | None) -> set[str]:
    """The locations a legal turn's first die move starts from (`D` and the die stripped)."""
    starts = set()
    for move in legal or []:
        first = move.split(": ")[-1].split(" ")[0]
        for sign in "+^":
            if sign in first:
                starts.add(first.split(sign)[0].lstrip("D"))
    return starts


#: The playground's hint for this game, and its clicks: the JavaScript of `click(element)`, which turns a
#: click on an element the picture names (`data-...`) into a move (templates/play.html).
PLAY_HINT = "Roll, then click one of your units and choose a die."
PLAY_CLICKS = """\
function click(element) {
  const state = current().state;
  const unit = element.dataset.unit;
  if (!unit) return;
  if (!state.dice) { play("roll"); return; }
  if (element.dataset.player !== state.to_move) { say(`that ${element.dataset.player} unit is not ${state.to_move}'s`, true); return; }
  const firsts = new Set(view.legal.map((m) => m.split(": ").pop().split(" ")[0]));
  const moves = [...firsts].filter((m) => m.replace(/^D/, "").split(/[+^]/)[0] === unit).sort();
  if (moves.length === 0) { play(`${unit}+${state.dice[0]}`); return; }
  select(element, unit);
  const describe = (m) => `${m.startsWith("D") ? "double " : ""}${m.includes("^") ? "cross, " : ""}die ${m.split(/[+^]/)[1]}`;
  offer(`Move ${unit}: choose a die`, moves.map((m) => [`${describe(m)} (${m})`, m]));
}
"""

#: The README's picture (see `gallery`): setup, seed, seed of the moves' choice, least plies, and what the
#: last move must have done.
GALLERY: Gallery = ({"options": {"players": 4}}, 7, 3, 40, lambda e: any(m["captured"] for m in e["moves"]))


def draw(scene: Scene) -> Svg:
    board = board_description(scene.state, scene.info)
    homes = seated(scene, board)
    bottom = homes.get(scene.viewer or "", next(iter(homes.values())))[0]
    layout = Layout(board, bottom)
    svg = Svg(layout.size, layout.size + CAPTION, game="hypnosia", title="Hypnosia: " + caption(scene.outcome),
              style=STYLE)
    marks, trails = effect_marks(scene, scene.state.get("to_move"))
    draw_board(svg, layout, marks, homes)
    draw_centre(svg, layout, scene.state["centre"], marks.get("centre", []))
    draw_homes(svg, layout, homes, marks)
    for start, end, player in trails:
        a, b = where(layout, homes, start, player), where(layout, homes, end, player)
        if a and b:
            svg.line(None, a, b, class_="trail")
    draw_units(svg, layout, scene, homes, movable_units(scene.legal))
    draw_dice(svg, scene.state["dice"], bool((scene.effects or {}).get("roll")))
    lines = [f"{title_of(colour)}: captured {scene.state['captures'][colour]}, lost "
             f"{scene.state['pawns'][colour].count('captured')}" for colour in homes]
    for number, line in enumerate(lines):
        svg.text(None, layout.size - MARGIN, MARGIN + 8 + 15 * number, line, class_="label", text_anchor="end")
    svg.text(None, layout.size / 2, layout.size + CAPTION / 2 - 8, caption(scene.outcome), class_="caption")
    return svg
