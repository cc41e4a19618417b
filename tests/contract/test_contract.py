"""openapi.yaml is a valid OpenAPI 3.1 document, and the service keeps it: schemathesis generates
requests from it (valid and invalid) and checks every response against it, in-process."""

from __future__ import annotations

import re

from pathlib import Path

import jsonschema
import pytest
import schemathesis
from schemathesis.checks import negative_data_rejection, positive_data_acceptance
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate

import referee
from referee import _core, contract
from referee.http.app import create_app
from referee.codes import CLAIM_CODES, CODES, RECORD_CODES, claim_code_schema, problem_code_schema
from referee.errors import InvalidOptions, InvalidState, RefereeError
from referee.http.problems import Problem
from referee.http.settings import Settings

from helpers.hypnosia_boards import default_board

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
RUST_SOURCES = Path(__file__).resolve().parents[2] / "rust_core" / "src"
app = create_app(Settings(access_log=False))
schema = schemathesis.openapi.from_wsgi("/openapi.yaml", app)


def test_the_spec_is_valid_openapi_3_1() -> None:
    document = yaml.safe_load(SPEC.read_text())
    assert document["openapi"].startswith("3.1")
    validate(document)


def test_the_served_spec_is_the_repository_file(client) -> None:
    assert client.get("/openapi.yaml").data == SPEC.read_bytes()


def test_the_committed_contract_is_what_the_generator_writes() -> None:
    """`openapi.yaml` comes from the code (`python -m referee.contract` rewrites it)."""
    assert SPEC.read_text() == contract.text()


def test_the_contract_problem_codes_are_the_one_table() -> None:
    """`ProblemCode` is what `referee.codes` makes of its table; every engine error names a code of it,
    with the status the service answers."""
    document = yaml.safe_load(SPEC.read_text())
    assert document["components"]["schemas"]["ProblemCode"] == problem_code_schema()
    engine_errors = {cls.code for cls in RefereeError.__subclasses__()}
    assert engine_errors <= set(CODES) and "illegal-move" in engine_errors
    assert all(Problem(code, "x").status == CODES[code].status for code in CODES)


def test_the_engine_s_refusals_are_codes_of_the_table() -> None:
    """Every kind of the engine's one error type (`_core.ERROR_CODES`) is a code of `referee.codes` (a
    problem, or why a line of an archive is no record), and every problem among them raises its class."""
    engine_codes = set(_core.ERROR_CODES)
    assert engine_codes <= set(CODES) | set(RECORD_CODES)
    assert {cls.code for cls in RefereeError.__subclasses__()} == engine_codes - set(RECORD_CODES)


def test_the_engine_s_claim_codes_are_the_table_s() -> None:
    """Every code of why a claim disagrees (`_core.CLAIM_CODES`, the engine's one `ClaimCode` table) is worded
    in `referee.codes.CLAIM_CODES`, in the order the rules are checked, and no other code is."""
    assert list(_core.CLAIM_CODES) == list(CLAIM_CODES)


def test_the_engine_builds_every_refusal_with_its_error_type() -> None:
    """No code of `referee.codes` is spelled in the engine's code outside its error type (error.rs, where
    each is worded once): a refusal built as raw JSON elsewhere would be worded apart. Tests (after
    `#[cfg(test)]`) aside. A claim's codes, the same way: once each, in `ClaimCode`'s table (claims.rs)."""
    spelled = []
    for path in sorted(RUST_SOURCES.rglob("*.rs")):
        code = path.read_text().split("#[cfg(test)]")[0]
        spelled += [f"{path.relative_to(RUST_SOURCES)}: {name}" for name in (*CODES, *RECORD_CODES)
                    if f'"{name}"' in code and path.name != "error.rs"]
        # A claim's codes likewise: worded in `ClaimCode`'s table only, once.
        spelled += [f"{path.relative_to(RUST_SOURCES)}: {name}" for name in CLAIM_CODES
                    if code.count(f'"{name}"') != (path.name == "claims.rs")]
    assert spelled == []


