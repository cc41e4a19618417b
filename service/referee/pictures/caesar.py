"""Caesar!: a schematic of the 18 provinces of `info.board` (placed roughly as on the map, west to east),
each border space between its two provinces with its icon, the tokens on them with the number facing each
province, control markers (a flipped one hollow), Italia's dashed space, the bonus tokens still on the
board, and both hands (a viewer's picture shows the other hand face down, as the engine's view does).
Provinces are `data-province` (Italia's dashed space `data-space="IT*"`), border spaces `data-border`,
hand tokens `data-token` with `data-player`, bonus tokens `data-bonus`. Marks: the border played, the
provinces it closed, the markers it placed, a Might's target, the tokens drawn (in a hand the picture
shows), and the legal borders and tokens."""

from __future__ import annotations

import math
from typing import Any
from xml.etree.ElementTree import Element

from referee.pictures.scene import Gallery, Scene, caption, title_of
from referee.pictures.svg import PLAYER_COLOURS, Svg, classes

__all__ = ["STYLE", "draw"]

WIDTH, MAP_HEIGHT, PANEL, CAPTION = 1000.0, 600.0, 110.0, 30.0
PROVINCE = 36.0
#: Where each province is drawn on the schematic: a picture's choice, not a rule (the map's adjacency
#: and icons come from the engine's `info.board`).
PLACES = {
    "HU": (80, 330), "HC": (170, 200), "GA": (310, 90), "MT": (110, 480), "SD": (310, 300), "NU": (290, 500),
    "GC": (480, 80), "IT": (470, 255), "SC": (440, 420), "AF": (470, 550), "DM": (640, 110), "MD": (760, 210),
    "AC": (660, 360), "CY": (640, 530), "CR": (800, 420), "AS": (900, 230), "AG": (850, 540), "SY": (950, 380),
}
ICONS = {  # drawn in a box of about 16 × 16 around (0, 0)
    "sword": "M-6,6 L5,-5 M3,-7 L7,-3 M-4,2 L-1,5 M-7,7 L-5,5",
    "shield": "M0,-7 L6,-5 L6,0 C6,4 3,6 0,8 C-3,6 -6,4 -6,0 L-6,-5 Z",
    "ship": "M-7,2 L7,2 L4,6 L-4,6 Z M0,2 L0,-7 L5,0 L0,0",
    "laurel": "M-4,6 C-8,2 -8,-3 -4,-7 M4,6 C8,2 8,-3 4,-7 M-6,1 L-3,0 M-6,-3 L-3,-3 M6,1 L3,0 M6,-3 L3,-3",
}
ICON_OF_CODE = {"L": "laurel", "S": "sword", "D": "shield", "N": "ship"}
BONUS_LETTERS = {"senate": "S", "tactics": "T", "wealth": "W", "might": "M"}
STYLE = """
.link { stroke: #b8ab8c; stroke-width: 2; }
.province-disc { fill: #f3ead2; stroke: #7a6a48; stroke-width: 1.5; }
.province-name { font-size: 9px; fill: #5a4d33; }
.province-code { font-size: 14px; font-weight: bold; fill: #3d3422; }
.dashed-space { fill: #f3ead2; stroke: #7a6a48; stroke-width: 1.5; stroke-dasharray: 4 3; }
.slot { fill: #fffaf0; stroke: #7a6a48; stroke-width: 1.2; }
.icon { fill: none; stroke: #3d3422; stroke-width: 1.5; stroke-linejoin: round; }
.token-body { stroke: #111; stroke-width: 1.2; }
.token-number { font-size: 12px; font-weight: bold; fill: #fff; }
.flipped .token-body { fill: #9a9a9a; }
.flipped .token-number { text-decoration: line-through; }
.bonus rect { fill: #fff4c2; stroke: #8a6d00; stroke-width: 1; }
.bonus text { font-size: 11px; font-weight: bold; fill: #6d5600; }
.control { stroke: #111; stroke-width: 1.5; }
.control.flipped-marker { fill: #fff !important; stroke-width: 3; }
.hand-token .token-body { stroke-width: 1.5; }
.hidden .token-body { fill: #8c8374; }
.legal .slot, .legal .token-body { stroke: #0b7a55; stroke-width: 3; }
.mark-marker { fill: none; stroke: #7b2cbf; stroke-width: 3; }
.mark-might { fill: none; stroke: #d62828; stroke-width: 3; }
"""


