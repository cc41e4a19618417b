"""A stranger's client: generated from `openapi.yaml` alone with openapi-python-client, it plays a
whole game of every game against the live service (gunicorn on loopback), replays it to the same final
state, reads the typed reason of an illegal move, and (Caesar!) one player's view."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

import referee
from referee import _core
from helpers.live import serve
from helpers.pages import ROOT, Block, blocks, run_python

pytestmark = pytest.mark.live  # against a gunicorn of its own (tests/helpers/live.py)

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
#: The seed a generated client starts a game that draws with.
CLIENT_SEED = 7
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
#: What the generator may warn about: NDJSON batch bodies and the YAML of /openapi.yaml are content
#: types it does not support (the NDJSON batch, an operation of its own, is the one not generated; the
#: contract as YAML is generated, its answer's bytes are `sync_detailed(...).content`).
EXPECTED_WARNINGS = {
    **{f"WARNING parsing POST /v1/games/{game}/batch/ndjson within {game}. Endpoint will not be generated.":
       "NDJSON batch" for game in referee.games()},
    "WARNING parsing GET /openapi.yaml within operations.": "the contract as YAML",
    # The picture is `image/svg+xml`, a content type the generator does not read: the operation is still
    # generated, and its answer's bytes are `sync_detailed(...).content` (tested below).
    **{f"WARNING parsing POST /v1/games/{game}/render within {game}.": "the SVG picture" for game in referee.games()},
}
MAX_PLIES = 3000


@pytest.fixture(scope="module")
def client_package(tmp_path_factory) -> Any:
    out = tmp_path_factory.mktemp("client")
    done = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(SPEC), "--meta", "none", "--output-path", str(out / "referee_client")],
        capture_output=True, text=True, timeout=300, check=False,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "Unable to process schema" not in log and "removal of" not in log, log  # nothing dropped
    warnings = {line.strip() for line in log.splitlines() if line.startswith("WARNING")}
    assert warnings <= set(EXPECTED_WARNINGS), warnings - set(EXPECTED_WARNINGS)
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("referee_client")
    finally:
        sys.path.remove(str(out))


@pytest.fixture(scope="module")
def client(client_package) -> Any:
    with serve() as server:
        yield client_package.Client(base_url=server.base, raise_on_unexpected_status=True)


def operation(package: Any, game: str, route: str) -> Any:
    return importlib.import_module(f"referee_client.api.{game}.{game}_{route.replace('-', '_')}")


def model(package: Any, name: str) -> Any:
    return getattr(importlib.import_module("referee_client.models"), name)


@pytest.mark.parametrize("game", referee.games())
def test_a_generated_client_plays_a_whole_game(client_package, client, game) -> None:
    prefix, rng = _core.SCHEMA_PREFIXES[game], random.Random(game)
    call = lambda route, body: operation(client_package, game, route).sync(client=client, body=body)  # noqa: E731
    seed = CLIENT_SEED if referee.game(game).info()["chance"] else None  # a seed where a game draws
    new_request = model(client_package, f"{prefix}NewRequest")(seed=seed) if seed is not None else \
        model(client_package, f"{prefix}NewRequest")()
    started = call("new", new_request)
    assert isinstance(started.state, model(client_package, f"{prefix}State"))
    state, moves, played = started.state, [], None
    for _ in range(MAX_PLIES):
        legal = call("legal-moves", model(client_package, f"{prefix}LegalMovesRequest")(state=state)).moves
        if not legal:
            break
        move = rng.choice(legal)
        played = call("play", model(client_package, f"{prefix}MoveRequest")(state=state, move=move))
        assert isinstance(played.effects, model(client_package, f"{prefix}Effects"))
        state = played.state
        moves.append(move)
    assert played is not None and played.outcome.status.value == "finished", f"{game}: no end in {MAX_PLIES} plies"

    replay_request = model(client_package, f"{prefix}ReplayRequest")
    replayed = call("replay", replay_request(moves=moves, seed=seed) if seed is not None else replay_request(moves=moves))
    assert replayed.legal and replayed.plies == len(moves)
    assert replayed.state.to_dict() == state.to_dict()

    # The first move again, on the state it made: illegal (occupied, already rolled, no longer in hand).
    first = call("play", model(client_package, f"{prefix}MoveRequest")(state=started.state, move=moves[0]))
    verdict = call("validate", model(client_package, f"{prefix}MoveRequest")(state=first.state, move=moves[0]))
    assert verdict.legal is False
    assert verdict.reason.code.value == "illegal-move" and verdict.reason.rule and verdict.reason.detail


def test_a_generated_client_sees_one_players_view_of_caesar(client_package, client) -> None:
    started = operation(client_package, "caesar", "new").sync(
        client=client, body=model(client_package, "CaesarNewRequest")(seed=3))
    view = operation(client_package, "caesar", "view").sync(
        client=client, body=model(client_package, "CaesarViewRequest")(state=started.state, player=model(
            client_package, "CaesarPlayer")("pompey")))
    assert isinstance(view, model(client_package, "CaesarView"))
    assert list(view.hands.to_dict()) == ["pompey"]
    assert view.hand_sizes.caesar == len(started.state.hands.caesar)


def test_a_generated_client_gets_the_picture_of_a_state(client_package, client) -> None:
    """The render operation's SVG answer, as the bytes of the detailed response."""
    lenient = attrs.evolve(client, raise_on_unexpected_status=False)  # 200 is no status it parses
    started = operation(client_package, "isaac", "new").sync(client=client, body=model(client_package, "IsaacNewRequest")())
    body = model(client_package, "IsaacRenderRequest")(state=started.state, move="c4-g4", legal=True)
    answer = operation(client_package, "isaac", "render").sync_detailed(client=lenient, body=body)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    game = referee.game("isaac")
    assert answer.content.decode() == game.svg(game.new(), move="c4-g4", legal=True)


