"""The README's pictures, made by the code itself: `python -m referee.pictures.gallery docs/pictures`
writes one SVG a game, each a position reached by seeded play with its last move and the legal moves
marked. A test regenerates them and compares, so the committed files stay what the code draws."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import referee
from referee.pictures import module_of
from referee.pictures.scene import Gallery

__all__ = ["main"]



def scene(name: str) -> tuple[referee.Game, dict[str, Any], str]:
    """The state before the pictured move, and that move."""
    gallery: Gallery = module_of(name).GALLERY
    setup, seed, choice_seed, least, wanted = gallery
    game, rng = referee.game(name, **setup), random.Random(choice_seed)
    state, ply = game.new(seed=seed), 0
    while moves := game.legal_moves(state):
        move = rng.choice(moves)
        played = game.play(state, move)
        ply += 1
        if ply >= least and wanted(played["effects"]):
            return game, state, move
        state = played["state"]
    raise RuntimeError(f"no {name} move of that kind in the seeded game")


def pictures() -> dict[str, str]:
    """Each game's picture, by the file name it is written to."""
    drawn = {}
    for name in referee.games():
        game, state, move = scene(name)
        drawn[f"{name}.svg"] = game.svg(state, move=move, legal=True) + "\n"
    return drawn


def main(folder: str) -> None:
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    for file_name, svg in pictures().items():
        (target / file_name).write_text(svg, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/pictures")
