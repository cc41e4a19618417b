"""The HTTP contract, generated from the code's own definitions: `python -m referee.contract` writes
`openapi.yaml` (a test fails when the committed file differs).

Its sources, each fact in one home:
- the shapes of each game's states, setups, effects and the shared outcome: JSON Schemas derived from
  the Rust types (`referee._core.json_schemas()`);
- the request envelopes: the marshmallow schemas of `referee.http.schemas`, with each game's own state,
  variant, options and player put in;
- the problem codes: `referee.codes`;
- the prose, the routes' shapes and the examples: `contract.yaml` beside this file, whose
  `x-game-paths`, `x-game-pages` and `x-game-schemas` are written once with `Game` placeholders (a page's
  path with `{name}`) and made once per game.
Each game gets its own typed operations (`/v1/games/iago/play` takes an `IagoMoveRequest`, operation
`iagoPlay`, tag `Iago`), so a client generated from the contract ties states, moves and results to
their game."""

from __future__ import annotations

import copy
from importlib import resources
from typing import Any

import yaml
from marshmallow import RAISE, Schema, fields, missing, validate

from referee import _core

from referee.http import schemas
from referee.codes import claim_code_schema, problem_code_schema

__all__ = ["COMPONENTS", "ENVELOPES", "PREFIXES", "document", "text"]

COMPONENTS = "#/components/schemas/"
#: Where the template names a game's own component: `{Game}State` is `IagoState` for Iago.
PLACEHOLDER = "{Game}"
#: The request envelopes of every game, by the name of their component (`Iago` + name).
ENVELOPES: dict[str, type[Schema]] = {
    "NewRequest": schemas.NewRequest,
    "LegalMovesRequest": schemas.LegalMovesRequest,
    "MoveRequest": schemas.MoveRequest,
    "ReplayRequest": schemas.ReplayRequest,
    "ViewRequest": schemas.ViewRequest,
    "RenderRequest": schemas.RenderRequest,
    "SuggestRequest": schemas.SuggestRequest,
    "BatchItem": schemas.BatchItem,
}
#: What a `player` field of a request means, on every route that has one.
PLAYER = (
    "The player announcing the move (or viewing). A player of the game who is not to move makes the move "
    "`not-your-turn` (a verdict of `validate`); a name that is no player of the game is `unknown-player`."
)
#: What each game's title is as a prefix of its components (the engine's, which names its schemas so).
PREFIXES: dict[str, str] = _core.SCHEMA_PREFIXES


def template() -> dict[str, Any]:
    return yaml.safe_load(resources.files("referee.contract").joinpath("contract.yaml").read_text())


def for_game(value: Any, prefix: str) -> Any:
    """A template value with its placeholders made the game's (`{Game}State` → `IagoState`)."""
    if isinstance(value, dict):
        return {for_game(key, prefix): for_game(item, prefix) for key, item in value.items()}
    if isinstance(value, list):
        return [for_game(item, prefix) for item in value]
    if isinstance(value, str):
        return value.replace(PLACEHOLDER, prefix)
    return value


def ref(name: str) -> dict[str, str]:
    return {"$ref": COMPONENTS + name}


def field_schema(field: fields.Field) -> dict[str, Any]:
    """The JSON Schema of a marshmallow field of the envelopes (the kinds they use)."""
    if isinstance(field, schemas.Seed):
        return ref("Seed")
    if isinstance(field, fields.List):
        schema: dict[str, Any] = {"type": "array", "items": field_schema(field.inner)}
    elif isinstance(field, fields.String):
        schema = {"type": "string"}
    elif isinstance(field, fields.Integer):
        schema = {"type": "integer"}
    elif isinstance(field, fields.Boolean):
        schema = {"type": "boolean"}
    elif isinstance(field, fields.Dict):
        schema = {"type": "object"}
        if field.value_field is not None:
            schema["additionalProperties"] = field_schema(field.value_field)
    else:
        raise TypeError(f"no JSON Schema for {type(field).__name__}")
    for rule in field.validators:
        if isinstance(rule, validate.Length):
            names = ("minProperties", "maxProperties") if schema["type"] == "object" else ("minLength", "maxLength")
            schema |= {name: bound for name, bound in zip(names, (rule.min, rule.max)) if bound is not None}
        elif isinstance(rule, validate.Range):
            schema |= {"minimum": rule.min, "maximum": rule.max}
        elif isinstance(rule, validate.Regexp):
            schema["pattern"] = rule.regex.pattern
    if isinstance(field, schemas.Bounded):  # the service's bounds, not the engine's type's
        schema |= {"minimum": field.minimum, "maximum": field.maximum}
    if field.load_default is not missing and field.load_default is not None and not callable(field.load_default):
        schema["default"] = field.load_default
    return schema


