"""A stranger's client from the most used generator: OpenAPI Generator's `python` generator (pinned in the
`test` extra: PyPI's `openapi-generator-cli` bundles its jar, run on the Java that `make test` installs)
makes a client of `openapi.yaml` alone, and every request below goes through it to the live service
(gunicorn on loopback): a whole game of every game with both forms of a state, its replay, an illegal move
as a verdict and as a typed problem, every player's view, the picture, JSON and NDJSON batches, the game's
description and playground, the operations' routes and `/openapi.yaml`; and two whole games on a service
that keeps Caesar! opaque. The service counts what it serves (`/metrics`): each test checks that it served
exactly the requests the generated client sent, so a request that bypassed the client would show."""

from __future__ import annotations

import importlib
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import pytest

import referee
from helpers.live import serve
from helpers.pages import ROOT, Block, blocks, run_python
from referee.contract import PREFIXES

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
GENERATOR = Path(sys.executable).with_name("openapi-generator-cli")
#: Not openapi-python-client's `referee_client` (test_generated_client.py): both clients live in one session.
PACKAGE = "referee_og"
#: What the generator may warn about, and why it is no fault of the contract.
EXPECTED_WARNINGS = {
    "OpenAPI 3.1 support is still in beta": "said of every OpenAPI 3.1 document",
    "Failed to get the schema name: null": "said of an operation's inline response schema, in OpenAPI 3.0 too",
}
#: The generator writes its package only: no docs, no test stubs.
ONLY_CODE = "apiDocs=false,modelDocs=false,apiTests=false,modelTests=false"
SEEDS = {"hypnosia": 7, "caesar": 7}
MAX_PLIES = 3000
METRIC = re.compile(r'^referee_requests_total\{endpoint="([^"]*)",method="([^"]*)",status="\d+"\} (\S+)$', re.M)


