"""The trust layer's rules and the service's edges, each on every route and input shape it governs, from
outside a live gunicorn with seal keys (Caesar! opaque): a rule tested on one route or one shape let a bug
planted on another pass the whole suite. The rules: a seal's key id is matched exactly (`K1` is not `k1`);
a position string is no state while keys are set; a result is written `same_as` only when it equals the
one it names; every picture carries its Content-Security-Policy; a key given twice is refused wherever it
is. Each test also sends the same requests unchanged and sees them served, so that a refusal is the rule's."""

from __future__ import annotations

import base64
import hashlib
import re

import orjson
import pytest

import referee
from helpers.keys import KEYS_OLD, KEYS_ROTATED
from helpers.live import Answer, exchange, request_bytes, send
from referee.codes import CODES

pytestmark = pytest.mark.live

GAMES = tuple(referee.games())
SECRETS = {"caesar": "caesar's secret, his alone", "pompey": "pompey's secret, his alone"}
JSON, NDJSON = "application/json", "application/x-ndjson"
#: Every route that takes a state: a body (or a batch item) of `{"state", ...}`, how it is sent.
STATE_ROUTES = ("play", "validate", "legal-moves", "view", "render", "suggest", "batch", "batch NDJSON", "batch/ndjson")


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"REFEREE_SEAL_KEYS": KEYS_ROTATED, "REFEREE_OPAQUE_STATES": "caesar"}


@pytest.fixture(scope="module")
def started(server) -> dict[str, dict]:
    """Each game's first state as the server answers it (sealed; Caesar!'s opaque), a legal move of it,
    the fields a request needs beside them (Caesar!'s player and secret) and a player to view it as."""
    games = {}
    for name in GAMES:
        opaque = name == "caesar"
        new = {"commitments": {player: referee.commitment(text) for player, text in SECRETS.items()}} if opaque else {}
        answer = orjson.loads(send(server, f"/v1/games/{name}/new", orjson.dumps(new)).body)
        mover = answer["outcome"]["to_move"]
        auth = {"player": mover, "secret": SECRETS[mover]} if opaque else {}
        secret = {"secret": auth["secret"]} if opaque else {}
        moves = orjson.loads(send(server, f"/v1/games/{name}/legal-moves",
                                  orjson.dumps({"state": answer["state"], **secret})).body)["moves"]
        player = mover if opaque else referee.game(name).info()["players"][-1]
        games[name] = {"state": answer["state"], "move": moves[0], "auth": auth, "player": player}
    return games


def route_request(game: str, route: str, state: bytes, start: dict) -> tuple[str, bytes, str]:
    """(path, body, media type) of `route` with `state` (JSON text, sent as it is) in its body, and the
    other fields of the game's `start` (`started`)."""
    auth = start["auth"]
    secret = {"secret": auth["secret"]} if auth else {}
    fields = {
        "legal-moves": secret,
        "view": {"player": start["player"], **secret},
        "render": {"legal": True, **auth},
        "suggest": {"level": 1, **auth},
    }.get(route, {"move": start["move"], **auth})
    more = b"," + orjson.dumps(fields)[1:-1] if fields else b""
    body = b'{"state":%b%b}' % (state, more)
    if route == "batch":
        return f"/v1/games/{game}/batch", b"[%b]" % body, JSON
    if route in ("batch NDJSON", "batch/ndjson"):
        return f"/v1/games/{game}/{route.split()[0]}", body + b"\n", NDJSON
    return f"/v1/games/{game}/{route}", body, JSON


def served(route: str, answer: Answer) -> bool:
    """Whether the request was taken: a 200, and for a batch its one item judged."""
    if answer.status != 200:
        return False
    if route.startswith("batch"):
        [result] = batch_results(route, answer)
        return "legal" in result
    return True


def batch_results(route: str, answer: Answer) -> list[dict]:
    if route == "batch":
        return orjson.loads(answer.body)["results"]
    return [orjson.loads(line) for line in answer.body.splitlines()]


def refusal(route: str, answer: Answer) -> dict:
    """The problem of a refused request: the answer's (problem+json, its status the code's), or for a
    batch its one item's error (the batch itself answered 200)."""
    if route.startswith("batch"):
        assert answer.status == 200, answer.body[:300]
        [result] = batch_results(route, answer)
        assert set(result) == {"index", "error"}, result
        return result["error"]
    problem = orjson.loads(answer.body)
    assert answer.headers["content-type"] == "application/problem+json", answer.body[:300]
    assert answer.status == problem["status"] == CODES[problem["code"]].status
    return problem