def icon(svg: Svg, parent: Element, name: str, x: float, y: float, scale: float = 1.0, **attrs: Any) -> None:
    svg.path(parent, ICONS[name], class_="icon", transform=f"translate({x:g} {y:g}) scale({scale:g})", **attrs)


def border_ids(board: dict[str, Any]) -> dict[frozenset[str], str]:
    """Each border's id by its two provinces (a move may name them in either order)."""
    return {frozenset(border["provinces"]): border["id"] for border in board["borders"]}


def midpoint(border: dict[str, Any]) -> tuple[float, float]:
    (x1, y1), (x2, y2) = (PLACES[p] for p in border["provinces"])
    return (x1 + x2) / 2, (y1 + y2) / 2


def toward(origin: tuple[float, float], province: str) -> tuple[float, float]:
    """Where a token's number facing `province` is written: on the token's half toward it."""
    tx, ty = PLACES[province]
    length = math.hypot(tx - origin[0], ty - origin[1]) or 1.0
    return origin[0] + (tx - origin[0]) / length * 11, origin[1] + (ty - origin[1]) / length * 5


def draw_border(svg: Svg, border: dict[str, Any], placed: dict[str, Any] | None, marks: list[str]) -> None:
    x, y = midpoint(border)
    group = svg.group(None, class_=classes("border", *marks, "flipped" if placed and placed["flipped"] else None),
                      data_border=border["id"], data_icon=border["icon"])
    svg.rect(group, x - 22, y - 13, 44, 26, rx=6, class_="slot")
    if placed is None:
        icon(svg, group, border["icon"], x, y)
    else:
        svg.rect(group, x - 20, y - 11, 40, 22, rx=5, fill=PLAYER_COLOURS[placed["player"]], class_="token-body",
                 data_token_on=placed["token"], data_player=placed["player"])
        for province, value in placed["faces"].items():
            svg.text(group, *toward((x, y), province), str(value), class_="token-number", data_faces=province)
        if placed["marker"]:
            svg.circle(group, x, y - 16, 6, fill=PLAYER_COLOURS[placed["marker"]], class_="control",
                       data_marker=placed["marker"])
    for mark in marks:
        if mark != "legal":
            svg.rect(group, x - 25, y - 16, 50, 32, rx=8, class_=f"mark-{mark}")
    svg.tooltip(group, border_tip(border, placed))


def border_tip(border: dict[str, Any], placed: dict[str, Any] | None) -> str:
    text = f"{border['id']} ({border['icon']})"
    if placed:
        faces = ", ".join(f"{value} toward {province}" for province, value in placed["faces"].items())
        text += f": {placed['player']} {placed['token']}, {faces}" + (" (flipped)" if placed["flipped"] else "")
    return text


def draw_province(svg: Svg, province: dict[str, Any], seen: dict[str, Any], marks: list[str]) -> None:
    code = province["code"]
    x, y = PLACES[code]
    group = svg.group(None, class_=classes("province", *marks), data_province=code)
    svg.circle(group, x, y, PROVINCE, class_="province-disc")
    control = seen["control"]
    if control:
        svg.circle(group, x, y, PROVINCE - 5, fill=PLAYER_COLOURS[control], fill_opacity=0.25, stroke="none")
        svg.circle(group, x, y + 14, 7, fill=PLAYER_COLOURS[control],
                   class_=classes("control", "flipped-marker" if seen["flipped"] else None), data_marker=control)
    svg.text(group, x, y - 5, code, class_="province-code")
    svg.text(group, x, y + 26, province["name"], class_="province-name")
    for mark in marks:
        if mark != "legal":
            svg.circle(group, x, y, PROVINCE + 4, class_=f"mark-{mark}")
    svg.tooltip(group, f"{province['name']} ({code})" + (f": {control}" + (" (flipped)" if seen["flipped"] else "")
                                                          if control else ""))
    if seen["bonus"]:
        bonus = svg.group(None, class_="bonus", data_bonus=seen["bonus"], data_on=code)
        svg.rect(bonus, x + 20, y - 36, 18, 18, rx=4)
        svg.text(bonus, x + 29, y - 27, BONUS_LETTERS[seen["bonus"]])
        svg.tooltip(bonus, f"{seen['bonus']} bonus on {code}")


