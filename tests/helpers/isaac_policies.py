"""Move choosers for seeded random Isaac games (reference tests and engine cross-checks).

Uniformly random games rarely score much, so some games are steered:

* ``uniform``: any legal move, uniformly.
* ``hero-black`` / ``hero-white``: the hero places horizontal pieces, the other player vertical ones,
  longest first (so the hero's rows are crossed by many pieces); in the scoring phase the hero removes its
  shortest removable pieces first, choosing piece and advance by a one-ply look at its next removal, while
  the other player removes its longest piece first without advancing (and so soon drops out, leaving its
  pieces on the board).  About one such game in six reaches 100.
* ``lazy``: random placements, then removals with advance 0 only: the game ends with both players out,
  usually on a tie decided by the unplaced pieces.

Each chooser takes the model module (so that callers importing it under different names agree), a
``random.Random``, the model position and its full legal-move list, and returns one of the moves.
"""

from __future__ import annotations

STYLES = ("uniform", "hero-black", "hero-white", "lazy")


def _length(model, move: str) -> int:
    return model.parse_move(move)[4]


def _advance(move: str) -> int:
    return int(move.split("+")[1])


def _place(model, rng, pos, moves, horizontal: bool) -> str:
    wanted = [m for m in moves if model.parse_move(m)[3] == horizontal] or moves
    longest = max(_length(model, m) for m in wanted)
    return rng.choice([m for m in wanted if _length(model, m) == longest])


def _hero_remove(model, rng, pos, moves) -> str:
    shortest = min(_length(model, m) for m in moves)
    best = None
    for move in moves:
        if _length(model, move) != shortest:
            continue
        nxt, _ = model.play(pos, move)
        if model.is_finished(nxt):
            return move  # reached 100
        # Our best removal next time, were it our turn again.
        again = model.Position(nxt.pieces, nxt.phase, pos.to_move, nxt.scores, nxt.first_to_pass,
                               nxt.passed, nxt.removed, nxt.first_player, nxt.scoring_starts)
        follow = max((model.removal_points(again, p)["points"] for p in model.removable_pieces(again)),
                     default=0)
        value = (_advance(move) + 0.5 * follow, rng.random())
        if best is None or value > best[0]:
            best = (value, move)
    return best[1]


def choose(model, style: str, rng, pos, moves: list[str]) -> str:
    if moves == ["pass"] or style == "uniform":
        return rng.choice(moves)
    if style == "lazy":
        if pos.phase == "placement":
            return rng.choice(moves)
        return rng.choice([m for m in moves if _advance(m) == 0])
    hero = style.split("-")[1]
    if pos.phase == "placement":
        return _place(model, rng, pos, moves, horizontal=(pos.to_move == hero))
    if pos.to_move == hero:
        return _hero_remove(model, rng, pos, moves)
    longest = max(_length(model, m) for m in moves)
    return rng.choice([m for m in moves if _length(model, m) == longest and _advance(m) == 0])
