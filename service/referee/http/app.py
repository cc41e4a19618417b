"""The Flask application factory: the `/v1` API, operations endpoints, problems, request ids, logs
and metrics."""

from __future__ import annotations

import logging
import re
import secrets as randomness
from functools import cache
from importlib import resources
from typing import Any, Callable, Iterable

import yaml
from flask import Blueprint, Flask, Response, current_app, render_template, request
from flask.globals import request_ctx
from markupsafe import Markup, escape
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from referee import _core

from referee.http import logs, metrics
from referee._game import commitment
from referee.http.api import ENGINES_KEY, SPOOL_KEY, THINKERS_KEY, engines, json_response, v1
from referee.http.body import Bodies
from referee.http.budget import Budget
from referee.codes import CODES
from referee.http.logs import REQUEST_ID_KEY, request_id
from referee.http.moves import MoveRoutes
from referee.http.observe import ROUTE_KEY, Observed, RoutedRequest
from referee.http.pages import Page, built
from referee.pictures import info_of
from referee.http.playground import playground
from referee.http.problems import Problem, internal_error, method_not_allowed, options_answer
from referee.http.settings import Settings
from referee.http.thinking import Thinkers

__all__ = ["create_app"]

log = logging.getLogger("referee.http")
ops = Blueprint("ops", __name__)
#: Werkzeug's HTTP errors that can reach a client, as our codes (a body over the limit never reaches Flask:
#: referee.http.body refuses it first).
HTTP_CODES = {404: "not-found", 405: "method-not-allowed", 415: "unsupported-media-type"}


@cache
def openapi_text() -> bytes:
    return resources.files("referee.contract").joinpath("openapi.yaml").read_bytes()


@cache
def openapi_document() -> dict[str, Any]:
    return yaml.safe_load(openapi_text())


def self_test() -> list[str]:
    """Plays every legal first move of every game with the app's engines (sealing and checking seals, when
    the app has keys): a broken engine build fails here, not on traffic."""
    failures = []
    for name, engine in current_app.config[ENGINES_KEY].items():
        try:
            # A committed game proves its players with secrets: the self-test is both players, with secrets
            # of its own, fresh each time (they open nothing but this one test state).
            players = info_of(name)["players"] if engine.committed else []
            secrets = {player: randomness.token_urlsafe(24) for player in players}
            state = engine.new_state(None, None, {p: commitment(s) for p, s in secrets.items()} or None)
            secret = secrets.get(engine.outcome(state)["to_move"])
            moves = engine.legal_moves(state, False, secret)
            if not moves or any(engine.validate(state, move, None, secret)["legal"] is not True for move in moves):
                failures.append(name)
        except Exception:  # noqa: BLE001 - any failure means not ready
            log.exception("self-test of %s failed", name)
            failures.append(name)
    return failures


@ops.get("/healthz")
def healthz() -> Response:
    return json_response({"status": "ok", "version": _core.__version__})


@ops.get("/readyz")
def readyz() -> Response:
    failures = self_test()
    if failures:
        raise Problem("not-ready", f"engine self-test failed for {', '.join(failures)}", games=failures)
    return json_response({"status": "ready", "games": list(current_app.config[ENGINES_KEY])})


@ops.get("/metrics")
def prometheus() -> Response:
    body, content_type = metrics.exposition()
    return Response(body, content_type=content_type)


@ops.get("/openapi.yaml")
def openapi() -> Response:
    return Response(openapi_text(), mimetype="application/yaml")


@ops.app_template_filter("prose")
def prose(text: str | None) -> Markup:
    """Spec prose as HTML: escaped, with `backticks` as code."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text or ""))))


@ops.get("/docs")
def docs() -> Response:
    return built("docs", lambda: Page(render_template("docs.html", spec=openapi_document(), codes=CODES))).response()


class App(Flask):
    def make_default_options_response(self) -> Response:
        return options_answer(request_ctx.url_adapter.allowed_methods())  # type: ignore[union-attr]


def count_under_its_route(allowed: Iterable[str]) -> None:
    """A 405 is counted under the route that refused the method (Flask's match leaves it unmatched): the
    rule the path matches with a method it takes."""
    method = next(iter(allowed), None)
    if method is not None:
        rule, _ = request_ctx.url_adapter.match(method=method, return_rule=True)  # type: ignore[union-attr]
        request.environ[ROUTE_KEY] = rule.rule


class Dispatcher:
    """WSGI: each request to the app that owns its path: the move routes (`referee.http.moves`) theirs, Flask
    every other."""

    def __init__(self, moves: MoveRoutes, app: Callable[[dict[str, Any], Any], Iterable[bytes]]) -> None:
        self.moves = moves
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path.startswith("//"):  # werkzeug would merge the leading slashes: a path is matched as sent
            answer = Problem("not-found", f"no resource at {path.encode('latin-1').decode(errors='replace')}")
            return answer.response(environ.get(REQUEST_ID_KEY))(environ, start_response)
        route = self.moves.route(path)
        return (route or self.app)(environ, start_response)


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings.from_env()
    app = App(__name__)
    app.config["REFEREE"] = settings
    app.config[ENGINES_KEY] = engines(settings.seal_keys)
    app.config[SPOOL_KEY] = Budget(settings.worker_spool_bytes, "streamed answers in temporary files")
    app.config[THINKERS_KEY] = Thinkers()
    # A path is matched as it is: werkzeug's merging of doubled slashes answered a redirect built from
    # the client's `Host` header.
    app.url_map.merge_slashes = False
    _core.set_board_cache_bytes(settings.board_cache_bytes)
    logs.configure(settings.log_level)
    if settings.seal_keys is not None:
        log.info("seals on: key %s seals, keys %s verify", settings.seal_keys.ids[0], ", ".join(settings.seal_keys.ids))
        if settings.seal_keys.opaque:
            log.info("opaque states: %s", ", ".join(settings.seal_keys.opaque))
    app.register_blueprint(v1)
    app.register_blueprint(ops)
    app.register_blueprint(playground)

    app.request_class = RoutedRequest
    moves = MoveRoutes(app.config[ENGINES_KEY])
    metrics.configure([*(rule.rule for rule in app.url_map.iter_rules()), *moves.labels])
    memory = Budget(settings.worker_memory_bytes, "request bodies and answers in memory", settings.peer_memory_bytes)
    bodies = Bodies(Dispatcher(moves, app.wsgi_app), settings.max_body_bytes, settings.max_drain_bytes, memory,
                    settings.trusted_proxies, settings.peer_ipv6_prefix)
    app.wsgi_app = Observed(bodies, settings.access_log)  # type: ignore[method-assign]

    @app.errorhandler(Problem)
    def problem(error: Problem) -> Response:
        return error.response()

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        code = HTTP_CODES.get(error.code or 0)
        if code is None:  # other 4xx from werkzeug (e.g. a bad request line)
            response = Problem("malformed-request", error.description or "bad request").response()
            response.status_code = error.code or 400
            return response
        if isinstance(error, MethodNotAllowed):
            count_under_its_route(error.valid_methods or ())
            return method_not_allowed(request.method, request.path, error.valid_methods or [])
        detail = {
            "not-found": f"no resource at {request.path}",
            "unsupported-media-type": error.description or "unsupported media type",
        }[code]
        return Problem(code, detail).response()

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        return internal_error(log, "unhandled error", request_id()).response()

    return app
