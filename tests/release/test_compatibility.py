"""What docs/compatibility.md promises every later version keeps, as 0.1.0 offers it: the rules tags of
states, the problem and claim codes with their statuses, the contract's paths and methods, and the record
format. A release may add to these sets; a change that takes anything away fails here (and belongs in a
new major version, with CHANGELOG.md saying so)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml

import referee
from referee.codes import CLAIM_CODES, CODES
from helpers.games import FACTS

ROOT = Path(__file__).resolve().parents[2]
#: The games of 0.1.0 and the rules tag of their states then.
RULES = {name: facts.rules_0_1_0 for name, facts in FACTS.items() if facts.rules_0_1_0 is not None}
PROBLEM_STATUSES = {
    "malformed-json": 400, "malformed-request": 400, "malformed-http": 400, "not-found": 404, "unknown-game": 404,
    "method-not-allowed": 405, "request-timeout": 408, "payload-too-large": 413, "request-line-too-long": 414,
    "unsupported-media-type": 415, "invalid-options": 422, "invalid-state": 422, "invalid-seal": 422,
    "invalid-board": 422, "malformed-move": 422, "illegal-move": 422, "game-over": 422, "not-your-turn": 422,
    "unknown-player": 422, "not-this-player": 422, "headers-too-large": 431, "internal-error": 500,
    "not-implemented": 501, "not-ready": 503, "service-busy": 503,
}
CLAIMS = {"claim-illegal-moves", "claim-unknown-player", "claim-inconsistent", "claim-not-over", "claim-over",
          "claim-mismatch"}
GAME_ROUTES = ["new", "legal-moves", "play", "validate", "replay", "batch", "batch/ndjson", "view", "render"]
PATHS = {("/v1/games", "get"), ("/healthz", "get"), ("/readyz", "get"), ("/metrics", "get"),
         ("/openapi.yaml", "get"), ("/docs", "get")} | {
    (path, method) for game in RULES for path, method in [
        (f"/v1/games/{game}", "get"), (f"/play/{game}", "get"),
        *((f"/v1/games/{game}/{route}", "post") for route in GAME_ROUTES)]}
#: A record of the example archive (docs/archives.md's Isaac sample) and what 0.1.0 answers of it.
RECORD = {"id": "club-isaac-01", "players": {"black": "Hana", "white": "Ann"}, "game": "isaac", "seed": 1200,
          "moves": ["c3-g3", "b2-b6", "f8-i8", "g9-i9", "g7-i7", "e1-h1", "h2-h5", "e5-g5"],
          "result": {"winner": "white"}, "termination": "resignation", "by": "black"}
RESULT = {"claim": "agrees", "game": "isaac", "id": "club-isaac-01", "legal": True, "plies": 8, "record": 1,
          "position": "We1-h1,Wb2-b6,Bh2-h5,Bc3-g3,We5-g5,Bg7-i7,Bf8-i8,Wg9-i9 placement b 0,0 - - -/-"}


@pytest.mark.parametrize("name", RULES)
def test_states_carry_and_accept_their_rules_tag(name: str) -> None:
    game = referee.game(name)
    state = game.new(seed=1)
    assert state["rules"] == RULES[name]
    assert game.legal_moves(state)
    with pytest.raises(referee.InvalidState) as refused:
        game.legal_moves(state | {"rules": f"{name}@999"})
    assert refused.value.data == {"field": "rules"}


def test_every_problem_code_keeps_its_status() -> None:
    assert {code: CODES[code].status for code in PROBLEM_STATUSES if code in CODES} == PROBLEM_STATUSES
    assert CLAIMS <= set(CLAIM_CODES)


def test_every_path_and_method_of_the_contract_stays() -> None:
    paths = yaml.safe_load((ROOT / "openapi.yaml").read_text())["paths"]
    assert PATHS <= {(path, method) for path, item in paths.items() for method in item}


def test_a_record_of_the_first_version_replays_to_the_same_result() -> None:
    [line] = referee.replay_records(orjson.dumps(RECORD)).splitlines()
    result = orjson.loads(line)
    assert {key: result[key] for key in RESULT} == RESULT
