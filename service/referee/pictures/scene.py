"""What a picture shows (`Scene`), and the caption every picture carries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["Gallery", "Scene", "caption", "title_of"]

#: A game's picture in the README (its picture module's `GALLERY`, drawn by `gallery`): the game's setup,
#: the game's seed, the seed of the moves' choice, the least number of plies, and what the last move's
#: effects must show (so that the picture shows the marks).
Gallery = tuple[dict[str, Any], int, int, int, Callable[[dict[str, Any]], bool]]


@dataclass(frozen=True)
class Scene:
    """What one picture shows.

    state: the state drawn, checked by the engine (for a viewer of a game with hidden information,
        that viewer's view of it);
    info: the game's static description (`engine.info()`), whose `board` is the geometry;
    outcome: the engine's outcome of the state (side to move, scores, winner);
    effects: what the move just played did (the `effects` of `play`), or None;
    legal: the legal moves to mark, or None;
    viewer: the player the picture is drawn for (orientation, hidden information), or None."""

    state: dict[str, Any]
    info: dict[str, Any]
    outcome: dict[str, Any]
    effects: dict[str, Any] | None = None
    legal: list[str] | None = None
    viewer: str | None = None


def title_of(name: str) -> str:
    return name[:1].upper() + name[1:]


def caption(outcome: Mapping[str, Any]) -> str:
    """One line about the game: who is to move (or who won, and how), and the scores."""
    scores = ", ".join(f"{title_of(player)} {score}" for player, score in outcome["scores"].items())
    if outcome["status"] == "finished":
        winner = outcome.get("winner")
        head = f"{title_of(winner)} wins" if winner else "Draw"
        how = outcome.get("decided_by")
        if how and how != "score":
            head += f" ({how.replace('_', ' ')})"
    else:
        head = f"{title_of(outcome['to_move'])} to move" if outcome.get("to_move") else "In play"
    return f"{head} · {scores}"
