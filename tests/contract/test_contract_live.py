"""The contract against the live service: schemathesis generates requests from `openapi.yaml`, valid
and invalid, sends them to gunicorn on loopback (as `make serve` runs it) and checks every answer
with every check, positive data acceptance included; once as a stranger runs it, `schemathesis run
openapi.yaml --checks all` with the repository's `schemathesis.toml`, and once from pytest with the
refusals allowed by problem code. Bounded: a few dozen examples per operation."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, positive_data_acceptance

from referee.codes import CODES

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

#: Schema-valid requests the contract allows the service to refuse, by the problem code of the refusal.
#: A JSON Schema cannot say everything a game can: a state can match its schema and still not occur in
#: the game (counts, side to move), an option set can name a board that does not close, a well-formed
#: move can be illegal or come after the end, and a player name can be no player of the game; and a
#: search may ask for more than this service allows (its bounds are settings, not the contract's: the
#: contract says what the engine counts). Any other refusal of schema-valid data (a 400, a 404, a 422 for
#: anything else) fails.
ALLOWED_REFUSALS = {
    "invalid-state", "invalid-options", "invalid-board", "malformed-move", "illegal-move", "game-over",
    "not-your-turn", "unknown-player", "over-budget",
}
#: An NDJSON batch is text in the contract (a JSON Schema cannot say "one JSON object a line"): text
#: whose lines are not JSON, or that holds no line, is refused as such.
ALLOWED_NDJSON_REFUSALS = {"malformed-json"}


ROOT = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
EXAMPLES = int(os.environ.get("REFEREE_CONTRACT_EXAMPLES", "30"))
#: The stranger's run proves the command and its config work on every operation; the contract's coverage is
#: the parametrized test's, which runs every phase, so the stranger's fuzzes with a third of its examples and
#: leaves out the coverage phase (its ~8,000 boundary cases took 107 s of the 155 s of such a run).
STRANGER_EXAMPLES = max(1, EXAMPLES // 3)
STRANGER_PHASES = "examples,fuzzing"

#: The repository's contract (a test holds the served one to it); requests go to the live server.
schema = schemathesis.openapi.from_path(ROOT / "openapi.yaml")


def valid_data_is_accepted_or_refused_as_allowed(ctx, response, case) -> None:  # noqa: ANN001
    """positive_data_acceptance, with the refusals the contract allows (ALLOWED_REFUSALS)."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code < 400:
        return
    code = response.json().get("code") if "json" in response.headers.get("content-type", [""])[0] else None
    if response.status_code == 422 and code in ALLOWED_REFUSALS:
        return
    # An opaque state, or a keyed generator, matches its schema whether this service holds its key or not
    # (it has no keys at all).
    state = case.body.get("state") if isinstance(case.body, dict) else None
    if code == "invalid-seal" and isinstance(state, dict) and (
            "opaque" in state or (state.get("rng") or {}).get("algorithm") == "chacha8-keyed"):
        return
    if case.media_type == "application/x-ndjson" and code in ALLOWED_NDJSON_REFUSALS:
        return
    raise AssertionError(f"schema-valid data refused with {response.status_code} {code}: {response.text[:300]}")


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_the_live_service_keeps_its_contract(case, server) -> None:
    excluded = [positive_data_acceptance]
    if case.media_type == "application/x-ndjson":
        # NDJSON is free text in the contract: any generated body is lines the batch answers one by one.
        excluded.append(negative_data_rejection)
    case.call_and_validate(base_url=server.base, excluded_checks=excluded,
                           additional_checks=[valid_data_is_accepted_or_refused_as_allowed])


def test_schemathesis_run_as_a_stranger_runs_it_finds_nothing(server) -> None:
    """`schemathesis run openapi.yaml --checks all` from the repository root, which reads `schemathesis.toml`
    (the refusals the contract documents, how NDJSON is sent and YAML read), against the live service:
    every operation tested, every test case passed, no error."""
    done = subprocess.run(
        [str(SCHEMATHESIS), "--no-color", "run", "openapi.yaml", "--checks", "all", "--url", server.base,
         "--max-examples", str(STRANGER_EXAMPLES), "--phases", STRANGER_PHASES, "--seed", "1",
         "--generation-database", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-6000:]
    operations = len([op for item in schema.raw_schema["paths"].values() for op in item if op in ("get", "post")])
    assert re.search(rf"Tested: {operations}\b", report), report[-3000:]
    generated, passed = map(int, re.search(r"(\d+) generated, (\d+) passed", report).groups())
    assert generated == passed > 5 * operations, report[-3000:]


def test_the_refusals_allowed_here_are_the_ones_the_config_declares() -> None:
    """The codes this module allows are refusals with the status `schemathesis.toml` declares."""
    config = tomllib.loads((ROOT / "schemathesis.toml").read_text())
    declared = config["checks"]["positive_data_acceptance"]["expected-statuses"]
    assert declared == ["2xx", "422"]
    assert {CODES[code].status for code in ALLOWED_REFUSALS | {"invalid-seal"}} == {422}
