"""`replay` reads its record natively (the archives' reader: no Python object of the body), and checks the
envelope there: it must refuse exactly what the service's ReplayRequest schema refuses, with the same
fields and messages in the same order, so that the schema stays the contract's definition."""

from __future__ import annotations

import json
from hypothesis import given, strategies as st
from marshmallow import ValidationError

from helpers.properties import Branches, examples
from referee.http.app import create_app
from referee.http.schemas import ReplayRequest, malformed
from referee.http.settings import Settings

LIMIT = 6
CLIENT = create_app(Settings(access_log=False, max_replay_moves=LIMIT)).test_client()
#: What the engine refuses after the envelope: the route's game, the claim's fields.
AFTER_THE_ENVELOPE = {"game", "result", "termination", "by"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from([1.5, 3.0, -0.0]) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)
commitment = st.sampled_from(["a" * 64, "a" * 64 + "\n", "A" * 64, "a" * 63, ""]) | json_values
records = st.fixed_dictionaries(
    {},
    optional={
        "variant": st.sampled_from(["standard", "simple", "", "v" * 65, "é" * 64]) | json_values,
        "options": st.just({}) | st.just({"penalty": True}) | json_values,
        "seed": st.sampled_from([7, 7.0, 2**53 - 1, 2**53, 2**64, -1, 1e300, True, "07" + "0" * 62, "zz", None])
        | json_values,
        "commitments": st.dictionaries(st.sampled_from(["black", "white", "x"]), commitment, max_size=3)
        | st.just({f"p{index}": index for index in range(17)}) | json_values,
        "moves": st.lists(st.sampled_from(["e4", "e6", "", "x" * 257]) | json_values, max_size=LIMIT + 2)
        | json_values,
        "game": st.sampled_from(["iago", "isaac"]) | json_values,
        "result": json_values,
        "termination": st.sampled_from(["normal", "resignation"]) | json_values,
        "by": json_values,
        "metadata": json_values,
    },
)

# good envelopes: the branch where both checks must accept
good_records = st.fixed_dictionaries(
    {"moves": st.lists(st.sampled_from(["e4", "e6", "d3"]), max_size=3)},
    optional={"variant": st.sampled_from(["standard", "simple"]), "seed": st.sampled_from([7, 7.0, None]),
              "commitments": st.just({"black": "a" * 64}), "game": st.just("iago"), "termination": json_values,
              "metadata": json_values},
)


def schema_errors(record) -> list[dict[str, str]]:
    """The errors the route gave with the schema: the move count first, then the schema's."""
    if not isinstance(record, dict):
        return [{"field": "body", "message": "not a JSON object"}]
    moves = record.get("moves")
    if isinstance(moves, list) and len(moves) > LIMIT:
        return [{"field": "moves", "message": f"longer than {LIMIT}"}]
    try:
        ReplayRequest().load(record)
        return []
    except ValidationError as error:
        return malformed(error).data["errors"]


def test_the_native_replay_envelope_agrees_with_the_marshmallow_schema() -> None:
    branches = Branches()

    @examples(400)
    @given(record=records | good_records | json_values)
    def check(record) -> None:
        # json, not orjson, which refuses a seed of 2**64
        answer = CLIENT.post("/v1/games/iago/replay", data=json.dumps(record), content_type="application/json")
        expected = schema_errors(record)
        problem = answer.get_json()
        if expected:
            assert (answer.status_code, problem["code"]) == (400, "malformed-request"), problem
            assert problem["errors"] == expected
            if expected[0]["message"] != f"longer than {LIMIT}":
                assert problem["detail"] == "; ".join(f"{e['field']}: {e['message']}" for e in expected)
            branches("refused")
        else:  # a good envelope: what follows is the engine's answer about the game, setup and claim
            assert answer.status_code in (200, 400, 422), problem
            fields = {error["field"] for error in problem.get("errors", [])}
            assert problem.get("code") != "malformed-request" or fields <= AFTER_THE_ENVELOPE, problem
            branches("accepted")

    check()
    branches.assert_share("accepted", 0.15)