def seed_schema() -> dict[str, Any]:
    """The contract's `Seed`: what `schemas.Seed` takes."""
    return {
        "description": (
            f"A game's seed: a whole number 0..{schemas.MAX_SEED} (2^53 − 1, exact in every client language), "
            "or a state's `rng.seed` as the state carries it (64 hexadecimal digits: a seed of 64 bits, "
            "little-endian, in the first 16, then zeros), so that a game the service seeded itself replays "
            "from its states."),
        "oneOf": [
            {"type": "integer", "minimum": 0, "maximum": schemas.MAX_SEED},
            {"type": "string", "pattern": schemas.SEED_HEX.pattern},
        ],
    }


def envelope(schema: type[Schema], prefix: str, game_schemas: dict[str, Any], game: str) -> dict[str, Any]:
    """A request envelope of one game (named `game`): the marshmallow schema's fields, with the game's own
    state, move, players and a record's fields. An envelope with a setup's fields (`variant`, `options`)
    takes them from the game's `Setup` (`allOf`), and its own fields beside them; `unevaluatedProperties`
    closes the whole, unless the envelope lets unknown fields pass (a record's metadata)."""
    setup = set(game_schemas["Setup"]["properties"])
    player = "Player" if "Player" in game_schemas else "Colour"
    own: dict[str, dict[str, Any]] = {"state": ref(prefix + "StateOrPosition"), "move": ref("Move"),
           "player": ref(prefix + player) | {"description": PLAYER},
           "result": ref("ClaimedResult"), "termination": ref("Termination"), "by": {"type": "string"},
           "game": {"type": "string", "enum": [game]}}
    envelope_fields = schema().fields
    properties: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    for name, field in envelope_fields.items():
        if name in setup:
            continue
        properties[name] = own.get(name) or field_schema(field)
        if "description" in field.metadata:
            properties[name] = properties[name] | {"description": field.metadata["description"]}
        if field.allow_none:
            properties[name] = {"anyOf": [properties[name], {"type": "null"}]}
        if field.required:
            required.append(name)
    closed = schema().unknown == RAISE
    if not setup & set(envelope_fields):
        whole = {"type": "object", "properties": properties, "required": required, "additionalProperties": not closed}
        if exclusive := getattr(schema, "EXCLUSIVE", ()):  # not all given (null is not given)
            whole["not"] = {"required": list(exclusive), "properties": {
                name: {"type": field_schema(envelope_fields[name])["type"]} for name in exclusive}}
        return whole
    assert setup <= set(envelope_fields), f"{schema.__name__} has part of a setup"
    return {"type": "object", "allOf": [ref(prefix + "Setup"), {"type": "object", "properties": properties,
                                                               "required": required}],
            "unevaluatedProperties": not closed}


def game_components(name: str, prefix: str, derived: dict[str, Any], shape: dict[str, Any]) -> dict[str, Any]:
    """Every component of one game: its derived types, its envelopes and its answers."""
    own = derived[name]
    components = {prefix + key: value for key, value in own.items()}
    # A setup is the part of a request that the envelope closes (see `envelope`), never sent alone.
    components[prefix + "Setup"] = {key: value for key, value in own["Setup"].items() if key != "additionalProperties"}
    components |= {prefix + key: envelope(schema, prefix, own, name) for key, schema in ENVELOPES.items()}
    components |= for_game(shape["x-game-schemas"], prefix)
    if prefix + "View" not in shape["components"]["schemas"]:
        components[prefix + "View"] = ref(prefix + "State")
    return components


