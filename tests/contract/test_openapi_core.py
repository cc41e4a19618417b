"""A stranger's validator on real traffic: openapi-core (pinned in the `test` extra) checks every request
and every answer exchanged with the live service (gunicorn on loopback, at its own address: the contract's
server is relative) against `openapi.yaml`, for every operation of the contract, answers and refusals,
plain and opaque. Its one setting is the tool's limit: it reads `application/problem+json` and the
contract's text bodies (YAML, SVG, NDJSON) only when told how."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
import yaml
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse
from openapi_core.exceptions import OpenAPIError

import referee
from helpers.live import serve

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
DOCUMENT = yaml.safe_load(SPEC.read_text())
SEEDS = {"hypnosia": 7, "caesar": 7}


def as_json(data: bytes, **_: str) -> Any:
    return json.loads(data)


def as_text(data: bytes, **parameters: str) -> str:
    return data.decode(parameters.get("charset", "utf-8"))


#: The media types openapi-core does not read by itself: problems are JSON, and the contract types its YAML,
#: SVG and NDJSON bodies as text (`type: string`).
DESERIALIZERS = {"application/problem+json": as_json, "application/yaml": as_text, "image/svg+xml": as_text,
                 "application/x-ndjson": as_text}
VALIDATOR = OpenAPI.from_dict(DOCUMENT, config=Config(extra_media_type_deserializers=DESERIALIZERS))


def operations(prefix: str = "") -> set[str]:
    """The contract's operations whose path starts with `prefix`."""
    return {operation["operationId"] for path, item in DOCUMENT["paths"].items() if path.startswith(prefix)
            for method, operation in item.items() if method in ("get", "post")}


def game_operations(game: str) -> set[str]:
    return operations(f"/v1/games/{game}") | operations(f"/play/{game}")


class Traffic:
    """A plain HTTP client (requests) whose every exchange openapi-core validates, the request (refused
    by the validator too when it is meant to be malformed) and then its answer; it keeps the operations
    and statuses it saw."""

    def __init__(self, base: str) -> None:
        self.base, self.session = base, requests.Session()
        self.seen: set[tuple[str, int]] = set()

    def __call__(self, method: str, path: str, expect: int = 200, malformed: bool = False,
                 **kwargs: Any) -> requests.Response:
        response = self.session.request(method, self.base + path, timeout=30, **kwargs)
        assert response.status_code == expect, (path, response.status_code, response.text[:500])
        request = RequestsOpenAPIRequest(response.request)
        if malformed:
            with pytest.raises(OpenAPIError):
                VALIDATOR.validate_request(request)
        else:
            VALIDATOR.validate_request(request)
        VALIDATOR.validate_response(request, RequestsOpenAPIResponse(response))
        operation = DOCUMENT["paths"][urlsplit(response.url).path][method.lower()]["operationId"]
        self.seen.add((operation, response.status_code))
        return response

    def post(self, path: str, body: Any, expect: int = 200, **kwargs: Any) -> Any:
        answer = self("POST", path, expect, json=body, **kwargs)
        return answer.json() if "json" in answer.headers["content-type"] else answer.text

    def operations(self) -> set[str]:
        return {operation for operation, _ in self.seen}


def ndjson(items: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(item).encode() + b"\n" for item in items)