# ------------------------------------------------------------------ a seal's key id is matched exactly


def other_case(sealed: str) -> str:
    """A seal (`k2.MAC`) or an opaque state (`k2.BYTES`) naming its key in upper case, the rest unchanged."""
    key_id, rest = sealed.split(".", 1)
    assert key_id != key_id.upper()
    return f"{key_id.upper()}.{rest}"


def older_start(game: str) -> dict:
    """As `started`, but a state of the older key (`k1`, second of the server's keys), made by the
    embedding API with that key alone."""
    keys = referee.SealKeys(KEYS_OLD, opaque=["caesar"])
    engine = referee.game(game, seal_keys=keys)
    if game != "caesar":
        state = engine.new(seed=5)
        return {"state": state, "move": engine.legal_moves(state)[0], "auth": {},
                "player": engine.info()["players"][-1]}
    state = engine.new(commitments={player: referee.commitment(text) for player, text in SECRETS.items()})
    mover = engine.outcome(state)["to_move"]
    auth = {"player": mover, "secret": SECRETS[mover]}
    return {"state": state, "move": engine.legal_moves(state, secret=SECRETS[mover])[0], "auth": auth,
            "player": mover}


@pytest.mark.parametrize("route", STATE_ROUTES)
@pytest.mark.parametrize("key", ["k2", "k1"])
@pytest.mark.parametrize("game", GAMES)
def test_a_key_id_in_another_case_is_unknown(server, started, game, key, route) -> None:
    """`K2` and `K1` name no key of `k2,k1`: a state whose seal (or opaque form) names its key in upper
    case is refused, though its MAC is that key's and matches (a comparison ignoring case took it); for
    the first key, which seals, and an older one, which only verifies. (The engine looks a key up in one
    place, `SealKeys::find`, for seals and opaque states alike; a generator's `keyed_by` is inside the
    sealed form, so a changed one is a mismatch before it is looked up.)"""
    start = started[game] if key == "k2" else older_start(game)
    state = start["state"]
    field = "opaque" if game == "caesar" else "seal"
    changed = state | {field: other_case(state[field])}
    for value, taken in [(state, True), (changed, False)]:
        path, body, media = route_request(game, route, orjson.dumps(value), start)
        answer = send(server, path, body, media)
        assert served(route, answer) is taken, (value is state, answer.body[:300])
    problem = refusal(route, answer)
    assert problem["code"] == "invalid-seal" and problem["field"] == "state.seal", problem
    assert problem["detail"].startswith(f'unknown key id: "{key.upper()}"'), problem


# ------------------------------------------------------------------ no position string while keys are set


@pytest.mark.parametrize("route", STATE_ROUTES)
@pytest.mark.parametrize("game", GAMES)
def test_a_position_string_is_refused_on_every_route_while_keys_are_set(server, started, game, route) -> None:
    """Notation carries no seal: with keys, every route refuses a state given as a position string (it
    was checked from Python on `legal-moves` alone). The engine refuses it in two places: the reader of
    the routes that take Python objects (`legal-moves`, `view`, `render`) and the one of the routes that
    take bytes (`play`, `validate`, each batch's items)."""
    plain = referee.game(game)
    position = plain.position(plain.new(seed=1))
    path, body, media = route_request(game, route, orjson.dumps(position), started[game])
    problem = refusal(route, send(server, path, body, media))
    assert problem["code"] == "invalid-seal" and problem["field"] == "state.seal", problem
    assert "position string" in problem["detail"], problem


# ------------------------------------------------------------------ `same_as` only for equal results


def expanded(lines: list[dict]) -> list[dict]:
    """A streamed answer's results with every `{"index": N, "same_as": M}` replaced by result M (written in
    full before it) under index N."""
    results: list[dict] = []
    for index, line in enumerate(lines):
        assert line["index"] == index
        if "same_as" in line:
            assert set(line) == {"index", "same_as"} and line["same_as"] < index, line
            named = results[line["same_as"]]
            assert "same_as" not in lines[line["same_as"]], "a result names one written in full"
            line = named | {"index": index}
        results.append(line)
    return results


