"""The one way pictures build SVG: a thin layer over the standard library's ElementTree.

ElementTree escapes every text and attribute, writes attributes in the order given (so a picture is the
same bytes every time) and needs nothing installed, which keeps the embedding API's dependencies as they
are. Attribute names are written as keywords: a trailing underscore is dropped (`class_`) and other
underscores become hyphens (`data_cell`, `stroke_width`); a value of None or False leaves the attribute
out, and numbers are written with at most two decimals."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any, Iterable

__all__ = ["INK_ON", "PLAYER_COLOURS", "Svg", "classes", "number", "polar", "style_text"]

NAMESPACE = "http://www.w3.org/2000/svg"

#: The colour of every player of every game, by the player's name.
PLAYER_COLOURS = {
    "black": "#222222", "white": "#f6f3ea",
    "red": "#d9342b", "yellow": "#f2c511", "green": "#2e9e4f", "blue": "#2f6fd0", "purple": "#8e4cc4",
    "orange": "#f08a24",
    "caesar": "#b8322a", "pompey": "#2d5fb0",
}
#: A colour that reads on top of each player's colour.
INK_ON = {"white": "#222222", "yellow": "#222222"}

#: Marks every picture shares: the last move (`last`), what it captured, released or closed, and the
#: legal moves (`legal`). Each game adds its own rules after these.
BASE_STYLE = """
text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; }
.caption { font-size: 15px; fill: #222; }
.label { font-size: 11px; fill: #555; }
.mark-last { fill: none; stroke: #ff9f1c; stroke-width: 3.5; }
.mark-captured { fill: none; stroke: #d62828; stroke-width: 3; stroke-dasharray: 4 2; }
.mark-released { fill: none; stroke: #1b998b; stroke-width: 3; stroke-dasharray: 4 2; }
.mark-closed { fill: none; stroke: #ff9f1c; stroke-width: 3; stroke-dasharray: 6 3; }
.mark-from { fill: none; stroke: #ff9f1c; stroke-width: 2; stroke-dasharray: 3 3; }
.mark-legal { fill: #2a9d5c; fill-opacity: .75; stroke: none; pointer-events: none; }
.legal .outline { stroke: #2a9d5c; stroke-width: 2.5; }
.trail { fill: none; stroke: #ff9f1c; stroke-width: 2.5; stroke-dasharray: 5 3; pointer-events: none; }
[data-cell], [data-space], [data-unit], [data-piece], [data-border], [data-token], [data-province] { cursor: pointer; }
"""


def number(value: float | int) -> str:
    """A coordinate as text: at most two decimals, no trailing zeros, never `-0`."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def attributes(values: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        out[name] = number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
    return out


def classes(*names: str | None) -> str | None:
    """A class attribute of the names given (None and empty names left out)."""
    text = " ".join(name for name in names if name)
    return text or None


def polar(cx: float, cy: float, radius: float, angle: float) -> tuple[float, float]:
    """The point at `radius` from (cx, cy) at `angle` radians (screen coordinates: y grows down)."""
    return cx + radius * math.cos(angle), cy + radius * math.sin(angle)


def style_text(style: str) -> str:
    """The text of a picture's style element: the shared style and the game's."""
    return BASE_STYLE + style


class Svg:
    """One SVG document: a viewBox of `width` × `height`, a title, the shared style and the picture's
    own. A game's board (`kind` "board", the marks of `BASE_STYLE`) names its `game`; other kinds
    (a report's "chart") bring their whole style, or none (a page that holds them has it once)."""

    def __init__(self, width: float, height: float, *, title: str, game: str | None = None, style: str = "",
                 kind: str = "board") -> None:
        self.width, self.height = width, height
        self.root = ET.Element("svg", attributes({
            "xmlns": NAMESPACE, "viewBox": f"0 0 {number(width)} {number(height)}",
            "class": f"referee-{kind}", "data_game": game,
        }))
        ET.SubElement(self.root, "title").text = title
        if style := style_text(style) if kind == "board" else style:
            ET.SubElement(self.root, "style").text = style

    def add(self, parent: ET.Element | None, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
        element = ET.SubElement(self.root if parent is None else parent, tag, attributes(attrs))
        if text is not None:
            element.text = text
        return element

    def group(self, parent: ET.Element | None = None, **attrs: Any) -> ET.Element:
        return self.add(parent, "g", **attrs)

    def circle(self, parent: ET.Element | None, x: float, y: float, r: float, **attrs: Any) -> ET.Element:
        return self.add(parent, "circle", cx=x, cy=y, r=r, **attrs)

    def rect(self, parent: ET.Element | None, x: float, y: float, w: float, h: float, **attrs: Any) -> ET.Element:
        return self.add(parent, "rect", x=x, y=y, width=w, height=h, **attrs)

    def line(self, parent: ET.Element | None, a: tuple[float, float], b: tuple[float, float], **attrs: Any) -> ET.Element:
        return self.add(parent, "line", x1=a[0], y1=a[1], x2=b[0], y2=b[1], **attrs)

    def polygon(self, parent: ET.Element | None, points: Iterable[tuple[float, float]], **attrs: Any) -> ET.Element:
        text = " ".join(f"{number(x)},{number(y)}" for x, y in points)
        return self.add(parent, "polygon", points=text, **attrs)

    def path(self, parent: ET.Element | None, d: str, **attrs: Any) -> ET.Element:
        return self.add(parent, "path", d=d, **attrs)

    def text(self, parent: ET.Element | None, x: float, y: float, content: str, **attrs: Any) -> ET.Element:
        attrs.setdefault("text_anchor", "middle")
        attrs.setdefault("dominant_baseline", "central")
        return self.add(parent, "text", content, x=x, y=y, **attrs)

    def tooltip(self, parent: ET.Element, content: str) -> ET.Element:
        return self.add(parent, "title", content)

    def element(self, size: int | None = None) -> ET.Element:
        """The `svg` element, to write or to put in a page; `size` is the width in pixels (the height
        keeps the picture's proportions), by default the drawing's own width."""
        width = round(self.width) if size is None else size
        self.root.set("width", str(width))
        self.root.set("height", str(round(width * self.height / self.width)))
        return self.root

    def document(self, size: int | None = None) -> str:
        """The SVG text (`size` as in `element`)."""
        return ET.tostring(self.element(size), encoding="unicode")
