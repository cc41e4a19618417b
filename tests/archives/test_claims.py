"""Claims: records of every game, with metadata and every kind of claim and termination (claims.py), get
the verdict the rules give them worked out from the reference models' outcomes, through each path that
judges claims — an archive (`referee.replay_records`, `referee validate`), `game.replay`, and
`POST /v1/games/{game}/replay` on a live gunicorn — which all answer alike."""

from __future__ import annotations

import collections
import json

import orjson
import pytest

import referee
from helpers.claims import claimed_records, expected_verdict, verdict_of
from helpers.live import post
from referee import cli
from referee.codes import CLAIM_CODES


def ndjson(records) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


@pytest.fixture(scope="module")
def archived() -> list[tuple[dict, dict]]:
    """Every claimed record with its result from the archive path."""
    records = claimed_records()
    results = [orjson.loads(line) for line in referee.replay_records(ndjson(records)).splitlines()]
    return list(zip(records, results, strict=True))


def test_every_claim_of_every_game_gets_the_verdict_of_the_models(archived) -> None:
    kinds = collections.Counter()
    for record, result in archived:
        assert "error" not in result, (record, result)  # metadata of every kind passes
        assert result["id"] == record["id"]
        assert verdict_of(result) == expected_verdict(record), (record, result)
        kinds[record["game"], record.get("termination", "normal" if "result" in record else None)] += 1
    games = {game for game, _ in kinds}
    terminations = {"normal", "resignation", "timeout", "agreement", "abandoned", None}
    assert {(game, end) for game in games for end in terminations} <= set(kinds)
    assert games == set(referee.games())


def test_every_claim_code_is_given_and_defined_once(archived) -> None:
    """Each code the engine gives is in `referee.codes.CLAIM_CODES`, and each there is given, with facts."""
    given = collections.defaultdict(list)
    for _, result in archived:
        if result["claim"] == "disagrees":
            given[result["claim_reason"]["code"]].append(result["claim_reason"])
    assert set(given) == set(CLAIM_CODES)
    assert all(reason["detail"] for reasons in given.values() for reason in reasons)
    mismatch = given["claim-mismatch"][0]
    assert {"field", "claimed", "actual"} <= set(mismatch)
    assert {reason["field"] for reason in given["claim-mismatch"]} == {"result.winner", "result.scores", "result.ranking"}
    assert all("players" in reason for reason in given["claim-unknown-player"])
    assert all("to_move" in reason for reason in given["claim-not-over"])
    assert all("decided_by" in reason for reason in given["claim-over"])


def test_the_issue_cases_disagree_for_their_reason(archived) -> None:
    """Wrong winners and scores, a resignation after the end, a timeout won by whoever timed out, an
    abandoned game with a winner: each disagrees, for its own reason."""
    found = collections.defaultdict(set)
    for record, result in archived:
        claim, code, field = verdict_of(result)
        result_claim = record.get("result") or {}
        termination = record.get("termination")
        if termination in ("resignation", "timeout") and code == "claim-over":
            found["resignation or timeout after the end"].add(record["game"])
        if termination == "timeout" and result_claim.get("winner") == record.get("by") and "by" in record:
            assert (code, field) == ("claim-inconsistent", "result.winner") or code == "claim-illegal-moves"
            found["timeout won by who timed out"].add(record["game"])
        if termination == "abandoned" and result_claim.get("winner"):
            assert code in ("claim-inconsistent", "claim-illegal-moves")
            found["abandoned with a winner"].add(record["game"])
        if (code, field) == ("claim-mismatch", "result.winner"):
            found["wrong winner"].add(record["game"])
        if (code, field) == ("claim-mismatch", "result.scores"):
            found["wrong scores"].add(record["game"])
    assert {case: games for case, games in found.items()} == {case: set(referee.games()) for case in found}
    assert len(found) == 5


def test_game_replay_judges_claims_as_the_archive_does(archived) -> None:
    for record, result in archived[::5]:
        game = referee.game(record["game"], variant=record.get("variant"), options=record.get("options"))
        replayed = game.replay(record["moves"], seed=record["seed"], result=record.get("result"),
                               termination=record.get("termination"), by=record.get("by"))
        assert {key: replayed.get(key) for key in ("claim", "claim_reason")} == \
            {key: result.get(key) for key in ("claim", "claim_reason")}