def equal_length_pairs(state: dict) -> list[dict]:
    """Items in pairs whose results differ but are written with the same length (legal moves to states of
    equal length, malformed and illegal moves, seals of unknown keys), then pairs that fail alike."""
    seal = state["seal"]
    pairs = [("e4", "d4"), ("zz", "zy"), ("a1", "b1")]
    items = [{"state": state, "move": move} for pair in pairs for move in pair]
    items += [{"state": state | {"seal": f"k9.{seal[3:]}"}, "move": "e4"},
              {"state": state | {"seal": f"k8.{seal[3:]}"}, "move": "e4"}]
    items += [{"state": 5, "move": "e4"}, {"state": 5, "move": "e4"}, {"state": state, "move": "zz"}] * 2
    return items


@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("path", ["/v1/games/iago/batch", "/v1/games/iago/batch/ndjson"])
def test_a_streamed_result_is_written_same_as_only_when_it_is_equal(server, started, path, with_state) -> None:
    """A streamed batch writes a result `{"index", "same_as"}` when it equals the last one written in
    full: every result, expanded, is what the JSON batch answers for the same items, including results
    that differ at equal length (a comparison of lengths wrote them `same_as`)."""
    items = equal_length_pairs(started["iago"]["state"])
    query = "?with_state=true" if with_state else ""
    whole = send(server, f"/v1/games/iago/batch{query}", orjson.dumps(items))
    assert whole.status == 200
    expected = orjson.loads(whole.body)["results"]
    ndjson = b"".join(orjson.dumps(item) + b"\n" for item in items)
    answer = send(server, path + query, ndjson, NDJSON)
    assert answer.status == 200
    lines = [orjson.loads(line) for line in answer.body.splitlines()]
    assert expanded(lines) == expected
    assert any("same_as" in line for line in lines), "alike results are written short"
    for first in range(0 if with_state else 2, 8, 2):  # each pair differs, at the same length
        pair = [orjson.dumps({**result, "index": 0}) for result in expected[first:first + 2]]
        assert pair[0] != pair[1] and len(pair[0]) == len(pair[1]), pair
        assert "same_as" not in lines[first + 1]


# ------------------------------------------------------------------ every picture carries its policy


def style_policy(svg: str) -> str:
    """The policy a picture needs: nothing but its own style elements, by hash."""
    hashes = ["'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'"
              for style in re.findall(r"<style>(.*?)</style>", svg, flags=re.DOTALL)]
    assert hashes, "a picture has its style"
    return f"default-src 'none'; style-src {' '.join(hashes)}"


RENDER_SHAPES = ("state", "after a move", "legal moves marked", "for a player", "sized", "big body", "chunked")


@pytest.mark.parametrize("shape", RENDER_SHAPES)
@pytest.mark.parametrize("game", GAMES)
def test_every_picture_carries_its_content_security_policy(server, started, game, shape) -> None:
    """A picture opened on its own may only style itself, however it was asked for: each game, after a
    move, with legal moves, for a player, sized, from a body big enough to be drawn off the event loop,
    sent chunked (only `nosniff` was checked on this route)."""
    start = started[game]
    body = {"state": start["state"], **start["auth"]}
    body |= {"after a move": {"move": start["move"]}, "legal moves marked": {"legal": True},
             "for a player": {"player": start["player"]}, "sized": {"size": 300}}.get(shape, {})
    data = orjson.dumps(body)
    if shape == "big body":
        data = data[:-1] + b" " * 20_000 + b"}"  # over 16 KiB: read and drawn on the pool
    raw = request_bytes("POST", f"/v1/games/{game}/render", data, chunked=shape == "chunked")
    answer = exchange(server, raw)
    assert answer.status == 200 and answer.headers["content-type"].startswith("image/svg+xml"), answer.body[:300]
    assert answer.headers["content-security-policy"] == style_policy(answer.body.decode())
    assert answer.headers["x-content-type-options"] == "nosniff"


# ------------------------------------------------------------------ a key given twice, wherever it is


