"""The JSON Schemas derived from the Rust types (`referee._core.json_schemas()`) describe what the engine
really reads and writes: seeded random games of every game, under several setups, have every state,
effects and outcome valid against their game's schemas (Draft 2020-12), and a state of one game is
valid against no other game's State schema."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import referee
from helpers.games import FACTS
from referee import _core

GAMES = tuple(referee.games())
PREFIX = dict(_core.SCHEMA_PREFIXES) | {"common": ""}
DOCUMENT = "urn:referee:contract"
GAMES_EACH = 20
MAX_PLIES = 200

# Setups the random games cycle through, so that every option's shape reaches the schemas.
SETUPS: dict[str, list[dict[str, Any]]] = {name: FACTS[name].schema_setups for name in GAMES}


@pytest.fixture(scope="module")
def schemas() -> dict[str, dict[str, Any]]:
    return _core.json_schemas()


@pytest.fixture(scope="module")
def components(schemas) -> dict[str, Any]:
    """The schemas as an OpenAPI document's `components.schemas`, by prefixed name."""
    found: dict[str, Any] = {}
    for group, members in schemas.items():
        for name, schema in members.items():
            full = PREFIX[group] + name
            assert full not in found, f"{full} is defined twice"
            found[full] = schema
    return found


@pytest.fixture(scope="module")
def validator(components):
    """`validator("IagoState")`: a Draft 2020-12 validator of that component, its `$ref`s resolved in
    the document."""
    document = Resource.from_contents({"components": {"schemas": components}}, default_specification=DRAFT202012)
    registry = Registry().with_resource(DOCUMENT, document)
    cache: dict[str, Draft202012Validator] = {}

    def of(name: str) -> Draft202012Validator:
        assert name in components, f"no schema {name}"
        if name not in cache:
            cache[name] = Draft202012Validator({"$ref": f"{DOCUMENT}#/components/schemas/{name}"}, registry=registry)
        return cache[name]

    return of


def assert_valid(validator, name: str, value: Any) -> None:
    errors = sorted(validator(name).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, f"{name} refuses {value!r}:\n" + "\n".join(
        f"  at {list(e.absolute_path)}: {e.message}" for e in errors[:5]
    )


def references(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return found + [ref for item in value.values() for ref in references(item)]
    if isinstance(value, list):
        return [ref for item in value for ref in references(item)]
    return []


def test_every_game_has_its_schemas_and_every_reference_resolves(schemas, components):
    assert set(schemas) == {*GAMES, "common"}
    for game in GAMES:
        assert {"State", "Setup", "Options", "Effects"} <= set(schemas[game]), game
    assert {"Outcome", "ChanceState"} <= set(schemas["common"])
    refs = references(schemas)
    assert len(refs) > 20
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in components, f"{ref} names no schema"
    for name, schema in components.items():
        Draft202012Validator.check_schema(schema)  # raises on a schema that is no 2020-12 schema


def test_the_rules_version_tells_the_games_apart(components):
    for game in GAMES:
        rules = components[f"{PREFIX[game]}State"]["properties"]["rules"]
        assert rules.get("const") == f"{game}@1", rules


def play_random_games(game_name: str):
    """Yields `(kind, value)` for everything the engine answers in seeded random games: setups,
    states, effects and outcomes."""
    setups = SETUPS[game_name]
    for number in range(GAMES_EACH):
        setup = setups[number % len(setups)]
        game = referee.game(game_name, setup.get("variant"), setup.get("options"))
        yield "Setup", setup
        yield "Setup", game.setup
        chooser = random.Random(number)
        state = game.new(seed=1000 + number)
        yield "State", state
        yield "Outcome", game.outcome(state)
        for _ in range(MAX_PLIES):
            outcome = game.outcome(state)
            if outcome["status"] == "finished":
                break
            moves = game.legal_moves(state)
            assert moves, f"{game_name}: an ongoing game has no legal move: {state}"
            played = game.play(state, chooser.choice(moves))
            assert set(played) == {"state", "position", "effects", "outcome"}
            yield "State", played["state"]
            yield "Effects", played["effects"]
            yield "Outcome", played["outcome"]
            state = played["state"]
        yield "Final", state


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
def test_everything_the_engine_answers_is_valid_against_the_schemas(game_name, validator):
    counts: dict[str, int] = {}
    finals = 0
    for kind, value in play_random_games(game_name):
        if kind == "Final":
            finals += 1
            continue
        counts[kind] = counts.get(kind, 0) + 1
        name = "Outcome" if kind == "Outcome" else PREFIX[game_name] + kind
        assert_valid(validator, name, value)
    assert finals == GAMES_EACH
    assert counts["Effects"] >= GAMES_EACH, counts


@pytest.mark.parametrize("game_name", GAMES)
def test_a_state_is_valid_against_no_other_games_state_schema(game_name, validator):
    final = None
    states = []
    for kind, value in play_random_games(game_name):
        if kind == "State" and len(states) < 3:
            states.append(value)
        if kind == "Final":
            final = value
            break
    states.append(final)
    for state in states:
        assert_valid(validator, f"{PREFIX[game_name]}State", state)
        for other in GAMES:
            if other != game_name:
                assert not validator(f"{PREFIX[other]}State").is_valid(state), f"a {game_name} state is a valid {other} state"


@pytest.mark.parametrize("game_name", GAMES)
def test_a_state_that_breaks_the_contract_is_refused(game_name, validator):
    game = referee.game(game_name)
    state = game.new(seed=7)
    name = f"{PREFIX[game_name]}State"
    assert_valid(validator, name, state)
    other_rules = copy.deepcopy(state)
    other_rules["rules"] = f"{game_name}@2"
    extra = copy.deepcopy(state)
    extra["comment"] = "unknown fields are refused"
    missing = copy.deepcopy(state)
    del missing["rules"]
    for broken in (other_rules, extra, missing):
        assert not validator(name).is_valid(broken), broken


def test_outcome_and_effects_that_break_the_contract_are_refused(validator):
    game = referee.game("iago")
    played = game.play(game.new(), game.legal_moves(game.new())[0])
    outcome = dict(played["outcome"], status="paused")
    assert not validator("Outcome").is_valid(outcome)
    effects = dict(played["effects"], player="red")
    assert not validator("IagoEffects").is_valid(effects)
    assert not validator("ChanceState").is_valid({"algorithm": "chacha8", "seed": "00", "word_pos": 0})
