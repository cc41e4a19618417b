"""Every problem code, defined once: its HTTP status, its title and what it means. The service's
problems (`referee.http.problems`), the engine's exception classes (`referee.errors`, named after their
codes) and the contract's `ProblemCode` schema all come from this table.

Beside them, the codes of verdicts that are answers rather than problems: why a record's claim
disagrees with its moves (`CLAIM_CODES`, the contract's `ClaimCode`), and why a line of an archive is
no record (`RECORD_CODES`)."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["CODES", "CLAIM_CODES", "RECORD_CODES", "ProblemCode", "VerdictCode", "claim_code_schema",
           "problem_code_schema"]


class ProblemCode(NamedTuple):
    status: int
    title: str
    meaning: str


CODES: dict[str, ProblemCode] = {
    "malformed-json": ProblemCode(
        400, "The body is not valid JSON",
        "The body (or an NDJSON line) is not JSON that the engine's reader takes (numbers that fit a double, "
        "no lone surrogate, at most 128 levels of nesting), or is empty."),
    "malformed-request": ProblemCode(
        400, "The request does not have the expected shape",
        "The request's envelope does not have the expected shape; `errors` lists the fields."),
    "malformed-http": ProblemCode(
        400, "The request is not valid HTTP/1.1",
        "The request is not valid HTTP/1.1 (a bad request line, a bare CR or LF, a bad header, Content-Length "
        "with chunked, broken chunked framing, a body shorter than its Content-Length). Answered by the server "
        "before any route, with `X-Request-ID`; the connection closes."),
    "not-found": ProblemCode(404, "No such resource", "No resource at that path."),
    "unknown-game": ProblemCode(
        404, "No such game", "No game of that name: `game` is the name asked, `known` lists the games."),
    "method-not-allowed": ProblemCode(405, "Method not allowed", "The method is not allowed on that path."),
    "request-timeout": ProblemCode(
        408, "The client stopped sending the request",
        "The client sent nothing for `REFEREE_READ_TIMEOUT` seconds in the middle of its body, or sent it slower "
        "than `REFEREE_MIN_UPLOAD_RATE` bytes a second (past a first `REFEREE_READ_TIMEOUT` seconds); the "
        "connection closes."),
    "payload-too-large": ProblemCode(
        413, "The request body is too large",
        "The body is larger than the limit (however it is framed: Content-Length or chunked); a JSON body "
        "read as objects (`new`, `legal-moves`, `view`, `render`) would become more than `limit` bytes of them "
        "(4 MiB as estimated from above, twice the largest state of any game); an NDJSON line is longer than its limit (`line` "
        "numbers it); or a streamed batch's results pass their limit (`index` is the first item not judged)."),
    "request-line-too-long": ProblemCode(
        414, "The request line is too long",
        "The request line is longer than 8190 bytes. Answered by the server before any route."),
    "unsupported-media-type": ProblemCode(
        415, "Unsupported media type", "The body's media type is not accepted; `accepted` lists those that are."),
    "invalid-options": ProblemCode(
        422, "Invalid game options", "The variant or options are unknown or do not combine; `field` says which."),
    "invalid-state": ProblemCode(
        422, "The state cannot occur in this game",
        "The state cannot occur in the game (shape, counts, side to move, rules version); `field` says where."),
    "invalid-seal": ProblemCode(
        422, "The state's seal is missing or does not match",
        "The service seals its states (`REFEREE_SEAL_KEYS`) and takes back only a state whose `seal` matches it "
        "exactly; this one's is missing, malformed, names a key id the service does not hold, or does not match "
        "(the state or its seal was changed, or another key sealed it). An opaque state (`{\"opaque\": ...}`) "
        "is refused alike when it does not decrypt (`undecryptable`: changed, or of another game, rules version "
        "or service), or when the service has no keys (`opaque`); so is a state whose keyed generator names a key "
        "the service does not hold (`keyed chance`, `unknown key id`). An opaque state of the old format, bound to a `holder`, is "
        "refused (`held state`: start the game again with `commitments`), and so is a plain state of a game the "
        "service keeps opaque with commitments (`not opaque`). `field` is `state.seal`; `detail` starts with which "
        "(`missing`, `malformed`, `unknown key id`, `mismatch`, `undecryptable`, `opaque`, `keyed chance`, "
        "`held state`, `not opaque`) and says nothing about the keys."),
    "invalid-board": ProblemCode(
        422, "The board description is not a playable board",
        "Hypnosia: the board description (option `board`, in a setup or a state) is not a playable board; "
        "`field` names the faulty field, e.g. `board.bridges[3].to`."),
    "malformed-move": ProblemCode(422, "The move is not in the game's notation", "The move is not in the game's notation."),
    "illegal-move": ProblemCode(
        422, "The rules forbid this move", "The rules forbid the move; `rule` names the rule, with its facts."),
    "game-over": ProblemCode(422, "The game is over", "The game is over."),
    "not-your-turn": ProblemCode(
        422, "It is not this player's turn", "The move was announced for a player of the game who is not to move."),
    "unknown-player": ProblemCode(
        422, "No such player in this game",
        "The request names a player the game does not have; `players` lists its players."),
    "over-budget": ProblemCode(
        422, "The search asks for more than this service allows",
        "A `suggest` asks for a level, simulations or think time out of range; `field` names the bound "
        "(`level`, `simulations`, `think_ms`) and `limit` its largest value (`REFEREE_MAX_SIMULATIONS`, "
        "`REFEREE_MAX_THINK_MS`)."),
    "not-this-player": ProblemCode(
        422, "The request does not prove it is this player",
        "With opaque states of a game with hidden information (`REFEREE_OPAQUE_STATES`), the state carries each "
        "player's commitment (the SHA-256 of their secret, given to `new`), and a request that reveals a player's "
        "information gives that player's `secret`: `play`, `validate`, `legal-moves` and batch items the secret of "
        "the player to move, `view` and `render` the secret of the player they name (`render` without `player`: "
        "drawn for the secret's owner). `detail` starts with `missing`, `wrong` (no player's secret) or `another "
        "player's`; `player` names the player the request acted as (null when it names none); `field` is `secret`. "
        "422 like `invalid-seal` and `not-your-turn`: the secret is judged against the state the request carries, "
        "not an identity of the client (Referee has no accounts), and the same request never succeeds."),
    "too-many-requests": ProblemCode(
        429, "Too many requests from this client",
        "The client (its address, or the one a trusted proxy forwards: `REFEREE_TRUSTED_PROXIES`) holds as many "
        "bytes of request bodies and answers in the worker as one client may (`REFEREE_PEER_MEMORY_BYTES`), or as "
        "many connections (`REFEREE_PEER_CONNECTIONS`: answered before the request is read, and the connection "
        "closes); retry after `Retry-After` seconds, or with fewer requests at once. Other clients are served. A "
        "streamed batch cut by it ends with this problem as its last line. The shipped nginx configuration answers "
        "the same code when one client has too many requests in progress or sent too many of late."),
    "headers-too-large": ProblemCode(
        431, "The request headers are too large",
        "More than 100 headers, or one longer than 8190 bytes. Answered by the server before any route."),
    "internal-error": ProblemCode(500, "Internal error", "A bug; the request id finds it in the logs."),
    "not-implemented": ProblemCode(
        501, "The server does not support this HTTP feature",
        "A transfer coding other than chunked. Answered by the server before any route."),
    "not-ready": ProblemCode(503, "The engine is not ready", "The engine failed its self-test."),
    "service-unavailable": ProblemCode(
        503, "The service is stopping",
        "The worker that was reading a streamed batch is stopping (SIGTERM: a restart, a deploy): the batch "
        "ends with this problem as its last line, after the results judged so far, `index` the first item not "
        "judged; send the items from there again. When none was judged, the whole answer is this problem, with "
        "`Retry-After`. The connection closes."),
    "service-busy": ProblemCode(
        503, "The service is busy",
        "The worker that took the request holds as many bytes of request bodies and answers as it may "
        "(`REFEREE_WORKER_MEMORY_BYTES`), or, for a streamed batch, of answers waiting in temporary files "
        "(`REFEREE_WORKER_SPOOL_BYTES`); retry after `Retry-After` seconds. A streamed batch cut by it ends with "
        "this problem as its last line, `index` the first item not judged."),
    "insufficient-storage": ProblemCode(
        507, "The service cannot store the answer",
        "A streamed batch's results wait in a temporary file, and the disk refused them (full): the batch "
        "ends with this problem as its last line, after the results stored so far, `index` the first item "
        "not answered; when none could be stored, the whole answer is this problem, with `Retry-After`. "
        "Send the items from `index` on again later."),
}


class VerdictCode(NamedTuple):
    """The code of a verdict that is an answer (a 200 of `replay`, a result of `referee validate`)."""

    title: str
    meaning: str


#: Why a record's claim (`result`, `termination`, `by`) disagrees with its moves: the `claim_reason.code`
#: of a replay's answer and of an archive's result. The rules are checked in this order (README, Claims).
CLAIM_CODES: dict[str, VerdictCode] = {
    "claim-illegal-moves": VerdictCode(
        "The record has an illegal ply",
        "A move of the record is illegal (`ply`): the moves make no game for the claim to describe."),
    "claim-unknown-player": VerdictCode(
        "The claim names no player of the game",
        "`result.winner`, `by`, a key of `result.scores` or a name in `result.ranking` (`field`) is no player of "
        "the game; `players` lists them."),
    "claim-inconsistent": VerdictCode(
        "The claim contradicts itself",
        "Whatever the moves: a resignation or timeout without `by`, or won by its `by`; a `by` with another end; "
        "an abandoned game with a winner or a ranking; a ranking that does not list every player once, or whose "
        "first rank is not the winner alone (none when shared). `field` names the field."),
    "claim-not-over": VerdictCode(
        "A normal end, but the game goes on",
        "A `normal` end (the default with a `result`) is claimed, but the game is not over after the moves; "
        "`to_move` is the player to move."),
    "claim-over": VerdictCode(
        "An early end, but the game was over",
        "A resignation, timeout, agreement or abandonment is claimed, but the game was over after the moves: "
        "its last move ended it (`winner`, `decided_by`)."),
    "claim-mismatch": VerdictCode(
        "A claimed field is not what the moves show",
        "`field` (`result.winner`, `result.scores`, `result.ranking`) is `claimed`, the moves show `actual`: the "
        "engine's outcome after a normal end; after a resignation or timeout, its `by` last and the others as "
        "the position stands (two players: the other one wins); the scores as the moves leave them, whatever "
        "the end."),
}

#: Why a line of an archive is no record (its result's `error.code`), beside the problems of its game and
#: setup (`unknown-game`, `invalid-options`, `invalid-board`).
RECORD_CODES: dict[str, VerdictCode] = {
    "malformed-record": VerdictCode(
        "The line is no record",
        "The line is not JSON, or not a record: `game` or `moves` missing, a field of the record (`seed`, a "
        "claim's `result`, `termination`, `by`, a field to keep) of the wrong shape or given twice."),
}


def claim_code_schema() -> dict[str, Any]:
    """The contract's `ClaimCode`: a plain string enum, each code's meaning in the text."""
    lines = [f"- `{code}`: {entry.meaning}" for code, entry in CLAIM_CODES.items()]
    return {
        "type": "string",
        "description": "Why a record's claim disagrees with its moves:\n" + "\n".join(lines),
        "enum": list(CLAIM_CODES),
    }


def problem_code_schema() -> dict[str, Any]:
    """The contract's `ProblemCode`: a plain string enum, each code's status and meaning in the text."""
    lines = [f"- `{code}` ({entry.status}): {entry.meaning}" for code, entry in CODES.items()]
    return {
        "type": "string",
        "description": "The stable machine code of a problem, with its HTTP status:\n" + "\n".join(lines),
        "enum": list(CODES),
    }
