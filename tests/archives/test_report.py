"""The report of an archive (`referee validate --report FILE.html`): every figure it shows is the one the
results file gives, counted here from that file (locally over many chunks, and on a Dask cluster); the
example archive and report of docs/archives.md are what the code makes of them; its sample records are
lines of that archive."""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import example_archive
import referee
from helpers.claims import claimed_records
from helpers.records import random_records
from referee import cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "archive"
VOID = {"meta", "br", "hr", "img", "input", "link"}


class Tree(HTMLParser):
    """An HTML page as an ElementTree (the report is written by ElementTree's HTML writer)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = ET.TreeBuilder()

    def handle_starttag(self, tag, attrs) -> None:
        self.builder.start(tag, {name: value or "" for name, value in attrs})
        if tag in VOID:
            self.builder.end(tag)

    def handle_endtag(self, tag) -> None:
        if tag not in VOID:
            self.builder.end(tag)

    def handle_data(self, data) -> None:
        self.builder.data(data)


def html_tree(text: str) -> ET.Element:
    parser = Tree()
    parser.feed(text.split("\n", 1)[1])  # after the doctype
    parser.close()
    return parser.builder.close()


def charts(page: ET.Element) -> dict[str, dict[str, int]]:
    """Every chart by its title: its bars' counts by label (a histogram's by `from-to`)."""
    out = {}
    for svg in page.iter("svg"):
        bars = {}
        for bar in svg.iter("g"):
            if "data-value" in bar.attrib:
                key = f"{bar.get('data-from')}-{bar.get('data-to')}" if "data-from" in bar.attrib else bar.get("data-label")
                bars[key] = int(bar.get("data-value"))
        out[svg.find("title").text] = bars
    return out


def cells(table: ET.Element) -> list[list[int | None]]:
    return [[int(td.get("data-count")) if td.get("data-count") else None for td in row.iter("td")]
            for row in table.find("tbody")]


def binned(values: list[int], bins: dict[str, int]) -> dict[str, int]:
    """The counts of `values` in each bin of a histogram (keys `from-to`)."""
    out = {}
    for key in bins:
        low, high = map(int, re.fullmatch(r"(-?\d+)-(-?\d+)", key).groups())
        out[key] = sum(low <= value <= high for value in values)
    return out


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {key: value for key, value in counts.items() if value}


def archive_lines() -> list[str]:
    records = list(claimed_records()[::4]) + random_records(80, seed=5)
    lines = [json.dumps(record) for record in records]
    lines[7:7] = ['{"game": "chess", "moves": []}', "not json", '{"game": "iago", "moves": "e4"}']
    return lines


def assert_report_is_the_results(page: ET.Element, results: list[dict]) -> None:
    records = [r for r in results if "error" not in r]
    legal = [r for r in records if r["legal"]]
    drawn = charts(page)
    verdicts = {"legal": len(legal), "illegal": len(records) - len(legal), "not records": len(results) - len(records)}
    assert drawn["Records by verdict"] == verdicts
    claims = collections.Counter(r["claim"] for r in records)
    assert drawn["Claims"] == {"agree": claims["agrees"], "disagree": claims["disagrees"], "absent": claims["absent"]}
    assert [row[1] for row in cells(page.find(".//table[@id='verdicts']"))] == [len(results), *verdicts.values()]
    assert [row[1] for row in cells(page.find(".//table[@id='claims']"))] == \
        [claims["agrees"], claims["disagrees"], claims["absent"]]
    refusals = collections.Counter(r["reason"]["code"] + ("/" + r["reason"]["rule"] if "rule" in r["reason"] else "")
                                   for r in records if not r["legal"])
    assert drawn["Illegal records by the rule of their first illegal ply"] == refusals
    assert drawn["Lines that are no record, by error"] == collections.Counter(r["error"]["code"] for r in results
                                                                               if "error" in r)
    assert drawn["Claims that disagree, by reason"] == collections.Counter(r["claim_reason"]["code"] for r in records
                                                                            if "claim_reason" in r)
    for name in referee.games():
        section = page.find(f".//section[@data-game='{name}']")
        title = referee.game(name).info()["title"]
        mine = [r for r in results if r.get("game") == name]
        played = [r for r in mine if r.get("legal")]
        finished = [r for r in played if r["outcome"]["status"] == "finished"]
        assert cells(section.find("table")) == [[len(mine), len(played), sum(r.get("legal") is False for r in mine),
                                                 sum("error" in r for r in mine), len(finished)]]
        lengths = drawn[f"{title}: game lengths"]
        assert lengths == binned([r["plies"] for r in played], lengths) and sum(lengths.values()) == len(played)
        wins = collections.Counter(r["outcome"]["winner"] or "none" for r in finished)
        assert nonzero(drawn[f"{title}: wins of finished games"]) == wins
        assert drawn[f"{title}: decided by"] == collections.Counter(r["outcome"]["decided_by"] for r in finished)
        for player in {player for r in finished for player in r["outcome"]["scores"]}:
            scores = drawn[f"{title}: final scores of {player}"]
            values = [r["outcome"]["scores"][player] for r in finished if player in r["outcome"]["scores"]]
            assert scores == binned(values, scores) and sum(scores.values()) == len(values)
    refused = [r["record"] for r in results if "error" in r or not r["legal"]][:20]
    assert [row[0] for row in cells(page.find(".//section[@id='refused']//table"))] == refused
    disputed = [r["record"] for r in records if r["claim"] == "disagrees"][:20]
    assert [row[0] for row in cells(page.find(".//section[@id='disputed']//table"))] == disputed
    slowest = page.find(".//section[@id='slowest']")
    assert "data-measured" in slowest.attrib and len(cells(slowest.find(".//table"))) == min(20, len(results))


def test_every_figure_of_the_report_is_the_results_files(tmp_path) -> None:
    path, out, report = tmp_path / "records.jsonl", tmp_path / "results.jsonl", tmp_path / "report.html"
    path.write_text("\n".join(archive_lines()) + "\n")
    cli.main(["validate", str(path), "-o", str(out), "--report", str(report), "--chunk", "37", "--no-progress"])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(results) > 200
    page = html_tree(report.read_text())
    assert_report_is_the_results(page, results)
    # One page: nothing to fetch (no link, no source, no url() in a style) and nothing to run.
    assert not [element for element in page.iter() if {"href", "src"} & set(element.attrib)]
    assert not list(page.iter("script")) and all("url(" not in (style.text or "") for style in page.iter("style"))


def test_an_empty_archive_has_a_report_of_nothing_and_a_report_that_cannot_be_written_stops_the_run(
        tmp_path, capsys) -> None:
    path, report = tmp_path / "records.jsonl", tmp_path / "report.html"
    path.write_text("\n\n")
    assert cli.main(["validate", str(path), "-o", str(tmp_path / "out.jsonl"), "--report", str(report)]) == 0
    page = html_tree(report.read_text())
    assert [row[1] for row in cells(page.find(".//table[@id='verdicts']"))] == [0, 0, 0, 0]
    assert page.find(".//section[@data-game]") is None
    assert cli.main(["validate", str(path), "--report", str(tmp_path / "nowhere" / "report.html")]) == 2
    assert "nowhere/report.html: no such file" in capsys.readouterr().err


@pytest.mark.slow
def test_a_report_made_on_a_dask_cluster_is_the_local_one(tmp_path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(archive_lines()) + "\n")
    pages = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        for where in ("local", "dask"):
            extra = ["--scheduler", cluster.scheduler_address] if where == "dask" else []
            cli.main(["validate", str(path), "-o", str(tmp_path / f"{where}.jsonl"), "--report",
                      str(tmp_path / f"{where}.html"), "--chunk", "50", "--no-progress", *extra])
            pages[where] = unmeasured((tmp_path / f"{where}.html").read_text())
    assert pages["dask"] == pages["local"]
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def unmeasured(text: str) -> str:
    """A report without what was measured (the elements marked `data-measured`), to compare two runs."""
    page = html_tree(text)
    for parent in page.iter():
        for child in [child for child in parent if "data-measured" in child.attrib]:
            parent.remove(child)
    return ET.tostring(page, encoding="unicode")


def test_the_example_archive_is_what_its_generator_writes() -> None:
    """`python tests/helpers/example_archive.py docs/archive/example.jsonl` regenerates it."""
    assert (DOCS / "example.jsonl").read_text(encoding="utf-8") == example_archive.text()


def test_the_example_report_is_what_referee_validate_writes_of_the_example(tmp_path) -> None:
    """`referee validate docs/archive/example.jsonl -o /dev/null --report docs/archive/report.html` regenerates
    it; only what was measured (times) may differ."""
    report, out = tmp_path / "report.html", tmp_path / "results.jsonl"
    status = cli.main(["validate", str(DOCS / "example.jsonl"), "-o", str(out), "--report", str(report), "--no-progress"])
    assert status == 1  # the example has a refused record and claims that disagree, to show them
    committed = (DOCS / "report.html").read_text(encoding="utf-8")
    assert unmeasured(committed) == unmeasured(report.read_text(encoding="utf-8")), "regenerate the example report"
    assert_report_is_the_results(html_tree(committed), [json.loads(line) for line in out.read_text().splitlines()])


def test_the_documented_samples_are_records_of_the_example_archive_whose_claims_agree() -> None:
    readme = (ROOT / "docs" / "archives.md").read_text(encoding="utf-8")
    section = readme[readme.index("### The record format"):readme.index("### The report")]
    samples = re.search(r"^```jsonl\n(.*?)\n```", section, flags=re.MULTILINE | re.DOTALL).group(1).splitlines()
    assert len(samples) == 4
    lines = set((DOCS / "example.jsonl").read_text(encoding="utf-8").splitlines())
    results = [json.loads(line) for line in referee.replay_records("\n".join(samples).encode()).splitlines()]
    assert {json.loads(sample)["game"] for sample in samples} == set(referee.games())
    for sample, result in zip(samples, results):
        assert sample in lines
        assert result["legal"] and result["claim"] == "agrees", result
    assert "(archive/report.html)" in readme and "(archive/example.jsonl)" in readme
    # The result shown is `referee validate`'s of that record of the example, byte for byte.
    shown = re.search(r"^```json\n(\{.*\})\n```", section, flags=re.MULTILINE).group(1)
    run = subprocess.run([Path(sys.executable).with_name("referee"), "validate", str(DOCS / "example.jsonl")],
                         capture_output=True, timeout=60, check=False)
    assert shown.encode() in run.stdout.splitlines()
