"""Every game's info answer (`GET /v1/games/{game}`, `Game.info`), byte for byte as the files beside this
test hold it: a change of the engine's `Info` type shows here, and a change of an answer is made on purpose
(the file rewritten in the same commit)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest
import yaml

import referee
from referee import _core

ANSWERS = Path(__file__).resolve().parent / "info"
SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_every_game_has_its_answer_here() -> None:
    assert sorted(path.stem for path in ANSWERS.glob("*.json")) == sorted(_core.games())


@pytest.mark.parametrize("game", _core.games())
def test_a_game_s_info_answer_is_its_bytes(client, game: str) -> None:
    expected = (ANSWERS / f"{game}.json").read_bytes()
    assert client.get(f"/v1/games/{game}").data == expected
    assert orjson.dumps(referee.game(game).info()) == expected


@pytest.mark.parametrize("game", _core.games())
def test_a_game_s_info_answer_keeps_the_contract_s_schema(game: str) -> None:
    document = yaml.safe_load(SPEC.read_text())
    schema = {"$ref": "#/components/schemas/GameInfo", "components": document["components"]}
    jsonschema.validate(orjson.loads((ANSWERS / f"{game}.json").read_bytes()), schema)