@pytest.mark.parametrize("game", referee.games())
def test_every_operation_of_a_game(server, game: str) -> None:
    call, path = Traffic(server.base), f"/v1/games/{game}"
    info = call("GET", path).json()
    call("GET", f"/play/{game}")
    seed = {"seed": SEEDS[game]} if game in SEEDS else {}
    started = call.post(f"{path}/new", seed)
    state, position = started["state"], started["position"]
    players = list(started["outcome"]["scores"])
    assert set(players) <= set(info["players"])
    moves = call.post(f"{path}/legal-moves", {"state": state})["moves"]
    assert call.post(f"{path}/legal-moves", {"state": position})["moves"] == moves  # the position form
    played = call.post(f"{path}/play", {"state": state, "move": moves[0]})
    assert call.post(f"{path}/play", {"state": position, "move": moves[0]})["state"] == played["position"]
    assert call.post(f"{path}/validate", {"state": state, "move": moves[0]}) == {"legal": True}
    # The first move again, on the state it made, is illegal: a verdict, and a 422 problem from `play`.
    assert call.post(f"{path}/validate", {"state": played["state"], "move": moves[0]})["legal"] is False
    refused = call.post(f"{path}/play", {"state": played["state"], "move": moves[0]}, expect=422)
    assert refused["code"] == "illegal-move" and refused["rule"]
    assert call.post(f"{path}/play", {"state": state}, expect=400, malformed=True)["code"] == "malformed-request"
    replayed = call.post(f"{path}/replay", {"moves": [moves[0], moves[0]]} | seed)
    assert (replayed["legal"], replayed["ply"], replayed["state"]) == (False, 1, played["state"])
    items = [{"state": state, "move": moves[0]}, {"state": played["state"], "move": moves[0]}]
    results = call.post(f"{path}/batch", items, params={"with_state": "true"})["results"]
    assert [result.get("legal") for result in results] == [True, False]
    lines = call("POST", f"{path}/batch/ndjson", data=ndjson(items), params={"with_state": "true"},
                 headers={"Content-Type": "application/x-ndjson"}).text.splitlines()
    assert [json.loads(line) for line in lines] == results
    for player in players:
        call.post(f"{path}/view", {"state": state, "player": player})
    assert call.post(f"{path}/render", {"state": state, "move": moves[0], "legal": True}).startswith("<svg")
    assert call.post(f"{path}/suggest", {"state": state, "level": 1, "seed": 1})["move"] in moves
    refused = call.post(f"{path}/suggest", {"state": state, "simulations": 2**32 - 1}, expect=422)  # past the service's
    assert (refused["code"], refused["field"]) == ("over-budget", "simulations")
    refused = call.post(f"{path}/suggest", {"state": state, "level": 9}, expect=422, malformed=True)  # and the contract's
    assert (refused["code"], refused["field"], refused["limit"]) == ("over-budget", "level", 8)
    assert call.operations() == game_operations(game)


def test_every_operation_of_the_service(server) -> None:
    call = Traffic(server.base)
    assert [game["name"] for game in call("GET", "/v1/games").json()["games"]] == referee.games()
    assert call("GET", "/healthz").json() == {"status": "ok", "version": referee.__version__}
    assert call("GET", "/readyz").json()["status"] == "ready"
    assert "referee_request_seconds" in call("GET", "/metrics").text
    assert call("GET", "/openapi.yaml").content == SPEC.read_bytes()
    assert "<html" in call("GET", "/docs").text
    service = call.operations()
    # With each game's own (the test above), every operation of the contract.
    assert service == operations() - set().union(*map(game_operations, referee.games()))


def test_opaque_caesar_traffic(server) -> None:
    """A service that keeps Caesar! opaque: the commitments, the secrets, the opaque states and the mover's
    view, through every operation that takes a state."""
    from helpers.keys import KEYS_ROTATED

    secrets = {player: f"{player}'s secret, known to {player} alone" for player in ("caesar", "pompey")}
    commitments = {player: referee.commitment(secret) for player, secret in secrets.items()}
    with serve(REFEREE_SEAL_KEYS=KEYS_ROTATED, REFEREE_OPAQUE_STATES="caesar") as opaque:
        call, path = Traffic(opaque.base), "/v1/games/caesar"
        started = call.post(f"{path}/new", {"commitments": commitments})
        state = started["state"]
        assert set(state) == {"opaque"} and "position" not in started
        mover = started["outcome"]["to_move"]
        moves = call.post(f"{path}/legal-moves", {"state": state, "secret": secrets[mover]})["moves"]
        played = call.post(f"{path}/play", {"state": state, "move": moves[0], "secret": secrets[mover]})
        assert list(played["view"]["hands"]) == [mover]
        assert call.post(f"{path}/validate", {"state": state, "move": moves[0], "secret": secrets[mover]})["legal"]
        refused = call.post(f"{path}/view", {"state": state, "player": mover}, expect=422)
        assert refused["code"] == "not-this-player" and refused["player"] == mover
        for player, secret in secrets.items():
            assert list(call.post(f"{path}/view", {"state": state, "player": player, "secret": secret})["hands"]) == [player]
        items = [{"state": state, "move": moves[0], "secret": secrets[mover]}]
        [result] = call.post(f"{path}/batch", items, params={"with_state": "true"})["results"]
        assert set(result["state"]) == {"opaque"} and list(result["view"]["hands"]) == [mover]
        assert call.post(f"{path}/render", {"state": state, "secret": secrets[mover]}).startswith("<svg")
        assert call.post(f"{path}/suggest", {"state": state, "secret": secrets[mover], "level": 1})["move"] in moves
        refused = call.post(f"{path}/suggest", {"state": state, "level": 1}, expect=422)
        assert refused["code"] == "not-this-player" and refused["player"] == mover
        refused = call.post(f"{path}/replay", {"moves": moves[:1], "commitments": commitments}, expect=400)
        assert refused["code"] == "malformed-request"