def commitments_model(package: Any) -> Any:
    """The generated model of `new`'s commitments (its name depends on how the generator names a nullable object)."""
    models = importlib.import_module("referee_client.models")
    (name,) = [name for name in dir(models) if name.startswith("CaesarNewRequestCommitments")]
    return getattr(models, name)


class OpaquePlayer:
    """One side of an opaque Caesar! game: a client of its own that knows only its own secret and the state
    it was last handed (relayed by whoever: here the test)."""

    def __init__(self, package: Any, client: Any, name: str) -> None:
        self.package, self.client, self.name = package, client, name
        self.secret = f"{name}'s secret, known to {name} alone"

    def call(self, route: str, body: Any) -> Any:
        return operation(self.package, "caesar", route).sync(client=self.client, body=body)

    def turn(self, state: Any, rng: random.Random) -> Any:
        legal = self.call("legal-moves", model(self.package, "CaesarLegalMovesRequest")(state=state, secret=self.secret))
        move = rng.choice(legal.moves)
        played = self.call("play", model(self.package, "CaesarMoveRequest")(state=state, move=move, secret=self.secret))
        assert list(played.view.hands.to_dict()) == [self.name], "the mover's view, never the other hand"
        return played

    def look(self, state: Any, player: str | None = None) -> Any:
        player = model(self.package, "CaesarPlayer")(player or self.name)
        return self.call("view", model(self.package, "CaesarViewRequest")(state=state, player=player, secret=self.secret))


def test_a_generated_client_plays_caesar_with_opaque_states(client_package) -> None:
    """Two clients, each holding only its own secret, play a whole opaque game: one state relayed between
    them, each move and each look at a hand proved with the player's own secret; neither can see the other's
    hand, and a state started with other commitments refuses them."""
    from helpers.keys import KEYS_ROTATED

    with serve(REFEREE_SEAL_KEYS=KEYS_ROTATED, REFEREE_OPAQUE_STATES="caesar") as server:
        client = client_package.Client(base_url=server.base, raise_on_unexpected_status=True)
        players = {name: OpaquePlayer(client_package, client, name) for name in ("caesar", "pompey")}
        commitments = commitments_model(client_package).from_dict(
            {name: referee.commitment(player.secret) for name, player in players.items()})
        started = players["caesar"].call("new", model(client_package, "CaesarNewRequest")(commitments=commitments))
        state, outcome, rng = started.state, started.outcome, random.Random("opaque")
        assert isinstance(state, model(client_package, "OpaqueState")) and not hasattr(started, "states")
        for _ in range(MAX_PLIES):
            if outcome.status.value == "finished":
                break
            played = players[outcome.to_move].turn(state, rng)
            state, outcome = played.state, played.outcome
            waiting = next(name for name in players if name != played.effects.player.value)
            assert list(players[waiting].look(state).hands.to_dict()) == [waiting]
        assert outcome.status.value == "finished", f"no end in {MAX_PLIES} plies"
        refused = players["caesar"].look(state, "pompey")
        assert refused.code.value == "not-this-player" and refused.detail.startswith("another player's"), refused
        # A game started with other commitments refuses caesar's secret.
        other = commitments_model(client_package).from_dict(
            {"caesar": referee.commitment("someone else's secret"), "pompey": referee.commitment(players["pompey"].secret)})
        theirs = players["caesar"].call("new", model(client_package, "CaesarNewRequest")(commitments=other))
        refused = players["caesar"].look(theirs.state)
        assert refused.code.value == "not-this-player" and refused.detail.startswith("wrong"), refused


def test_the_api_pages_example_runs_with_this_client(client_package) -> None:
    """docs/api.md's example for this client, as written, against a live server at its address."""
    (block,) = [block for block in blocks(ROOT / "docs" / "api.md", "python") if "referee_client" in block.text]
    namespace: dict[str, Any] = {}
    with serve() as server:
        text = block.text.replace("http://localhost:8000", server.base)
        run_python(Block(block.page, block.line, block.language, text), namespace)
    assert type(namespace["state"]).__name__ == "IagoState"  # as the page says
    assert namespace["played"].outcome.status == "ongoing" and namespace["played"].effects.captured == []


def test_the_bots_page_fills_an_empty_seat_with_this_client(client_package) -> None:
    """docs/bots.md's "Filling an empty seat", as written, against a live server at its address: a whole game
    of Caesar!, every move of the empty seat the service's suggestion, which `play` took."""
    (block,) = [block for block in blocks(ROOT / "docs" / "bots.md", "python") if "referee_client" in block.text]
    namespace: dict[str, Any] = {}
    with serve() as server:
        text = block.text.replace("http://localhost:8000", server.base)
        run_python(Block(block.page, block.line, block.language, text), namespace)
    assert namespace["outcome"].status == "finished" and namespace["outcome"].winner in ("caesar", "pompey")
    assert namespace["suggested"] and type(namespace["asked"]).__name__ == "CaesarSuggestRequest"
    assert all(isinstance(move, str) and "@" in move for move in namespace["suggested"])  # placements, in notation