def generator(*args: str) -> str:
    done = subprocess.run([str(GENERATOR), *args], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Any:
    """The generated client, made once for the module (the generator takes seconds, Java's start included)."""
    out = tmp_path_factory.mktemp("openapi-generator")
    # Its own check of the document first: no unused model, nothing it would recommend.
    assert "No validation issues detected." in generator("validate", "--recommend", "-i", str(SPEC))
    log = generator("generate", "-g", "python", "-i", str(SPEC), "-o", str(out), "--package-name", PACKAGE,
                    "--global-property", ONLY_CODE)
    warnings = [line for line in log.splitlines() if " WARN " in line or "ERROR" in line]
    unexpected = [line for line in warnings if not any(known in line for known in EXPECTED_WARNINGS)]
    assert warnings and not unexpected, unexpected
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class Clients:
    """Generated clients of one live service, each with its own connection pool, and the count of the requests
    they sent (method, path), to hold against what the service counts it served."""

    def __init__(self, package: ModuleType, base: str) -> None:
        self.package, self.base = package, base
        self.sent: Counter[tuple[str, str]] = Counter()
        self.served_before = self.served()

    def client(self) -> Any:
        client = self.package.ApiClient(self.package.Configuration(host=self.base))
        request = client.rest_client.request

        def counted(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            self.sent[method, urlsplit(url).path] += 1
            return request(method, url, *args, **kwargs)

        client.rest_client.request = counted
        return client

    def api(self, name: str, client: Any = None) -> Any:
        return getattr(self.package, name)(client or self.client())

    def served(self) -> Counter[tuple[str, str]]:
        """What the service counts it served, by path and method (its metrics, read with a generated client)."""
        text = self.package.OperationsApi(self.package.ApiClient(self.package.Configuration(host=self.base))).metrics()
        served: Counter[tuple[str, str]] = Counter()
        for endpoint, method, count in METRIC.findall(text):  # one line a status
            if endpoint != "/metrics":
                served[method, endpoint] += int(float(count))
        return served

    def assert_nothing_bypassed(self) -> None:
        served = self.served() - self.served_before
        assert self.sent and served == self.sent, (served, self.sent)


class Game:
    """One game's operations through the generated client: `call("play", MoveRequest(...))` is `iago_play`."""

    def __init__(self, clients: Clients, name: str, client: Any = None) -> None:
        self.package, self.name, self.prefix = clients.package, name, PREFIXES[name]
        self.api = clients.api(f"{self.prefix}Api", client)

    def call(self, operation: str, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.api, f"{self.name}_{operation}")(*args, **kwargs)

    def model(self, name: str) -> Any:
        """The game's generated model `name` (`MoveRequest` is `IagoMoveRequest`)."""
        return getattr(self.package, self.prefix + name)

    def seed(self) -> dict[str, Any]:
        return {"seed": self.package.Seed(SEEDS[self.name])} if self.name in SEEDS else {}


@pytest.mark.parametrize("name", referee.games())
def test_a_generated_client_plays_a_whole_game(package, server, name: str) -> None:
    clients = Clients(package, server.base)
    game, rng = Game(clients, name), random.Random(name)
    info = game.call("info")
    assert isinstance(info, package.GameInfo) and info.name == name
    assert "<html" in game.call("playground")

    started = game.call("new", game.model("NewRequest")(**game.seed()))
    assert isinstance(started.state.actual_instance, game.model("State"))
    players = list(started.outcome.scores)
    # Every answer's state is sent back as it is; the position form is wrapped once, as a string.
    state, position, moves, played = started.state, started.position, [], None
    for _ in range(MAX_PLIES):
        legal = game.call("legal_moves", game.model("LegalMovesRequest")(state=game.model("StateOrPosition")(position)))
        if not legal.moves:
            break
        move = rng.choice(legal.moves)
        played = game.call("play", game.model("MoveRequest")(state=state, move=move))
        assert isinstance(played.effects, game.model("Effects"))
        state, position = played.state, played.position
        moves.append(move)
    assert played is not None and played.outcome.status == "finished", f"{name}: no end in {MAX_PLIES} plies"

    replayed = game.call("replay", game.model("ReplayRequest")(moves=moves, **game.seed()))
    assert replayed.legal and replayed.plies == len(moves)
    assert replayed.state.to_dict() == state.to_dict()

    # The first move again, on the state it made: illegal, as a verdict and as a typed problem.
    first = game.call("play", game.model("MoveRequest")(state=started.state, move=moves[0]))
    again = game.model("MoveRequest")(state=first.state, move=moves[0])
    verdict = game.call("validate", again)
    assert verdict.legal is False and verdict.reason.code == "illegal-move"
    with pytest.raises(package.ApiException) as refused:
        game.call("play", again)
    problem = refused.value.data
    assert refused.value.status == 422 and isinstance(problem, package.Problem)
    assert problem.code == "illegal-move" and problem.rule and problem.detail

    # A game without hidden information shows the whole state (its view is its state).
    view_model = game.model("View") if name == "caesar" else game.model("State")
    for player in players:
        view = game.call("view", game.model("ViewRequest")(state=started.state, player=player))
        assert isinstance(view, view_model)
        if name == "caesar":
            assert hands_of(view) == [player]
        else:
            assert view.to_dict() == started.state.to_dict()

    items = [game.model("BatchItem")(state=started.state, move=moves[0]),
             game.model("BatchItem")(state=first.state, move=moves[0])]
    results = game.call("batch", items, with_state=True).results
    assert [result.legal for result in results] == [True, False]
    assert results[0].state.to_dict() == first.state.to_dict()
    lines = game.call("batch_ndjson", "".join(item.to_json() + "\n" for item in items), with_state=True)
    streamed = [game.model("BatchResult").from_json(line) for line in bytes(lines).decode().splitlines()]
    assert [result.to_dict() for result in streamed] == [result.to_dict() for result in results]

    picture = game.call("render", game.model("RenderRequest")(state=started.state, move=moves[0], legal=True))
    assert bytes(picture).decode() == referee.game(name).svg(started.position, move=moves[0], legal=True)
    clients.assert_nothing_bypassed()


def test_a_generated_client_reads_the_operations_and_the_contract(package, server) -> None:
    clients = Clients(package, server.base)
    games, operations = clients.api("GamesApi"), clients.api("OperationsApi")
    assert [game.name for game in games.list_games().games] == referee.games()
    assert operations.healthz().status == "ok"
    ready = operations.readyz()
    assert ready.status == "ready" and ready.games == referee.games()
    assert bytes(operations.openapi()) == SPEC.read_bytes()
    assert "<html" in operations.docs()
    clients.assert_nothing_bypassed()


class OpaquePlayer:
    """One side of an opaque Caesar! game: a generated client of its own that knows only its own secret and
    the state it was last handed (relayed by whoever: here the test)."""

    def __init__(self, clients: Clients, name: str) -> None:
        self.game, self.name = Game(clients, "caesar", clients.client()), name
        self.secret = f"{name}'s secret, known to {name} alone"

    def turn(self, state: Any, rng: random.Random) -> Any:
        legal = self.game.call("legal_moves", self.game.model("LegalMovesRequest")(state=state, secret=self.secret))
        move = rng.choice(legal.moves)
        played = self.game.call("play", self.game.model("MoveRequest")(state=state, move=move, secret=self.secret))
        assert hands_of(played.view) == [self.name], "the mover's view, never the other hand"
        return played

    def look(self, state: Any, player: str | None = None) -> Any:
        request = self.game.model("ViewRequest")(state=state, player=player or self.name, secret=self.secret)
        return self.game.call("view", request)


def hands_of(view: Any) -> list[str]:
    """Whose hand a view shows (`hands` has a property a player, set only for the viewer)."""
    return [player for player, hand in view.hands.to_dict().items() if hand is not None]


def test_a_generated_client_plays_two_opaque_caesar_games(package) -> None:
    """Two clients, each holding only its own secret, play two whole opaque games: one state relayed between
    them, each move and each look at a hand proved with the player's own secret; neither sees the other's
    hand, and each draws the picture of its own side."""
    from helpers.keys import KEYS_ROTATED

    with serve(REFEREE_SEAL_KEYS=KEYS_ROTATED, REFEREE_OPAQUE_STATES="caesar") as server:
        clients = Clients(package, server.base)
        players = {name: OpaquePlayer(clients, name) for name in ("caesar", "pompey")}
        commitments = {name: referee.commitment(player.secret) for name, player in players.items()}
        for number in range(2):
            started = players["caesar"].game.call("new", players["caesar"].game.model("NewRequest")(commitments=commitments))
            state, outcome, rng = started.state, started.outcome, random.Random(f"opaque {number}")
            assert isinstance(state.actual_instance, package.OpaqueState) and started.position is None
            for _ in range(MAX_PLIES):
                if outcome.status == "finished":
                    break
                played = players[outcome.to_move].turn(state, rng)
                state, outcome = played.state, played.outcome
                waiting = next(name for name in players if name != played.effects.player)
                assert hands_of(players[waiting].look(state)) == [waiting]
            assert outcome.status == "finished", f"no end in {MAX_PLIES} plies"
            for name, player in players.items():
                picture = player.game.call("render", player.game.model("RenderRequest")(state=state, secret=player.secret))
                assert bytes(picture).startswith(b"<svg")
            with pytest.raises(package.ApiException) as refused:
                players["caesar"].look(state, "pompey")
            problem = refused.value.data
            assert problem.code == "not-this-player" and problem.player == "pompey"
        clients.assert_nothing_bypassed()


def test_the_api_pages_example_runs_with_this_client(package, server) -> None:
    """docs/api.md's example for this client, as written (its refused move included), against the live server."""
    (block,) = [block for block in blocks(ROOT / "docs" / "api.md", "python") if "referee_og" in block.text]
    namespace: dict[str, Any] = {}
    run_python(Block(block.page, block.line, block.language, block.text.replace("http://localhost:8000", server.base)),
               namespace)
    assert namespace["played"].position and namespace["started"].state
