"""A program using the embedding API for every game, for ``mypy --strict`` (tests/embedding/test_types.py): the
types of ``referee.types`` must carry it through without a cast or an ``Any``. It runs, too."""

from __future__ import annotations

import referee
from referee.types import (
    CaesarEffects,
    CaesarState,
    CaesarView,
    ClaimReason,
    HypnosiaEffects,
    HypnosiaState,
    IagoEffects,
    IagoSetup,
    IagoState,
    IsaacEffects,
    IsaacState,
    Outcome,
    Played,
    Reason,
    ReplayResult,
    Verdict,
)


def first_legal(game: referee.Game[IagoState, IagoEffects, IagoSetup, IagoState], state: IagoState) -> str:
    return game.legal_moves(state)[0]


def iago() -> list[str]:
    game = referee.game("iago", variant="standard", options={"penalty": True})
    state: IagoState = game.new()
    played: Played[IagoState, IagoEffects] = game.play(state, first_legal(game, state))
    effects: IagoEffects = played["effects"]
    verdict: Verdict = game.validate(state, "a1")
    reason: Reason | None = verdict.get("reason")
    replayed: ReplayResult[IagoState] = game.replay(["e4", "zz"])
    board: list[str] = replayed["state"]["board"]
    claimed: ReplayResult[IagoState] = game.replay(["e4"], result={"winner": "black"}, termination="resignation",
                                                   by="white")
    why: ClaimReason | None = claimed.get("claim_reason")
    return [effects["cell"], reason["rule"] if reason and "rule" in reason else "", board[0], game.setup["variant"],
            claimed["claim"], why["code"] if why else ""]


def isaac() -> list[str]:
    game = referee.game("isaac", options={"first_player": "white"})
    state: IsaacState = game.new()
    effects: IsaacEffects = game.play(state, "c4-g4")["effects"]
    outcome: Outcome = game.outcome(game.check(state))
    return [effects["kind"], state["phase"], str(outcome["scores"]["white"])]


def hypnosia() -> list[str]:
    game = referee.game("hypnosia", options={"players": 3, "first_player": "green"})
    state: HypnosiaState = game.new(seed=3)
    rolled = game.play(state, "5-4")["state"]
    moves = game.legal_moves(rolled)
    effects: HypnosiaEffects = game.play(rolled, moves[0])["effects"]
    die_moves = [f"{move['from']}>{move['to']}" for move in effects["moves"]]
    return [*die_moves, game.position(state), str(game.perft(state, 1))]


def caesar() -> list[str]:
    game = referee.game("caesar")
    state: CaesarState = game.new(seed=7)
    view: CaesarView = game.view(state, "caesar")
    played = game.play(state, game.legal_moves(state)[0])
    effects: CaesarEffects = played["effects"]
    results = game.validate_batch([{"state": state, "move": "S60@HU-HC"}])
    return [effects["token"], str(view["hand_sizes"]["pompey"]), str(results[0].get("legal"))]


def handles() -> list[float]:
    """A native position handle of each game: decisions by id, chance, undo, observations, returns."""
    totals: list[float] = []
    for name in ("iago", "isaac", "hypnosia", "caesar"):
        game = referee.game(name)
        pos: referee.Position = game.start(seed=3)
        while not pos.is_over() and pos.ply < 40:
            if pos.is_chance():
                outcomes: list[tuple[int, float]] = pos.chance_outcomes(ids=True)
                pos.push(outcomes[0][0])
            else:
                pos.push(pos.legal_actions()[-1])
        pos.pop()
        copy: referee.Position = pos.copy()
        key: int = copy.hash()
        text: str = game.move_of(pos.legal_actions()[0])
        assert game.action_of(text) == pos.legal_actions()[0]
        loaded = game.load(pos.state())
        returns: list[float] = loaded.rollout(1, count=2)
        totals.append(sum(returns) + key % 2 + len(text) + len(pos.information_state(pos.players[0])))
    return totals


def any_game(name: str) -> str:
    game = referee.game(name)  # a game known only at run time: its states are plain JSON objects
    return str(game.new()["rules"])


if __name__ == "__main__":
    print(iago(), isaac(), hypnosia(), caesar(), handles(), any_game("iago"))