def test_every_engine_game_has_its_own_typed_routes() -> None:
    document = yaml.safe_load(SPEC.read_text())
    for game in referee.games():
        prefix = contract.PREFIXES[game]
        play = document["paths"][f"/v1/games/{game}/play"]["post"]
        assert play["operationId"] == f"{game}Play" and play["tags"] == [prefix]
        body = play["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert body == f"#/components/schemas/{prefix}MoveRequest"
        request = document["components"]["schemas"][f"{prefix}MoveRequest"]
        assert request["properties"]["state"] == {"$ref": f"#/components/schemas/{prefix}StateOrPosition"}
        forms = document["components"]["schemas"][f"{prefix}StateOrPosition"]["oneOf"]
        assert forms == [{"$ref": f"#/components/schemas/{prefix}State"}, {"$ref": "#/components/schemas/Position"},
                         {"$ref": "#/components/schemas/OpaqueState"}]
    assert not any("{game}" in path for path in document["paths"])


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_service_keeps_its_contract(case) -> None:
    # Every check but one: a state can match the JSON schema and still be impossible in the game
    # (disc counts, side to move), and the contract answers such a state with 422 `invalid-state`.
    excluded = [positive_data_acceptance]
    if case.media_type == "application/x-ndjson":
        # An NDJSON body is free text in the spec: a generated "non-string" body still serializes to
        # NDJSON lines, which the batch answers item by item (200), so it cannot count as negated.
        excluded.append(negative_data_rejection)
    case.call_and_validate(excluded_checks=excluded)


def spec_schemas() -> dict:
    return yaml.safe_load(SPEC.read_text())["components"]["schemas"]


def object_parts(schema: dict, components: dict) -> tuple[set[str], set[str]]:
    """The properties and required properties of an object schema, with those of its `allOf` parts."""
    properties, required = set(schema.get("properties", {})), set(schema.get("required", []))
    for part in schema.get("allOf", []):
        part = components[part["$ref"].removeprefix(contract.COMPONENTS)] if "$ref" in part else part
        more, needed = object_parts(part, components)
        properties, required = properties | more, required | needed
    return properties, required


def test_the_envelope_schemas_match_the_marshmallow_envelopes() -> None:
    components = spec_schemas()
    for game in referee.games():
        for name, envelope in contract.ENVELOPES.items():
            fields = envelope().fields
            properties, required = object_parts(components[contract.PREFIXES[game] + name], components)
            assert set(fields) == properties, name
            assert {key for key, field in fields.items() if field.required} == required, name


def test_a_request_with_a_setup_references_the_games_setup() -> None:
    """`new` and `replay` take a setup: their envelopes are the game's `Setup` and their own fields, never
    copies of the setup's fields; `new` is closed as a whole (`unevaluatedProperties`), a replay's record
    may carry any other field (its metadata)."""
    components = spec_schemas()
    for prefix in contract.PREFIXES.values():
        setup = components[prefix + "Setup"]
        assert "additionalProperties" not in setup  # the envelope closes it
        for name in ("NewRequest", "ReplayRequest"):
            request = components[prefix + name]
            assert request["allOf"][0] == {"$ref": f"{contract.COMPONENTS}{prefix}Setup"}, name
            assert request["unevaluatedProperties"] is (name == "ReplayRequest") and "properties" not in request
            assert not set(setup["properties"]) & set(request["allOf"][1]["properties"]), name
        for name in ("MoveRequest", "LegalMovesRequest", "ViewRequest", "RenderRequest", "SuggestRequest", "BatchItem"):
            assert components[prefix + name]["additionalProperties"] is False


def references(value: object) -> set[str]:
    """The component names every `$ref` under `value` points at."""
    if isinstance(value, dict):
        found = {value["$ref"].rsplit("/", 1)[-1]} if "$ref" in value else set()
        return found.union(*(references(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(references(item) for item in value))
    return set()


def test_every_schema_is_used_and_written_once() -> None:
    """Every component schema is reached from an operation (generators report the others unused), and the
    YAML holds no anchor or alias: a schema is referenced, never copied through YAML."""
    document = yaml.safe_load(SPEC.read_text())
    components, reached = document["components"], set()
    pending = references(document["paths"])
    while pending:
        name = pending.pop()
        reached.add(name)
        target = next(group[name] for group in components.values() if name in group)
        pending |= references(target) - reached
    assert set(components["schemas"]) <= reached, set(components["schemas"]) - reached
    events = yaml.parse(SPEC.read_text())
    assert not any(isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) for event in events)


def integer_schemas(value: object) -> list[dict]:
    """Every schema of type integer under `value` (examples left out: they are data)."""
    if isinstance(value, list):
        return [found for item in value for found in integer_schemas(item)]
    if not isinstance(value, dict):
        return []
    kinds = value.get("type")
    own = [value] if kinds == "integer" or isinstance(kinds, list) and "integer" in kinds else []
    return own + [found for key, item in value.items() if key not in ("example", "examples")
                  for found in integer_schemas(item)]


def test_every_integer_has_the_format_of_its_range() -> None:
    """Generators type an integer by its format (Go: `int32` without one): `int32` when its bounds fit 32
    bits, else `int64`. A seed a request gives is a number every client language holds exactly (a double's
    2^53 - 1), or the 64 hexadecimal digits a state carries."""
    integers = integer_schemas(yaml.safe_load(SPEC.read_text()))
    assert len(integers) > 40
    for schema in integers:
        low, high = schema.get("minimum"), schema.get("maximum")
        fits = low is not None and high is not None and -(2**31) <= low and high < 2**31
        assert schema["format"] == ("int32" if fits else "int64"), schema
    number, text = spec_schemas()["Seed"]["oneOf"]
    assert (number["minimum"], number["maximum"], number["format"]) == (0, 2**53 - 1, "int64")
    assert re.fullmatch(text["pattern"], referee.game("caesar").new(seed=2**64 - 1)["rng"]["seed"])


def test_one_schema_for_a_state_in_and_out() -> None:
    """Every `state` of a request or an answer is the game's `StateOrPosition`: an answer's state is sent
    back as it is."""
    document = yaml.safe_load(SPEC.read_text())
    states = []

    def collect(value: object) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("properties"), dict) and "state" in value["properties"]:
                states.append(value["properties"]["state"]["$ref"])
            for key, item in value.items():
                if key not in ("example", "examples"):
                    collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    collect(document)
    prefixes = contract.PREFIXES.values()
    assert set(states) == {f"{contract.COMPONENTS}{prefix}StateOrPosition" for prefix in prefixes}
    assert len(states) == 10 * len(prefixes)  # 6 requests, `new`, `play`, `replay` and batch results


def test_the_server_is_the_one_that_serves_the_document() -> None:
    """A relative server: a validator or client finds the operations at the address it reached."""
    assert [server["url"] for server in yaml.safe_load(SPEC.read_text())["servers"]] == ["/"]


def test_a_replay_takes_a_record_with_its_claim_and_answers_the_verdict_on_it() -> None:
    """A replay's body is a record as archives hold it: its claim typed from the engine's own types, any
    other field allowed (only this envelope allows them); the answer carries the claim's verdict, its
    reason's code one of `referee.codes.CLAIM_CODES`."""
    components = spec_schemas()
    for game in referee.games():
        prefix = contract.PREFIXES[game]
        for name in contract.ENVELOPES:
            closing = "unevaluatedProperties" if name in ("NewRequest", "ReplayRequest") else "additionalProperties"
            assert components[prefix + name][closing] is (name == "ReplayRequest"), name
        request = components[prefix + "ReplayRequest"]["allOf"][1]["properties"]
        for field, component in (("result", "ClaimedResult"), ("termination", "Termination")):
            typed, null = request[field]["anyOf"]
            assert (typed["$ref"], null) == ("#/components/schemas/" + component, {"type": "null"})
        assert request["game"]["enum"] == [game]
        answer = components[prefix + "ReplayResult"]
        assert "claim" in answer["required"] and answer["properties"]["claim"]["enum"] == ["agrees", "disagrees", "absent"]
        assert answer["properties"]["claim_reason"] == {"$ref": "#/components/schemas/ClaimReason"}
    assert components["ClaimCode"] == claim_code_schema() and components["ClaimCode"]["enum"] == list(CLAIM_CODES)
    assert components["ClaimReason"]["properties"]["code"] == {"$ref": "#/components/schemas/ClaimCode"}
    assert components["Termination"]["enum"] == ["normal", "resignation", "timeout", "agreement", "abandoned"]
    assert components["ClaimedResult"]["required"] == ["winner"]
    assert components["ClaimedResult"]["additionalProperties"] is False


def test_the_engine_shapes_match_the_spec() -> None:

    components = spec_schemas()
    game = referee.game("iago", options={"penalty": True})
    played = game.play(game.new(), "e4")
    assert set(played["state"]) | {"seal"} == set(components["IagoState"]["properties"])  # unsealed
    assert set(played["effects"]) == set(components["IagoEffects"]["properties"])
    # `ranking` is optional (games of more than two players only).
    outcome = components["Outcome"]
    assert set(outcome["required"]) <= set(played["outcome"]) <= set(outcome["properties"])
    assert set(game.setup) == set(components["IagoSetup"]["properties"])
    assert set(game.setup["options"]) == set(components["IagoOptions"]["properties"])


def test_a_sealed_state_has_every_property_of_the_spec() -> None:
    components = spec_schemas()
    for name, prefix in contract.PREFIXES.items():
        state = referee.game(name, seal_keys="k1:" + "A" * 43).new(seed=1)
        assert set(state) == set(components[prefix + "State"]["properties"]), name
        assert re.fullmatch(components[prefix + "State"]["properties"]["seal"]["pattern"], state["seal"])


def test_a_suggestion_is_what_the_engine_answers_and_its_request_says_its_bounds() -> None:
    """`suggest` answers the generated `Suggestion` (its example the engine's answer but for the time it
    took); its request's level is 1 to the engine's levels, simulations and think time what the engine
    counts (the service's own bounds are settings, refused `over-budget`), a seed one a double holds."""
    document, components = spec_document(), spec_schemas()
    example = request_example(document, "suggest")
    answer = response_example(document, "suggest", "200")
    expected = referee.game("iago").suggest(example["state"], level=example["level"], seed=example["seed"])
    assert {**answer, "spent_ms": None} == {**expected, "spent_ms": None}
    assert component_validator("Suggestion").is_valid(expected)
    assert set(components["Suggestion"]["required"]) == set(expected)
    for name, prefix in contract.PREFIXES.items():
        fields = components[prefix + "SuggestRequest"]["properties"]
        bounds = {name: (fields[name]["anyOf"][0]["minimum"], fields[name]["anyOf"][0]["maximum"])
                  for name in ("level", "simulations", "think_ms", "seed")}
        assert bounds == {"level": (1, len(_core.LEVELS)), "simulations": (1, 2**32 - 1), "think_ms": (1, 2**32 - 1),
                          "seed": (0, _core.MAX_SEED)}
        responses = document["paths"][f"/v1/games/{name}/suggest"]["post"]["responses"]
        assert responses["200"]["content"]["application/json"]["schema"] == {"$ref": contract.COMPONENTS + "Suggestion"}
        assert {"422", "429", "503"} <= set(responses)


def test_the_isaac_shapes_match_the_spec() -> None:

    components = spec_schemas()
    game = referee.game("isaac", options={"first_player": "white"})
    played = game.play(game.new(), "c4-g4")
    assert set(played["state"]) | {"seal"} == set(components["IsaacState"]["properties"])  # unsealed
    assert set(components["IsaacState"]["required"]) == set(played["state"]) - {"variant", "options"}
    assert set(played["effects"]) <= set(components["IsaacEffects"]["properties"])
    assert set(game.setup) == set(components["IsaacSetup"]["properties"])
    assert set(game.setup["options"]) == set(components["IsaacOptions"]["properties"])
    # Every effect field is produced by some move kind: place, pass, remove.
    default = referee.game("isaac")
    removal = default.play("Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 0,59 w - -/3", "xc5-g5+18")["effects"]
    passed = default.play("Ba1-c1,Wh10-j10 scoring w 0,0 b b 3/3", "pass")["effects"]
    produced = set(played["effects"]) | set(removal) | set(passed)
    assert produced == set(components["IsaacEffects"]["properties"])


def test_the_isaac_examples_are_engine_output() -> None:

    components = spec_schemas()
    game = referee.game("isaac")
    for state in components["IsaacState"]["examples"]:
        assert game.check(state) == state
    scoring = game.parse_position("Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 0,59 w - -/3")
    assert components["IsaacEffects"]["examples"] == [game.play(scoring, "xc5-g5+18")["effects"]]


def test_the_caesar_shapes_match_the_spec() -> None:

    components = spec_schemas()
    game = referee.game("caesar")
    state = game.new(seed=3)
    played = game.play(state, game.legal_moves(state)[0])
    assert set(played["state"]) | {"seal"} == set(components["CaesarState"]["properties"])  # unsealed
    assert set(played["effects"]) == set(components["CaesarEffects"]["properties"])
    assert set(game.view(state, "caesar")) == set(components["CaesarView"]["properties"])
    assert set(game.setup) == set(components["CaesarSetup"]["properties"])
    assert set(game.setup["options"]) == set(components["CaesarOptions"]["properties"])
    # The spec's examples are engine output: the example state is accepted back unchanged and its
    # effects are what the engine answers for the two moves that lead to it.
    example = components["CaesarState"]["examples"][0]
    assert game.check(example) == example
    setup = components["CaesarSetup"]["examples"][0]
    replayed = referee.game("caesar", options=setup["options"]).replay(["L40@HU-HC =S51", "N42@MT-HU =D60"], seed=7)
    assert replayed["state"] == example


def component_validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator of the contract's component `name`, its references resolved in the contract."""
    return jsonschema.Draft202012Validator({"$ref": contract.COMPONENTS + name,
                                            "components": {"schemas": spec_schemas()}})


def test_what_the_caesar_schemas_refuse_the_engine_refuses() -> None:
    """The schemas say what JSON Schema can, as the engine does: a state lists every border and province,
    and a starting hand given in the options is 2 tokens."""
    game = referee.game("caesar")
    state, states = game.new(seed=3), component_validator("CaesarState")
    assert states.is_valid(state)
    for field, key in (("borders", "HU-HC"), ("provinces", "IT")):
        partial = state | {field: {k: v for k, v in state[field].items() if k != key}}
        assert not states.is_valid(partial)
        with pytest.raises(InvalidState):
            game.check(partial)
    options, hands = component_validator("CaesarOptions"), {"caesar": ["L40", "L31"], "pompey": ["S60", "S51"]}
    assert options.is_valid({"hands": hands})
    referee.game("caesar", options={"hands": hands}).new(seed=3)
    for hand in ([], ["L40"], ["L40", "L31", "L22"]):
        assert not options.is_valid({"hands": hands | {"caesar": hand}})
        with pytest.raises(InvalidOptions):
            referee.game("caesar", options={"hands": hands | {"caesar": hand}})


def test_the_hypnosia_shapes_and_examples_match_the_spec() -> None:

    components = spec_schemas()
    game = referee.game("hypnosia", options={"first_player": "red"})
    played = game.play(game.new(seed=7), "6-2: h1+6 0.5^2")
    # The spec's examples are exactly what the engine answers.
    assert components["HypnosiaState"]["examples"] == [played["state"]]
    assert components["HypnosiaEffects"]["examples"] == [played["effects"]]
    assert set(played["state"]) | {"seal"} == set(components["HypnosiaState"]["properties"])  # unsealed
    assert set(played["effects"]) == set(components["HypnosiaEffects"]["properties"])
    assert set(played["effects"]["moves"][0]) == set(components["HypnosiaDieMove"]["properties"])
    assert set(game.setup) == set(components["HypnosiaSetup"]["properties"])
    assert set(game.setup["options"]) == set(components["HypnosiaOptions"]["properties"])
    assert game.setup["options"]["board"] is None  # the default board
    assert set(default_board()) == set(components["HypnosiaBoard"]["properties"])
    setup_example = components["HypnosiaSetup"]["examples"][0]
    assert referee.game("hypnosia", **setup_example).setup == setup_example
    finished = game.outcome("r:h4,centre,centre,centre/b:h1,h2,centre,centre - - rrbbr 0/0 7:0")
    assert components["Outcome"]["examples"] == [finished]
    assert set(finished) == set(components["Outcome"]["properties"])


# ------------------------------------------------------------------ the examples against the reference models
# The examples above are compared with the engine; here each is worked out again by the game's reference
# model (tests/rules/reference/), which shares no code with the engine, and chance by the reference generator.


def spec_document() -> dict:
    return yaml.safe_load(SPEC.read_text())


def request_example(document: dict, route: str, game: str = "iago") -> dict:
    return document["paths"][f"/v1/games/{game}/{route}"]["post"]["requestBody"]["content"]["application/json"]["example"]


def response_example(document: dict, route: str, status: str, game: str = "iago") -> dict:
    content = document["paths"][f"/v1/games/{game}/{route}"]["post"]["responses"][status]["content"]
    return next(iter(content.values()))["example"]


def iago_position(state: dict):
    """The model's position of an Iago state JSON, through its notation (docs/rules/iago.md: rows joined by /)."""
    from rules.reference import iago

    text = "/".join(state["board"]) + " " + state["to_move"][0] + (" p" if state.get("penalty_claim") else "")
    options = state.get("options", {})
    pos = iago.parse_position(text, state.get("variant", "standard"), options.get("penalty", False))
    assert iago.refusal(pos) is None, text  # an example state is one the model's checks accept
    return pos


def test_the_iago_examples_are_what_the_model_answers() -> None:
    from rules.reference import iago

    document = spec_document()
    play = request_example(document, "play")
    pos = iago_position(play["state"])
    after, effects = iago.play(pos, play["move"])
    answer = response_example(document, "play", "200")
    assert answer["state"]["board"] == iago.format_position(after).split(" ")[0].split("/")
    assert answer["state"]["to_move"] == after.to_move and answer["state"]["penalty_claim"] is after.penalty_claim
    assert answer["position"] == iago.format_position(after)
    assert {key: answer["effects"][key] for key in effects} == effects
    assert answer["effects"]["cell"] == play["move"] and answer["effects"]["player"] == pos.to_move
    assert answer["outcome"]["scores"] == iago.scores(after)
    assert (answer["outcome"]["status"] == "finished") == iago.is_finished(after)
    assert answer["outcome"]["winner"] == iago.winner(after)
    # The illegal move of validate and of play's 422: not legal, and the facts are the model's best capture.
    for illegal, reason in [(request_example(document, "validate"), response_example(document, "validate", "200")["reason"]),
                            (play | {"move": "d4"}, response_example(document, "play", "422"))]:
        pos = iago_position(illegal["state"])
        assert illegal["move"] not in iago.legal_moves(pos)
        counts = {cell: iago.capture_count(pos, cell) for cell in iago.empty_cells(pos)}
        best = max(counts.values())
        assert (reason["capture"], reason["cells"]) == (best, sorted(c for c, n in counts.items() if n == best))
        assert iago.capture_count(pos, illegal["move"]) < best and reason["rule"] == "forced-capture"
    # The other requests' states are states the model accepts, and the replay is a legal game.
    assert iago.legal_moves(iago_position(request_example(document, "legal-moves")["state"]))
    outcomes = []
    for item in request_example(document, "batch"):
        outcomes.append(item["move"] in iago.legal_moves(iago_position(item["state"])))
    assert outcomes == [True, False]
    # The replay example is a record whose last move is illegal (e5 is the centre, and it flips nothing):
    # the model stops where the engine does.
    replay = request_example(document, "replay")
    pos, first_illegal = iago.initial(replay["variant"]), None
    for ply, move in enumerate(replay["moves"]):
        if move not in iago.legal_moves(pos):
            first_illegal = ply
            break
        pos, _ = iago.play(pos, move)
    answer = referee.game("iago", variant=replay["variant"]).replay(replay["moves"])
    assert (answer["legal"], answer.get("ply"), answer["position"]) == (first_illegal is None, first_illegal, iago.format_position(pos))


def test_the_isaac_examples_are_what_the_model_answers() -> None:
    from rules.reference import isaac

    components = spec_schemas()
    [state] = components["IsaacState"]["examples"]
    pos = isaac.parse_position("Bd1-f1,Wa3-a7,Wb4-b6,Bc5-g5,Bh5-j5,Bd9-f9 scoring b 0,59 w - -/3",
                               **state["options"])
    assert {color: sorted(state["pieces"][color]) for color in ("black", "white")} == {
        color: sorted(p.name() for p in pos.pieces if p.owner == color) for color in ("black", "white")}
    assert (state["phase"], state["to_move"], state["first_to_pass"]) == (pos.phase, pos.to_move, pos.first_to_pass)
    assert (state["scores"]["black"], state["scores"]["white"]) == pos.scores
    assert state["passed"] == list(pos.passed)
    assert (tuple(state["removed"]["black"]), tuple(state["removed"]["white"])) == pos.removed
    _, effects = isaac.play(pos, "xc5-g5+18")
    assert components["IsaacEffects"]["examples"] == [effects]


def test_the_caesar_examples_are_what_the_model_answers() -> None:
    from rules.reference import caesar
    from rules.reference.chacha import ChaCha8

    document = spec_document()
    components = document["components"]["schemas"]
    [setup] = components["CaesarSetup"]["examples"]
    pos = caesar.initial(setup["options"]["bonuses"], setup["options"]["hands"])
    pos, _ = caesar.play(pos, "L40@HU-HC =S51")
    pos, effects = caesar.play(pos, "N42@MT-HU =D60")
    [state] = components["CaesarState"]["examples"]
    assert {key: state[key] for key in caesar.PROJECTION_KEYS} == caesar.projection(pos)
    assert state["rules"] == "caesar@1" and set(state) == {*caesar.PROJECTION_KEYS, "rules", "rng"}
    assert state["rng"] == ChaCha8.from_u64(7).state()  # seed 7; every draw given, so no word used
    assert components["CaesarEffects"]["examples"] == [effects]
    view = request_example(document, "view", "caesar")
    shown = response_example(document, "view", "200", "caesar")
    assert view["state"] == state
    assert shown == caesar.view(pos, view["player"]) | {"rules": "caesar@1"}


def test_the_hypnosia_examples_are_what_the_model_answers() -> None:
    from rules.reference import hypnosia
    from rules.reference.chacha import ChaCha8

    components = spec_schemas()
    start = hypnosia.initial({"players": 2, "first_player": "red"})
    after, effects = hypnosia.play(start, "6-2: h1+6 0.5^2")
    [state] = components["HypnosiaState"]["examples"]
    assert {key: state[key] for key in hypnosia.projection(after)} == hypnosia.projection(after)
    # null: the default board (states write it so, rather than spelt out)
    assert state["options"] == {"players": 2, "seats": [0, 3], "first_player": "red", "doubles_cross_bridges": True,
                                "board": None}
    assert state["rng"] == ChaCha8.from_u64(7).state()  # seed 7, first player and roll given: no word used
    assert components["HypnosiaEffects"]["examples"] == [effects]
    [setup] = components["HypnosiaSetup"]["examples"]
    # the model's options leave the default board out (the engine writes it as null)
    model_options = {key: value for key, value in setup["options"].items() if key not in ("seats", "board")}
    model_setup = hypnosia.initial(model_options | {"first_player": "red"})
    assert list(model_setup.seats) == setup["options"]["seats"] and setup["options"]["board"] is None
    finished = hypnosia.make_position({"players": 2}, {"red": ["h4", "centre", "centre", "centre"],
                                                       "blue": ["h1", "h2", "centre", "centre"]},
                                      None, None, ["red", "red", "blue", "blue", "red"], {"red": 0, "blue": 0})
    assert components["Outcome"]["examples"] == [hypnosia.outcome(finished)]