def game_paths(name: str, prefix: str, shape: dict[str, Any]) -> dict[str, Any]:
    """The routes of one game, typed with its components, with the examples the template has for it."""
    examples = shape["x-examples"]["paths"].get(name, {})
    paths = {}
    for suffix, item in shape["x-game-paths"].items():
        item = for_game(item, prefix)
        for method, operation in item.items():
            if method == "parameters":
                continue
            operation["operationId"] = name + operation["operationId"][0].upper() + operation["operationId"][1:]
            operation["tags"] = [prefix]
            add_examples(operation, examples.get(suffix.strip("/") or "info", {}))
        paths[f"/v1/games/{name}{suffix}"] = item
    for path, item in for_game(shape["x-game-pages"], prefix).items():
        for operation in item.values():
            operation["operationId"] = name + operation["operationId"][0].upper() + operation["operationId"][1:]
            operation["tags"] = [prefix]
        paths[path.replace("{name}", name)] = item
    return paths


#: The bounds of a 32-bit signed integer.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def integer_formats(value: Any) -> None:
    """Gives every integer schema under `value` the format generators type it by: `int32` when both its
    bounds are within 32 bits, else `int64` (schemars writes Rust's `uint8`..`uint64`, which generators do
    not know and type as 32 bits). Examples are data, left as they are."""
    if isinstance(value, dict):
        kinds = value.get("type")
        if kinds == "integer" or isinstance(kinds, list) and "integer" in kinds:
            low, high = value.get("minimum"), value.get("maximum")
            fits = isinstance(low, int) and isinstance(high, int) and INT32_MIN <= low and high <= INT32_MAX
            value["format"] = "int32" if fits else "int64"
        for key, item in value.items():
            if key not in ("example", "examples"):
                integer_formats(item)
    elif isinstance(value, list):
        for item in value:
            integer_formats(item)


def add_examples(operation: dict[str, Any], examples: dict[str, Any]) -> None:
    for slot, example in examples.items():
        if slot == "request":
            content = operation["requestBody"]["content"]
        else:
            content = operation["responses"][slot]["content"]
        next(iter(content.values()))["example"] = example


def document() -> dict[str, Any]:
    """The whole contract."""
    shape = template()
    derived = _core.json_schemas()
    doc = {key: value for key, value in copy.deepcopy(shape).items() if not key.startswith("x-")}
    # The package's version, whose one home is rust_core/Cargo.toml (docs/compatibility.md).
    doc["info"] = {"title": doc["info"].pop("title"), "version": _core.__version__} | doc["info"]
    components = doc["components"]["schemas"]
    components["ProblemCode"] = problem_code_schema()
    components["Seed"] = seed_schema()
    components["ClaimCode"] = claim_code_schema()
    components |= derived["common"]
    listing, operations = "/v1/games", doc.pop("paths")
    doc["paths"] = {listing: operations.pop(listing)}  # the games first, then each game's routes
    for name in _core.games():
        prefix = PREFIXES[name]
        components |= game_components(name, prefix, derived, shape)
        doc["paths"] |= game_paths(name, prefix, shape)
    doc["paths"] |= operations
    for item in doc["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "responses" in operation:
                # Any request may find its worker's budget full, or its client's share of it (`referee.http.budget`).
                operation["responses"].setdefault("503", {"$ref": "#/components/responses/Busy"})
                operation["responses"].setdefault("429", {"$ref": "#/components/responses/TooManyRequests"})
    for component, examples in shape["x-examples"]["components"].items():
        components[component]["examples"] = examples
    integer_formats(doc)
    return doc


class Dumper(yaml.SafeDumper):
    """Block-style YAML, with multi-line text as literal blocks."""


Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None))


def text() -> str:
    header = "# Generated by `python -m referee.contract` from the code's definitions; do not edit by hand.\n"
    return header + yaml.dump(document(), Dumper=Dumper, sort_keys=False, allow_unicode=True, width=110)