def draw_dashed(svg: Svg, controller: str | None, marks: list[str]) -> None:
    x, y = PLACES["IT"][0] - 52, PLACES["IT"][1] - 30
    group = svg.group(None, class_=classes("space", *marks), data_space="IT*")
    svg.circle(group, x, y, 12, class_="dashed-space")
    if controller:
        svg.circle(group, x, y, 7, fill=PLAYER_COLOURS[controller], class_="control", data_marker=controller)
    for mark in marks:
        svg.circle(group, x, y, 15, class_=f"mark-{mark}")
    svg.tooltip(group, "Italia's dashed space")


def draw_token(svg: Svg, parent: Element, x: float, y: float, player: str, token: str | None, marks: list[str]) -> None:
    """A hand token (`token` None: face down, as the viewer's picture shows the other hand)."""
    group = svg.group(parent, class_=classes("hand-token", "hidden" if token is None else None, *marks),
                      data_token=token, data_player=player)
    svg.rect(group, x, y, 54, 34, rx=6, fill=PLAYER_COLOURS[player], class_="token-body")
    if token is None:
        svg.text(group, x + 27, y + 17, "?", class_="token-number")
        return
    svg.rect(group, x + 4, y + 7, 20, 20, rx=4, fill="#fffaf0", stroke="none")
    icon(svg, group, ICON_OF_CODE[token[0]], x + 14, y + 17, 0.9)
    svg.text(group, x + 39, y + 17, f"{token[1]}|{token[2]}", class_="token-number")
    if "drawn" in marks or "last" in marks:
        svg.rect(group, x - 3, y - 3, 60, 40, rx=8, class_="mark-last")
    svg.tooltip(group, f"{player}'s {token}")


def numbers_of(state: dict[str, Any], key: str, player: str) -> int:
    """A player's hand or bag size, from a full state (the tokens) or a view (the sizes)."""
    sizes = state.get(f"{key}_sizes")
    return sizes[player] if sizes else len(state[f"{key}s"][player])


def draw_hands(svg: Svg, scene: Scene, marks: dict[str, list[str]], control_markers: int) -> None:
    state = scene.state
    for number, player in enumerate(scene.info["players"]):
        x, y = 30 + number * (WIDTH / 2), MAP_HEIGHT + 8
        group = svg.group(None, class_="hand", data_hand=player)
        turn = " (to move)" if state["to_move"] == player else ""
        svg.text(group, x, y + 8, f"{title_of(player)}{turn}", class_="caption", text_anchor="start",
                 fill=PLAYER_COLOURS[player], font_weight="bold")
        facts = (f"hand limit {state['hand_limits'][player]} · bag {numbers_of(state, 'bag', player)} · "
                 f"Senate {state['senate'][player]} · markers {state['markers'][player]}/{control_markers}")
        svg.text(group, x, y + 27, facts, class_="label", text_anchor="start")
        tokens = state["hands"].get(player)
        shown = tokens if tokens is not None else [None] * numbers_of(state, "hand", player)
        for slot, token in enumerate(shown):
            token_marks = marks.get(f"{player}:{token}", []) if token else []
            draw_token(svg, group, x + slot * 62, y + 40, player, token, token_marks)