#: Where a key is given twice, as text put into a body: (shape, where in the object the text goes
#: (the body's outer object, or the object under its first key), the text, the path the refusal names).
MANY = ",".join(f'"k{index}":{index}' for index in range(100))
TWICE = [
    ("top level", "outer", b'"note":1,"note":2,', "note"),
    ("in a nested object", "inner", b'"note":1,"note":2,', "{inner}.note"),
    ("in an object in an array", "outer", b'"notes":[1,{"a":{"k":1}},{"a":{"k":1,"k":2}}],', "notes[2].a.k"),
    ("in an object in an array, nested", "inner", b'"notes":[[{"k":1,"x":{},"k":2}]],', "{inner}.notes[0][0].k"),
    ("spelled with an escape", "outer", b'"notes":[{"k\\u0061":1,"ka":2}],', "notes[0].ka"),
    ("among many keys", "outer", b'"notes":[{%b,"k50":0}],' % MANY.encode(), "notes[0].k50"),
    ("in a big body", "outer", b'"notes":[{"k":1,"k":2}],' + b" " * 20_000, "notes[0].k"),
]
#: Every route that reads JSON; a JSON batch with the key twice in its first item or its second, an NDJSON
#: one in its first line or its second.
ROUTES = ("play", "validate", "legal-moves", "view", "render", "suggest", "batch", "batch, second item", "batch NDJSON",
          "batch/ndjson, second line", "replay", "new")


def twice_in(body: bytes, where: str, text: bytes) -> bytes:
    """`body` (a JSON object whose first value is an object) with `text` put first in it, or first in
    its first value."""
    at = body.index(b"{", 1) + 1 if where == "inner" else 1
    return body[:at] + text + body[at:]


def route_body(route: str, state: dict, move: str) -> tuple[str, bytes, str, str]:
    """(path, body (of a batch: an item), how it is sent (`single`, `batch` or `batch NDJSON`), the name of
    the body's first key) of a valid request to `route`."""
    item = orjson.dumps({"state": state, "move": move})
    bodies = {
        "play": ("play", item), "validate": ("validate", item),
        "legal-moves": ("legal-moves", orjson.dumps({"state": state})),
        "view": ("view", orjson.dumps({"state": state, "player": "black"})),
        "render": ("render", orjson.dumps({"state": state, "legal": True})),
        "suggest": ("suggest", orjson.dumps({"state": state, "level": 1})),
        "replay": ("replay", b'{"options":{"penalty":false},"moves":["e4"]}'),
        "new": ("new", b'{"options":{"penalty":false}}'),
    }
    key = "options" if route in ("replay", "new") else "state"
    if route in bodies:
        name, body = bodies[route]
        return f"/v1/games/iago/{name}", body, "single", key
    kind = "batch NDJSON" if "ndjson" in route.lower() else "batch"
    return f"/v1/games/iago/{route.split(',')[0].split()[0]}", item, kind, key


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("shape", "where", "text", "path"), TWICE, ids=[shape for shape, *_ in TWICE])
def test_a_key_given_twice_is_refused_on_every_route_wherever_it_is(server, started, route, shape, where, text,
                                                                    path) -> None:
    """One rule for every body: a key given twice in one object is `malformed-json` naming its place, at
    the top, in the state (or the options), in an object inside an array at any depth, spelled with an
    escape, among many keys, in a body big enough to be read off the event loop; in a batch, in any item
    (JSON) or line (NDJSON). Without the repeated key each body is served."""
    start = started["iago"]
    url, body, kind, key = route_body(route, start["state"], start["move"])
    item = twice_in(body, where, text)
    assert orjson.loads(item), "the text is JSON but for its repeated key"
    second = route.endswith(("second item", "second line"))
    if kind == "batch NDJSON":
        good, sent = body + b"\n", (body + b"\n" if second else b"") + item + b"\n"
    elif kind == "batch":
        good, sent = b"[%b]" % body, b"[%b]" % b",".join([body, item] if second else [item])
    else:
        good, sent = body, item
    media = NDJSON if kind == "batch NDJSON" else JSON
    assert served(kind, send(server, url, good, media))
    problem = refusal("single", send(server, url, sent, media))
    assert problem["code"] == "malformed-json", problem
    assert problem["detail"].endswith("duplicate key at " + path.format(inner=key)), problem
    if kind == "batch NDJSON":
        assert problem["line"] == (2 if second else 1)
    elif kind == "batch":
        assert f"item {1 if second else 0}: duplicate key" in problem["detail"]
