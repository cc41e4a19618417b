"""The report of an archive, `referee validate RECORDS --report FILE.html`: one self-contained HTML page
(inline CSS and SVG, no script, no external asset) for people to look at — records by verdict and by
refusal rule, claims agreeing and disagreeing, game lengths, wins by player, score distributions, the
slowest and the refused records with their reasons.

It is drawn from the tally the engine counts as it replays (`_core.replay_records(..., tally=True)`,
one a chunk, merged natively with `_core.Tally.merge`, read as Python values once), never from the results themselves: it takes the same memory for ten
records or ten million. Every figure carries its numbers (`data-count` on the tables' cells; the charts'
`data-label` and `data-value`, see `referee.pictures.charts`), so a test reads them back and compares
them with the results file. What was measured rather than counted (times) sits in elements marked
`data-measured`: two reports of one archive differ only there."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, Mapping

from referee import _core
from referee.pictures import charts, info_of
from referee.pictures.svg import PLAYER_COLOURS

__all__ = ["page"]

Tally = dict[str, Any]

STYLE = """
body { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; margin: 2em auto; max-width: 1180px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.number { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; }
"""
#: Records by verdict and by claim verdict, in the order the page shows them.
VERDICTS = [("legal", "legal"), ("illegal", "illegal"), ("errors", "not records")]
CLAIMS = [("agrees", "agree"), ("disagrees", "disagree"), ("absent", "absent")]


def add(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    element = ET.SubElement(parent, tag, {key.rstrip("_").replace("_", "-"): str(value)
                                          for key, value in attrs.items() if value is not None})
    if text is not None:
        element.text = text
    return element


def table(parent: ET.Element, headers: list[str], rows: list[list[tuple[str, Any]]], **attrs: Any) -> ET.Element:
    """A table; each cell is `(text, count)`, the count (a number, or None) written as `data-count`."""
    element = add(parent, "table", **attrs)
    head = add(add(element, "thead"), "tr")
    for header in headers:
        add(head, "th", header)
    body = add(element, "tbody")
    for row in rows:
        line = add(body, "tr")
        for text, count in row:
            add(line, "td", text, data_count=count, class_="number" if isinstance(count, int) else None)
    return element


def counted(value: int) -> tuple[str, int]:
    return f"{value:,}", value


def figures(parent: ET.Element, *drawn: Any) -> None:
    box = add(parent, "div", class_="charts")
    for svg in drawn:
        box.append(svg.element())


def by_count(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def summary(body: ET.Element, counts: Mapping[str, int], tally: Tally) -> None:
    section = add(body, "section", id="summary")
    add(section, "h2", "Records")
    rows = [[(label, None), counted(counts[key])] for key, label in VERDICTS]
    table(section, ["records", "count"], [[("all", None), counted(counts["records"])], *rows], id="verdicts")
    claims = [[(f"claims that {label}" if key != "absent" else "no claim", None), counted(counts[key])]
              for key, label in CLAIMS]
    table(section, ["claims", "count"], claims, id="claims")
    figures(section,
            charts.bars("Records by verdict", [(label, counts[key]) for key, label in VERDICTS]),
            charts.bars("Claims", [(label, counts[key]) for key, label in CLAIMS]))
    add(section, "h2", "Refusals")
    figures(section,
            charts.bars("Illegal records by the rule of their first illegal ply", by_count(tally["refusals"])),
            charts.bars("Lines that are no record, by error", by_count(tally["errors"])),
            charts.bars("Claims that disagree, by reason", by_count(tally["claim_reasons"])))


def game_section(body: ET.Element, name: str, tally: Tally) -> None:
    title = info_of(name)["title"]
    section = add(body, "section", id=f"game-{name}", data_game=name)
    add(section, "h2", title)
    keys = ["records", "legal", "illegal", "errors", "finished"]
    table(section, ["records", "legal", "illegal", "not records", "finished games"],
          [[counted(tally[key]) for key in keys]], class_="game-counts")
    players = [player for player in info_of(name)["players"] if player in tally["scores"] or player in tally["winners"]]
    winners = [(player, tally["winners"].get(player, 0)) for player in players]
    winners += [(label, count) for label, count in tally["winners"].items() if label not in players]
    drawn = [
        charts.histogram(f"{title}: game lengths", tally["plies"], "plies"),
        charts.bars(f"{title}: wins of finished games", winners, PLAYER_COLOURS),
        charts.bars(f"{title}: decided by", by_count(tally["decided_by"])),
    ]
    drawn += [charts.histogram(f"{title}: final scores of {player}", tally["scores"][player], "points",
                               colour=PLAYER_COLOURS.get(player)) for player in players if player in tally["scores"]]
    figures(section, *drawn)


def record_cells(noted: Mapping[str, Any]) -> list[tuple[str, Any]]:
    identity = noted.get("id")
    if not isinstance(identity, str):
        identity = "" if identity is None else json.dumps(identity)
    return [counted(noted["record"]), (identity, None), (noted.get("game", ""), None)]


def listing(body: ET.Element, section_id: str, title: str, total: int, noted: list[dict[str, Any]],
            headers: list[str], cells: Any, **attrs: Any) -> None:
    section = add(body, "section", id=section_id, **attrs)
    add(section, "h2", title)
    if total > len(noted):
        add(section, "p", f"The first {len(noted):,} of {total:,}.", class_="note")
    table(section, ["record", "id", "game", *headers], [record_cells(entry) + cells(entry) for entry in noted])


def refusal_cells(entry: Mapping[str, Any]) -> list[tuple[str, Any]]:
    if "error" in entry:
        return [("", None), ("", None), (entry["error"]["code"], None), (entry["error"]["detail"], None)]
    reason = entry["reason"]
    code = reason["code"] + (f" ({reason['rule']})" if "rule" in reason else "")
    return [counted(entry["ply"]), (entry["move"], None), (code, None), (reason["detail"], None)]


def page(counts: Mapping[str, int], tally: Tally, *, source: str, seconds: float) -> str:
    """The report's HTML: `counts` as `replay_records` gives them (summed over the chunks), the merged
    `tally`, the archive's name and the seconds the run took."""
    html = ET.Element("html", lang="en")
    head = add(html, "head")
    add(head, "meta", charset="utf-8")
    add(head, "title", f"Referee: report of {source}")
    add(head, "style", STYLE + charts.STYLE)
    body = add(html, "body")
    add(body, "h1", f"Report of {source}")
    rate = counts["records"] / seconds if seconds > 0 else 0
    add(body, "p", f"{counts['records']:,} records judged in {seconds:.1f} s ({rate:,.0f} records/s).",
        class_="note", data_measured="")
    summary(body, counts, tally)
    for name in _core.games():
        if name in tally["games"]:
            game_section(body, name, tally["games"][name])
    listing(body, "disputed", "Claims that disagree", counts["disagrees"], tally["disputed"],
            ["reason", "detail"],
            lambda entry: [(entry["claim_reason"]["code"], None), (entry["claim_reason"]["detail"], None)])
    listing(body, "refused", "Refused records", counts["illegal"] + counts["errors"], tally["refused"],
            ["ply", "move", "reason", "detail"], refusal_cells)
    listing(body, "slowest", "The slowest records", len(tally["slowest"]), tally["slowest"],
            ["plies", "µs"], lambda entry: [counted(entry.get("plies", 0)), (f"{entry['micros']:,}", None)],
            data_measured="")
    return "<!DOCTYPE html>\n" + ET.tostring(html, encoding="unicode", method="html") + "\n"

