"""The move routes, `POST /v1/games/{game}/play` and `POST /v1/games/{game}/validate`: a plain WSGI app
beside Flask (as Flask's guide to application dispatching puts one), the one owner of these paths. It
answers every request to them: any spelling of the JSON media type, every refusal, `OPTIONS` and the
methods they do not take, as the Flask routes answer theirs.

They are the hot path, where Flask's dispatch (request context, URL matching, a response object) cost
more than the engine's answer: ~90 µs of a ~200 µs `play` under gunicorn, against 3–15 µs for the engine.
Here the engine takes the body's bytes and answers bytes, checking the envelope as `MoveRequest` does
(a test holds the two together), without a Python object between. What every request gets is the same
as on any route: its body read whole first (`referee.http.body.Bodies`), its id, metrics and access-log line
(`referee.http.observe`), big bodies worked on off the event loop (`referee.http.offload`)."""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterable

from referee import _core

from referee.http import offload
from referee.http.api import v1
from referee.http.body import JSON, StartResponse, body_of
from referee.errors import RefereeError
from referee.http.logs import REQUEST_ID_KEY
from referee.http.observe import ROUTE_KEY
from referee.http.problems import Problem, internal_error, method_not_allowed, options_answer, unknown_game

__all__ = ["ENDPOINTS", "MoveRoute", "MoveRoutes"]

log = logging.getLogger("referee.http")

#: Where the routes are: `{PREFIX}{game}/{endpoint}`.
PREFIX = f"{v1.url_prefix}/games/"
#: The engine's call answering each endpoint's body.
ENDPOINTS: dict[str, Callable[[_core.Engine], Callable[[bytes], bytes]]] = {
    "play": lambda engine: engine.play_json,
    "validate": lambda engine: engine.validate_json,
}
#: The methods the routes take (every other is 405).
ALLOWED = ("POST", "OPTIONS")


def request_path(environ: dict[str, Any]) -> str:
    """The path as werkzeug reads it (`Request.path`): UTF-8 (the WSGI string is its bytes as Latin-1),
    with one leading slash."""
    path: str = environ.get("PATH_INFO", "")
    return "/" + path.encode("latin-1").decode(errors="replace").lstrip("/")


class MoveRoute:
    """One game's `play` or `validate`, a WSGI app: a known game's, or any other name's (`call` None),
    which answers `unknown-game`. `label`: the route's pattern in the metrics."""

    def __init__(self, label: str, call: Callable[[bytes], bytes] | None, game: str) -> None:
        self.label = label
        self.call = call
        self.game = game

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method = environ["REQUEST_METHOD"].upper()
        if method != "POST":
            return self.other_method(method, environ, start_response)
        environ[ROUTE_KEY] = self.label
        request_id = environ.get(REQUEST_ID_KEY)
        try:
            if self.call is None:
                raise unknown_game(self.game)
            body = body_of(environ, JSON)
            answer = offload.run(self.call, body, size=len(body))
        except RefereeError as error:
            problem = Problem.from_engine(error)
        except Problem as refusal:
            problem = refusal
        except Exception:  # noqa: BLE001 - a bug: answered as every route answers one
            problem = internal_error(log, "unhandled error", request_id)
        else:
            start_response("200 OK", [("Content-Type", JSON), ("Content-Length", str(len(answer)))])
            return [answer]
        return problem.response(request_id)(environ, start_response)

    def other_method(self, method: str, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if method == "OPTIONS":
            environ[ROUTE_KEY] = self.label
            return options_answer(ALLOWED)(environ, start_response)
        environ[ROUTE_KEY] = self.label  # a known route refusing a method is counted as that route
        answer = method_not_allowed(method, request_path(environ), ALLOWED, environ.get(REQUEST_ID_KEY))
        return answer(environ, start_response)


class MoveRoutes:
    """The move routes of an app's engines, found by path: each known game's at a path of its own (a dict
    lookup), any other name's through the pattern `{PREFIX}<game>/{endpoint}`, matched as werkzeug
    matches the Flask routes' (a name any text without a slash); a path with leading slashes doubled is
    none of them (`referee.http.app.Dispatcher` answers it 404)."""

    def __init__(self, engines: dict[str, _core.Engine]) -> None:
        # The app's engines, taken once: they are made with the app and never replaced.
        self.routes = {
            f"{PREFIX}{name}/{endpoint}": MoveRoute(f"{PREFIX}{name}/{endpoint}", call_of(engine), name)
            for name, engine in engines.items()
            for endpoint, call_of in ENDPOINTS.items()
        }

    @property
    def labels(self) -> list[str]:
        """The routes' patterns, as the metrics count them."""
        return [*self.routes, *(f"{PREFIX}<game>/{endpoint}" for endpoint in ENDPOINTS)]

    def route(self, path: str) -> MoveRoute | None:
        """The route of a request's `PATH_INFO`, if it is one of these."""
        route = self.routes.get(path)
        if route is not None or not path.startswith(PREFIX):
            return route
        game, _, endpoint = path[len(PREFIX):].partition("/")
        if not game or endpoint not in ENDPOINTS:
            return None
        name = game.encode("latin-1").decode(errors="replace")  # as werkzeug hands a view its argument
        return MoveRoute(f"{PREFIX}<game>/{endpoint}", None, name)
