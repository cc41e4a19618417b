"""Pictures of states: SVG drawn from each engine's own geometry (`GET /v1/games/{game}`'s `board`) and
the state itself, one module a game, named as the game (`referee.pictures.<game>`), each with the same
entry points `draw(scene) -> Svg`, `STYLE` and `GALLERY` (the README's picture), all built with
`referee.pictures.svg`.

Every element a move can name carries that name in notation (`data-cell="e5"`, `data-piece="c4-g4"`,
`data-unit="0.5"`, `data-border="HC-GA"`, `data-token="S60"`, ...), so a page can turn clicks into
moves. `render` is the one path of `game.svg`, `POST /v1/games/{game}/render` and `referee render`:
the engine checks the state, plays the move whose effects are to be marked, lists the legal moves and
makes the viewer's view, so a picture never shows anything the engine would not answer."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from types import ModuleType
from typing import Any, Callable, Mapping

from referee import _core
from referee.pictures.scene import Scene
from referee.pictures.svg import Svg, style_text

__all__ = ["MAX_SIZE", "MIN_SIZE", "STYLES", "info_of", "module_of", "render"]

#: The widths in pixels one may ask for (without one, a picture is as wide as its drawing: 470 to 1000).
MIN_SIZE, MAX_SIZE = 64, 4096


def module_of(game: str) -> ModuleType:
    """The picture module of a game: `referee.pictures.<game>`, one a game of the engine's list."""
    return import_module(f"referee.pictures.{game}")


DRAWINGS: dict[str, Callable[[Scene], Svg]] = {game: module_of(game).draw for game in _core.games()}
#: The text of every picture's style element, by game (a page that shows pictures allows them by hash).
STYLES: dict[str, str] = {game: style_text(module_of(game).STYLE) for game in _core.games()}


@cache
def info_of(game: str) -> dict[str, Any]:
    """A game's static description (`GET /v1/games/{game}`), made once a process: the one cache of it,
    for the API, the pages, the pictures and the reports. Read it, never change it."""
    return _core.Engine(game).info()


def render(engine: _core.Engine, state: Mapping[str, Any] | str, *, move: str | None = None, legal: bool = False,
           player: str | None = None, size: int | None = None, secret: str | None = None) -> str:
    """The SVG of `state`, or of the state after `move` with what the move did marked. `legal` marks the
    legal moves (never those of a hand the viewer may not see); `player` draws the picture for that
    player (their side at the bottom; Caesar!: the other hand hidden); `size` is the width in pixels.
    A committed state (Caesar! with `REFEREE_OPAQUE_STATES`) is drawn for one player only, with their
    `secret` (`player` defaults to the secret's owner; `move` needs the mover's), else `NotThisPlayer`.
    Raises the engine's errors: a bad state, an illegal move, an unknown player, a missing or wrong secret."""
    if size is not None and not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be {MIN_SIZE} to {MAX_SIZE} pixels, not {size}")
    seen = engine.scene(state if isinstance(state, str) else dict(state), move, player, legal, secret)
    scene = Scene(seen["shown"], info_of(engine.name), seen["outcome"], seen["effects"], seen["moves"], seen["viewer"])
    return DRAWINGS[engine.name](scene).document(size)