def test_a_malformed_claim_is_no_record_and_says_what_is_wrong() -> None:
    base = {"game": "iago", "moves": ["e4"]}
    cases = [
        ({"result": "1-0"}, 'invalid type: string "1-0", expected a result'),
        ({"result": [None, None]}, "expected a result"),
        ({"result": {"winner": "white", "loser": "black"}}, "unknown field `loser`"),
        ({"result": {"scores": {}}}, "missing field `winner`"),
        ({"result": {"winner": "white", "scores": {"white": "72"}}}, 'invalid type: string "72"'),
        ({"termination": "resigned"}, "unknown variant `resigned`"),
        ({"termination": {"normal": None}}, "expected a termination (a string)"),
        ({"termination": "resignation", "by": 1}, "invalid type: integer `1`"),
    ]
    results = [orjson.loads(line) for line in referee.replay_records(ndjson(base | case for case, _ in cases)).splitlines()]
    for (case, detail), result in zip(cases, results, strict=True):
        assert result["error"]["code"] == "malformed-record"
        assert detail in result["error"]["detail"], (case, result)
    with pytest.raises(referee.errors.MalformedRequest) as refused:
        referee.game("iago").replay(["e4"], termination="resigned")  # type: ignore[arg-type]
    assert refused.value.data["errors"][0]["field"] == "termination"


def test_the_exit_status_and_the_summary_count_claims(tmp_path, capsys) -> None:
    """0 only when every record is legal and no claim disagrees; the summary line counts the claims."""
    path = tmp_path / "records.jsonl"
    agreeing = [{"game": "iago", "moves": ["e4"], "termination": "resignation", "by": "white",
                 "result": {"winner": "black"}}, {"game": "iago", "moves": ["e4"], "event": "club"}]
    path.write_text("".join(json.dumps(record) + "\n" for record in agreeing))
    assert cli.main(["validate", str(path), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]) == 0
    assert "2 legal, 0 illegal, 0 not records; claims: 1 agree, 0 disagree, 1 absent" in capsys.readouterr().err
    disagreeing = agreeing + [{"game": "iago", "moves": ["e4"], "result": {"winner": "black"}}]
    path.write_text("".join(json.dumps(record) + "\n" for record in disagreeing))
    assert cli.main(["validate", str(path), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]) == 1
    assert "3 legal, 0 illegal, 0 not records; claims: 1 agree, 1 disagree, 1 absent" in capsys.readouterr().err


# ------------------------------------------------------------------ the same claims over HTTP, live


@pytest.mark.live
def test_the_replay_route_judges_the_records_claims_as_the_archive_does(server, archived) -> None:
    """A record posted as an archive holds it (metadata, `game`, `id` and all) gets the archive's verdict
    on its claim: one record of each game and verdict code."""
    sample = {}
    for record, result in archived:
        sample.setdefault((record["game"], verdict_of(result)[:2]), (record, result))
    assert len(sample) > 20
    for record, result in sample.values():
        status, answer = post(server, f"/v1/games/{record['game']}/replay", record)
        assert status == 200, answer
        assert {key: answer.get(key) for key in ("legal", "plies", "position", "outcome", "claim", "claim_reason")} == \
            {key: result.get(key) for key in ("legal", "plies", "position", "outcome", "claim", "claim_reason")}


@pytest.mark.live
def test_the_replay_route_refuses_a_malformed_claim_and_another_games_record(server) -> None:
    status, problem = post(server, "/v1/games/iago/replay", {"moves": ["e4"], "result": {"winner": 1}})
    assert (status, problem["code"], problem["errors"][0]["field"]) == (400, "malformed-request", "result")
    status, problem = post(server, "/v1/games/iago/replay", {"moves": ["e4"], "termination": "resigned"})
    assert (status, problem["errors"][0]["field"]) == (400, "termination")
    status, problem = post(server, "/v1/games/iago/replay", {"game": "isaac", "moves": []})
    assert (status, problem["code"], problem["errors"][0]["field"]) == (400, "malformed-request", "game")
    status, answer = post(server, "/v1/games/iago/replay", {"game": "iago", "moves": [], "players": ["a", "b"]})
    assert (status, answer["claim"]) == (200, "absent")
