"""An archive's report (`referee validate --report FILE.html`) opened from disk in a real browser (headless
Chromium, see browser.py), as a person would open it: it fetches nothing, every chart is drawn with its
bars, and the counts it shows are the results file's. A screenshot of the whole page is saved under
`tests/artifacts/report/` (or `$REFEREE_ARTIFACTS/report/`)."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from helpers.browser import artifacts, chromium, require_browser
from referee import cli

pytestmark = pytest.mark.live  # drives a browser

require_browser()

from selenium.webdriver.common.by import By  # noqa: E402 - only once a browser is known to be there

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "archive" / "example.jsonl"


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def test_a_report_opens_alone_and_shows_the_results(tmp_path, browser) -> None:
    report, out = tmp_path / "report.html", tmp_path / "results.jsonl"
    cli.main(["validate", str(EXAMPLE), "-o", str(out), "--report", str(report), "--no-progress"])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    browser.get(report.as_uri())
    assert browser.title == "Referee: report of example.jsonl"
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0

    charts = browser.execute_script(
        "return [...document.querySelectorAll('svg.referee-chart')].map(svg => {"
        "  const box = svg.getBoundingClientRect();"
        "  const bars = [...svg.querySelectorAll('g.bar')].map(bar => {"
        "    const drawn = bar.querySelector('rect').getBoundingClientRect();"
        "    return [Number(bar.dataset.value), drawn.width * drawn.height]; });"
        "  return [svg.querySelector('title').textContent, box.width, box.height, bars]; })")
    assert len(charts) > 20
    for title, width, height, bars in charts:
        assert width >= 500 and height >= 40, title
        assert all(area > 0 for value, area in bars if value > 0), title  # every count has a bar to see

    shown = {row.find_element(By.CSS_SELECTOR, "td").text: row.find_elements(By.CSS_SELECTOR, "td")[1].text
             for row in browser.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr, #claims tbody tr")}
    claims = collections.Counter(r.get("claim") for r in results)
    assert shown == {
        "all": str(len(results)),
        "legal": str(sum(r.get("legal") is True for r in results)),
        "illegal": str(sum(r.get("legal") is False for r in results)),
        "not records": str(sum("error" in r for r in results)),
        "claims that agree": str(claims["agrees"]),
        "claims that disagree": str(claims["disagrees"]),
        "no claim": str(claims["absent"]),
    }
    refused = browser.find_element(By.CSS_SELECTOR, "#refused tbody").text
    assert "malformed-record" in refused and "illegal-move" in refused

    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1400, min(height, 12000))
    shots = artifacts("report")
    shots.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(shots / "example.png"))