def board_marks(scene: Scene, ids: dict[frozenset[str], str]) -> dict[str, list[str]]:
    """Marks by border id, province code, `IT*` and `player:token`."""
    marks: dict[str, list[str]] = {}
    effects = scene.effects or {}

    def mark(key: str, name: str) -> None:
        marks.setdefault(key, []).append(name)

    if effects:
        mark(effects["border"], "last")
        for closure in effects["closures"]:
            mark(closure["province"], "closed")
            for space in closure["markers"]:
                if space != closure["province"]:
                    mark(space, "marker")
            choice = closure.get("choice") or ""
            if choice.startswith("M:"):
                mark(choice[2:], "might")
        hand = scene.state["hands"].get(effects["player"]) or []
        for token in effects["drawn"]:
            if token in hand:  # only in a hand the picture shows
                mark(f"{effects['player']}:{token}", "drawn")
    for move in scene.legal or []:
        token, _, rest = move.partition("@")
        first, _, second = rest.split(" ")[0].partition("-")
        for key in (ids[frozenset((first, second))], f"{scene.state['to_move']}:{token}"):
            if "legal" not in marks.get(key, []):
                mark(key, "legal")
    return marks


#: The playground's hint for this game, and its clicks: the JavaScript of `click(element)`, which turns a
#: click on an element the picture names (`data-...`) into a move (templates/play.html).
PLAY_HINT = "Click a token of your hand, then a border space, then which province gets the larger number."
PLAY_CLICKS = """\
function click(element) {
  const state = current().state;
  if (element.dataset.token) {
    if (element.dataset.player !== state.to_move) { say(`${element.dataset.token} is not in ${state.to_move}'s hand`, true); return; }
    select(element, element.dataset.token);
    $("hint").textContent = `${element.dataset.token} chosen: click a border space`;
    return;
  }
  if (!element.dataset.border) return;
  if (view.selection === null) { say("choose a token of your hand first", true); return; }
  const token = view.selection;
  const [a, b] = element.dataset.border.split("-");
  const big = Math.max(Number(token[1]), Number(token[2]));
  select(element, token);
  $("choices").replaceChildren(...[[a, b], [b, a]].map(([toward, other]) => {
    const button = document.createElement("button");
    button.textContent = `${big} toward ${toward}`;
    button.dataset.move = `${token}@${toward}-${other}`;
    button.onclick = () => placeToken(`${token}@${toward}-${other}`);
    return button;
  }));
  $("hint").textContent = `${token} on ${element.dataset.border}: which province gets the larger number?`;
}

function placeToken(prefix) {
  const completions = view.legal.filter((m) => m === prefix || m.startsWith(prefix + " "));
  if (completions.length === 1) { play(completions[0]); return; }
  if (completions.length === 0) { play(prefix); return; }
  offer(`${prefix}: choose the bonus`, completions.map((m) => [m.slice(prefix.length).trim() || "no choice", m]));
}
"""

#: The README's picture (see `gallery`): setup, seed, seed of the moves' choice, least plies, and what the
#: last move must have done.
GALLERY: Gallery = ({}, 12, 4, 12, lambda e: len(e["closures"]) > 0)


def draw(scene: Scene) -> Svg:
    board, state = scene.info["board"], scene.state
    svg = Svg(WIDTH, MAP_HEIGHT + PANEL + CAPTION, game="caesar", title="Caesar!: " + caption(scene.outcome),
              style=STYLE)
    marks = board_marks(scene, border_ids(board))
    for border in board["borders"]:
        svg.line(None, *(PLACES[p] for p in border["provinces"]), class_="link")
    for province in board["provinces"]:
        draw_province(svg, province, state["provinces"][province["code"]], marks.get(province["code"], []))
    draw_dashed(svg, state["italia_dashed"], marks.get("IT*", []))
    for border in board["borders"]:
        draw_border(svg, border, state["borders"][border["id"]], marks.get(border["id"], []))
    draw_hands(svg, scene, marks, scene.info["control_markers"])
    svg.text(None, WIDTH / 2, MAP_HEIGHT + PANEL + CAPTION / 2 - 4, caption(scene.outcome), class_="caption")
    return svg
