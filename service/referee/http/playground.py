"""`GET /play/{game}`: the playground and replay viewer of a game. One self-contained page (inline CSS
and JavaScript, no external assets, no build step) that uses only the public HTTP API: it starts games
with `new`, plays clicks and typed moves with `play` (showing the reason of a refusal), lists
`legal-moves`, draws every position with `render`, and replays pasted records ply by ply."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from referee.http.api import GAMES, engine_of
from referee.http.pages import Page, built
from referee.pictures import STYLES, info_of, module_of

__all__ = ["playground"]

playground = Blueprint("playground", __name__)


def page(game: str) -> Response:
    engine_of(game)  # unknown games are a 404 problem
    return built(f"play/{game}", lambda: build(game)).response()


def build(game: str) -> Page:
    info = info_of(game)
    # A committed (opaque Caesar!) service draws each game's seed itself and refuses one given.
    pictures = module_of(game)
    config = {"game": game, "title": info["title"], "players": info["players"], "games": list(GAMES),
              "committed": engine_of(game).committed, "hint": pictures.PLAY_HINT}
    # The page shows the game's pictures, whose style elements its policy allows; their clicks are the
    # picture module's.
    page = render_template("play.html", config=config, title=info["title"], play_clicks=pictures.PLAY_CLICKS)
    return Page(page, styles=[STYLES[game]])


# Static paths for the known games (as the API's routes), and any other name answers `unknown-game`.
for _name in GAMES:
    playground.add_url_rule(f"/play/{_name}", view_func=page, defaults={"game": _name})
playground.add_url_rule("/play/<game>", view_func=page)
