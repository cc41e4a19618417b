"""Naive reference model of Isaac, written from ``docs/rules/isaac.md`` (the rules, and
the engine's notation in its last section, the "interface spec" below).

This is a test oracle for the Rust engine: it favours obvious correctness over speed.  Everything is
plain tuples, dicts and lists; a position is never mutated (``play`` builds a new one).

Geometry.  A cell is a pair ``(col, row)``, both 0-based (``a1`` = (0, 0), ``j10`` = (9, 9)); its index is
``row * 10 + col``.  A piece is a :class:`Piece`: owner, lower-left cell, orientation, length.

Decisions taken where both the rules document and the interface spec are silent:

* ``phase_ended`` (pass effect) is true only for the pass that ends the *placement* phase, as the spec
  words it; the last pass of the scoring phase (which ends the game) reports ``phase_ended: False``.
* ``markers_on_line`` counts markers, not cells: were both markers on one cell of the line they would
  count 2 (this cannot arise in play, as two markers never share a cell).
* The compact move form writes a removal whose only advance is 0 as ``x<piece>+0..0``.
* ``parse_position`` checks the structure of the string and its consistency (cells on the board, no
  overlaps, piece inventories respected, removed lengths never decreasing, scores 0 in the placement
  phase, a positive score only after a removal, markers not sharing a cell, the side to move not having
  passed, ``-`` to move exactly when the game is over, passes and first-to-pass agreeing).  It does not
  check that a player recorded as passed in the placement phase really could not place.
* In a finished game the "passed in the current phase" field keeps what it was when the game ended: a
  win by target leaves it as it stood, the last pass of the scoring phase makes it ``bw``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLAYERS = ("black", "white")
COLUMNS = "abcdefghij"
SIZE = 10
TARGET = 100

#: length -> (number of pieces each player owns, value in dots)
PIECE_SET = {3: (5, 1), 4: (4, 2), 5: (3, 3), 6: (2, 4), 7: (1, 6)}
LENGTHS = (3, 4, 5, 6, 7)

FIRST_PLAYER_OPTIONS = ("black", "white")
SCORING_STARTS_OPTIONS = ("first_to_pass", "first_player")


def opponent(player: str) -> str:
    return "white" if player == "black" else "black"


def letter(player: str) -> str:
    return "b" if player == "black" else "w"


def value_of(length: int) -> int:
    return PIECE_SET[length][1]


# ---------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------

def cell_name(col: int, row: int) -> str:
    return f"{COLUMNS[col]}{row + 1}"


def cell_index(col: int, row: int) -> int:
    return row * SIZE + col


_CELL_RE = re.compile(r"^([a-j])(10|[1-9])$")


def parse_cell(text: str) -> tuple[int, int]:
    m = _CELL_RE.match(text)
    if not m:
        raise ValueError(f"bad cell {text!r}")
    return COLUMNS.index(m.group(1)), int(m.group(2)) - 1


def cell_of_index(index: int) -> tuple[int, int]:
    return index % SIZE, index // SIZE


def marker_cell(player: str, score: int) -> tuple[int, int] | None:
    """The cell of ``player``'s score marker, or None once the score reached 100 (it left the board)."""
    if score >= TARGET:
        return None
    if player == "black":
        return cell_of_index(score)
    return cell_of_index(99 - score)


# ---------------------------------------------------------------------------
# Pieces
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Piece:
    owner: str          # 'black' | 'white'
    col: int            # lower-left cell
    row: int
    horizontal: bool
    length: int

    def cells(self) -> list[tuple[int, int]]:
        if self.horizontal:
            return [(self.col + k, self.row) for k in range(self.length)]
        return [(self.col, self.row + k) for k in range(self.length)]

    def name(self) -> str:
        """``c4-g4``: lower-left end, dash, other end."""
        first = self.cells()[0]
        last = self.cells()[-1]
        return f"{cell_name(*first)}-{cell_name(*last)}"

    def start_index(self) -> int:
        return cell_index(self.col, self.row)

    def line_cells(self) -> list[tuple[int, int]]:
        """The full row (horizontal piece) or column (vertical piece) the piece lies in."""
        if self.horizontal:
            return [(c, self.row) for c in range(SIZE)]
        return [(self.col, r) for r in range(SIZE)]

    def line_name(self) -> str:
        if self.horizontal:
            return f"row {self.row + 1}"
        return f"column {COLUMNS[self.col]}"


def parse_piece_cells(text: str) -> tuple[int, int, bool, int]:
    """``c4-g4`` -> (col, row, horizontal, length) of the lower-left end; ValueError if malformed."""
    parts = text.split("-")
    if len(parts) != 2:
        raise ValueError(f"bad piece {text!r}")
    c1, r1 = parse_cell(parts[0])
    c2, r2 = parse_cell(parts[1])
    if r1 == r2 and c2 > c1:
        horizontal, length = True, c2 - c1 + 1
    elif c1 == c2 and r2 > r1:
        horizontal, length = False, r2 - r1 + 1
    else:
        raise ValueError(f"bad piece {text!r}: ends not in one line, lower-left end first")
    if length not in PIECE_SET:
        raise ValueError(f"bad piece {text!r}: length {length}")
    return c1, r1, horizontal, length


# ---------------------------------------------------------------------------
# Position
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Position:
    pieces: tuple[Piece, ...]            # on the board, sorted by lower-left cell index
    phase: str                           # 'placement' | 'scoring'
    to_move: str | None                  # None once the game is over
    scores: tuple[int, int]              # (black, white)
    first_to_pass: str | None            # who passed first in the placement phase
    passed: tuple[str, ...]              # players who passed in the current phase, in PLAYERS order
    removed: tuple[tuple[int, ...], tuple[int, ...]]  # removed lengths in order, (black, white)
    first_player: str = "black"          # option
    scoring_starts: str = "first_to_pass"  # option


def _check_options(first_player: str, scoring_starts: str) -> None:
    if first_player not in FIRST_PLAYER_OPTIONS:
        raise ValueError(f"bad first_player {first_player!r}")
    if scoring_starts not in SCORING_STARTS_OPTIONS:
        raise ValueError(f"bad scoring_starts {scoring_starts!r}")


def initial(first_player: str = "black", scoring_starts: str = "first_to_pass") -> Position:
    _check_options(first_player, scoring_starts)
    return Position((), "placement", first_player, (0, 0), None, (), ((), ()), first_player, scoring_starts)


def score_of(pos: Position, player: str) -> int:
    return pos.scores[PLAYERS.index(player)]


def removed_of(pos: Position, player: str) -> tuple[int, ...]:
    return pos.removed[PLAYERS.index(player)]


def is_finished(pos: Position) -> bool:
    return pos.to_move is None


def board(pos: Position) -> dict[tuple[int, int], Piece]:
    """cell -> the piece covering it (empty cells absent)."""
    covered = {}
    for piece in pos.pieces:
        for cell in piece.cells():
            covered[cell] = piece
    return covered


def unplaced(pos: Position, player: str) -> dict[int, int]:
    """length -> number of ``player``'s pieces neither on the board nor removed."""
    left = {}
    for length in LENGTHS:
        on_board = sum(1 for p in pos.pieces if p.owner == player and p.length == length)
        gone = sum(1 for L in removed_of(pos, player) if L == length)
        left[length] = PIECE_SET[length][0] - on_board - gone
    return left


def unplaced_cells(pos: Position, player: str) -> int:
    return sum(length * count for length, count in unplaced(pos, player).items())


def unplaced_count(pos: Position, player: str) -> int:
    return sum(unplaced(pos, player).values())


def markers(pos: Position) -> list[tuple[int, int]]:
    """Cells of the markers still on the board (one entry per marker)."""
    out = []
    for player in PLAYERS:
        cell = marker_cell(player, score_of(pos, player))
        if cell is not None:
            out.append(cell)
    return out


# ---------------------------------------------------------------------------
# Position string
# ---------------------------------------------------------------------------

def _passed_text(passed) -> str:
    text = "".join(letter(p) for p in PLAYERS if p in passed)
    return text or "-"


def format_position(pos: Position) -> str:
    pieces = ",".join(("B" if p.owner == "black" else "W") + p.name()
                      for p in sorted(pos.pieces, key=Piece.start_index))
    removed = "/".join("".join(str(L) for L in lengths) or "-" for lengths in pos.removed)
    return " ".join([
        pieces or "-",
        pos.phase,
        letter(pos.to_move) if pos.to_move else "-",
        f"{pos.scores[0]},{pos.scores[1]}",
        letter(pos.first_to_pass) if pos.first_to_pass else "-",
        _passed_text(pos.passed),
        removed,
    ])


_SCORE_RE = re.compile(r"^(0|[1-9][0-9]*)$")


def _parse_player_letter(text: str, what: str) -> str | None:
    if text == "b":
        return "black"
    if text == "w":
        return "white"
    if text == "-":
        return None
    raise ValueError(f"bad {what} {text!r}")


def parse_position(text: str, first_player: str = "black", scoring_starts: str = "first_to_pass") -> Position:
    _check_options(first_player, scoring_starts)
    fields = text.split(" ")
    if len(fields) != 7:
        raise ValueError(f"a position has 7 fields: {text!r}")
    f_pieces, f_phase, f_move, f_scores, f_first, f_passed, f_removed = fields

    pieces = []
    if f_pieces != "-":
        for item in f_pieces.split(","):
            if not item or item[0] not in "BW":
                raise ValueError(f"bad piece {item!r}")
            col, row, horizontal, length = parse_piece_cells(item[1:])
            pieces.append(Piece("black" if item[0] == "B" else "white", col, row, horizontal, length))
    starts = [p.start_index() for p in pieces]
    if starts != sorted(starts):
        raise ValueError("pieces must be sorted by lower-left cell index")
    covered = set()
    for piece in pieces:
        for cell in piece.cells():
            if cell in covered:
                raise ValueError(f"pieces overlap at {cell_name(*cell)}")
            covered.add(cell)

    if f_phase not in ("placement", "scoring"):
        raise ValueError(f"bad phase {f_phase!r}")
    to_move = _parse_player_letter(f_move, "side to move")

    score_parts = f_scores.split(",")
    if len(score_parts) != 2 or not all(_SCORE_RE.match(s) for s in score_parts):
        raise ValueError(f"bad scores {f_scores!r}")
    scores = (int(score_parts[0]), int(score_parts[1]))

    first_to_pass = _parse_player_letter(f_first, "first to pass")
    if f_passed not in ("-", "b", "w", "bw"):
        raise ValueError(f"bad passed field {f_passed!r}")
    passed = tuple(p for p in PLAYERS if letter(p) in f_passed)

    removed_parts = f_removed.split("/")
    if len(removed_parts) != 2:
        raise ValueError(f"bad removed field {f_removed!r}")
    removed = []
    for part in removed_parts:
        if part == "-":
            removed.append(())
            continue
        if not part or any(ch not in "34567" for ch in part):
            raise ValueError(f"bad removed lengths {part!r}")
        lengths = tuple(int(ch) for ch in part)
        if list(lengths) != sorted(lengths):
            raise ValueError(f"removed lengths never get shorter: {part!r}")
        removed.append(lengths)

    pos = Position(tuple(pieces), f_phase, to_move, scores, first_to_pass, passed,
                   (removed[0], removed[1]), first_player, scoring_starts)

    # Consistency.
    for player in PLAYERS:
        if any(n < 0 for n in unplaced(pos, player).values()):
            raise ValueError(f"{player} has more pieces than the set holds")
        if score_of(pos, player) > 0 and not removed_of(pos, player):
            raise ValueError(f"{player} scored without removing a piece")
    if sum(1 for s in scores if s >= TARGET) > 1:
        raise ValueError("both scores reached the target")
    if scores[0] + scores[1] == 99:
        raise ValueError("the two markers cannot share a cell")
    if f_phase == "placement":
        if scores != (0, 0) or removed != [(), ()]:
            raise ValueError("no scoring in the placement phase")
        if passed == PLAYERS:
            raise ValueError("the placement phase ends when both players have passed")
        if (first_to_pass is None) != (not passed) or (first_to_pass and first_to_pass not in passed):
            raise ValueError("first to pass disagrees with the passes")
    else:
        if first_to_pass is None:
            raise ValueError("the scoring phase follows a placement phase in which someone passed first")
    over = any(s >= TARGET for s in scores) or (f_phase == "scoring" and passed == PLAYERS)
    if over != (to_move is None):
        raise ValueError("'-' to move exactly when the game is over")
    if to_move is not None and to_move in passed:
        raise ValueError("a player who passed in this phase does not move again in it")
    return pos


# ---------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------

_MOVE_REMOVE_RE = re.compile(r"^x([a-j0-9]+-[a-j0-9]+)\+(0|[1-9][0-9]*)$")


def parse_move(text: str) -> tuple:
    """``('pass',)``, ``('place', col, row, horizontal, length)`` or
    ``('remove', col, row, horizontal, length, advance)``; ValueError if malformed."""
    if not isinstance(text, str):
        raise ValueError("a move is a string")
    if text == "pass":
        return ("pass",)
    if text.startswith("x"):
        m = _MOVE_REMOVE_RE.match(text)
        if not m:
            raise ValueError(f"bad removal {text!r}")
        return ("remove", *parse_piece_cells(m.group(1)), int(m.group(2)))
    return ("place", *parse_piece_cells(text))


def placements(pos: Position) -> list[str]:
    """Every placement open to the side to move, in the spec's order."""
    player = pos.to_move
    occupied = board(pos)
    left = unplaced(pos, player)
    moves = []
    for length in LENGTHS:
        if left[length] == 0:
            continue
        for horizontal in (True, False):
            for index in range(SIZE * SIZE):
                col, row = cell_of_index(index)
                piece = Piece(player, col, row, horizontal, length)
                cells = piece.cells()
                if not all(0 <= c < SIZE and 0 <= r < SIZE for c, r in cells):
                    continue  # not wholly inside the board
                if any(cell in occupied for cell in cells):
                    continue
                moves.append(piece.name())
    return moves


def can_remove(pos: Position, piece: Piece) -> bool:
    """The rules' conditions on the piece (the advance aside) for the side to move."""
    if piece.owner != pos.to_move:
        return False
    marker_cells = markers(pos)
    if any(cell in marker_cells for cell in piece.cells()):
        return False
    if any(piece.length < earlier for earlier in removed_of(pos, pos.to_move)):
        return False
    return True


def removal_points(pos: Position, piece: Piece) -> dict:
    """N, markers on the line and points for removing ``piece`` (markers where they stand now)."""
    line = piece.line_cells()
    others = [p for p in pos.pieces if p != piece]
    pieces_on_line = sum(1 for p in others if any(cell in line for cell in p.cells()))
    markers_on_line = sum(1 for cell in markers(pos) if cell in line)
    value = value_of(piece.length)
    points = pieces_on_line * value * (2 ** markers_on_line)
    return {"line": piece.line_name(), "pieces_on_line": pieces_on_line, "value": value,
            "markers_on_line": markers_on_line, "points": points}


def forbidden_advance(pos: Position) -> int | None:
    """The one advance that would land the mover's marker on the other marker's cell, if any."""
    mover = pos.to_move
    other = opponent(mover)
    s = score_of(pos, mover)
    o = score_of(pos, other)
    if o >= TARGET:
        return None
    a = 99 - o - s   # black b and white w share a cell iff b + w = 99
    return a if a >= 0 else None


def removable_pieces(pos: Position) -> list[Piece]:
    return [p for p in sorted(pos.pieces, key=Piece.start_index) if can_remove(pos, p)]


def removals(pos: Position) -> list[str]:
    moves = []
    bad = forbidden_advance(pos)
    for piece in removable_pieces(pos):
        points = removal_points(pos, piece)["points"]
        for advance in range(points + 1):
            if advance != bad:
                moves.append(f"x{piece.name()}+{advance}")
    return moves


def legal_moves(pos: Position) -> list[str]:
    if is_finished(pos):
        return []
    if pos.phase == "placement":
        moves = placements(pos)
    else:
        moves = removals(pos)
    return moves or ["pass"]


def compact_moves(pos: Position) -> list[str]:
    """The spec's compact form: one entry per removable piece, ``xc4-g4+0..18`` or ``...!7``."""
    if is_finished(pos):
        return []
    if pos.phase == "placement":
        return legal_moves(pos)
    out = []
    bad = forbidden_advance(pos)
    for piece in removable_pieces(pos):
        points = removal_points(pos, piece)["points"]
        entry = f"x{piece.name()}+0..{points}"
        if bad is not None and bad <= points:
            entry += f"!{bad}"
        out.append(entry)
    return out or ["pass"]


_COMPACT_RE = re.compile(r"^(x[a-j0-9]+-[a-j0-9]+)\+(0|[1-9][0-9]*)\.\.(0|[1-9][0-9]*)(?:!(0|[1-9][0-9]*))?$")


def expand_compact(entries: list[str]) -> list[str]:
    """The full move list a compact list stands for (entries that are not ranges stand for themselves)."""
    out = []
    for entry in entries:
        m = _COMPACT_RE.match(entry)
        if not m:
            out.append(entry)
            continue
        low, high = int(m.group(2)), int(m.group(3))
        skip = int(m.group(4)) if m.group(4) is not None else None
        for advance in range(low, high + 1):
            if advance != skip:
                out.append(f"{m.group(1)}+{advance}")
    return out


def _next_to_move(mover: str, passed: tuple[str, ...]) -> str:
    """After a non-pass move: the other player unless they passed in this phase."""
    other = opponent(mover)
    return mover if other in passed else other


def play(pos: Position, move: str) -> tuple[Position, dict]:
    """Play ``move``; returns the new position and the effects.  ValueError if illegal or malformed."""
    parsed = parse_move(move)
    if is_finished(pos):
        raise ValueError("the game is over")
    if move not in legal_moves(pos):
        raise ValueError(f"illegal move {move!r} in {format_position(pos)}")
    mover = pos.to_move
    other = opponent(mover)

    if parsed[0] == "pass":
        passed = tuple(p for p in PLAYERS if p in pos.passed or p == mover)
        first_to_pass = pos.first_to_pass
        if pos.phase == "placement" and first_to_pass is None:
            first_to_pass = mover
        effects = {"player": mover, "kind": "pass", "phase_ended": False}
        if len(passed) < 2:
            nxt = Position(pos.pieces, pos.phase, other, pos.scores, first_to_pass, passed, pos.removed,
                           pos.first_player, pos.scoring_starts)
        elif pos.phase == "placement":
            # Both passed: the scoring phase starts; passes are per phase.
            starter = first_to_pass if pos.scoring_starts == "first_to_pass" else pos.first_player
            nxt = Position(pos.pieces, "scoring", starter, pos.scores, first_to_pass, (), pos.removed,
                           pos.first_player, pos.scoring_starts)
            effects["phase_ended"] = True
        else:
            # Both out of the scoring phase: game over.
            nxt = Position(pos.pieces, pos.phase, None, pos.scores, first_to_pass, passed, pos.removed,
                           pos.first_player, pos.scoring_starts)
        return nxt, effects

    if parsed[0] == "place":
        _, col, row, horizontal, length = parsed
        piece = Piece(mover, col, row, horizontal, length)
        pieces = tuple(sorted(pos.pieces + (piece,), key=Piece.start_index))
        nxt = Position(pieces, pos.phase, _next_to_move(mover, pos.passed), pos.scores, pos.first_to_pass,
                       pos.passed, pos.removed, pos.first_player, pos.scoring_starts)
        return nxt, {"player": mover, "kind": "place", "piece": piece.name()}

    _, col, row, horizontal, length, advance = parsed
    piece = Piece(mover, col, row, horizontal, length)
    detail = removal_points(pos, piece)  # markers where they stand before the advance
    new_score = score_of(pos, mover) + advance
    scores = (new_score, pos.scores[1]) if mover == "black" else (pos.scores[0], new_score)
    removed = (removed_of(pos, "black"), removed_of(pos, "white"))
    removed = (removed[0] + (length,), removed[1]) if mover == "black" else (removed[0], removed[1] + (length,))
    pieces = tuple(p for p in pos.pieces if p != piece)
    to_move = None if new_score >= TARGET else _next_to_move(mover, pos.passed)
    nxt = Position(pieces, pos.phase, to_move, scores, pos.first_to_pass, pos.passed, removed,
                   pos.first_player, pos.scoring_starts)
    effects = {"player": mover, "kind": "remove", "piece": piece.name(), **detail,
               "advance": advance, "score": new_score}
    return nxt, effects


# ---------------------------------------------------------------------------
# Outcome
# ---------------------------------------------------------------------------

def winner_and_reason(pos: Position) -> tuple[str | None, str | None]:
    if not is_finished(pos):
        return None, None
    b, w = pos.scores
    if b >= TARGET:
        return "black", "target"
    if w >= TARGET:
        return "white", "target"
    if b != w:
        return ("black" if b > w else "white"), "score"
    cells_b, cells_w = unplaced_cells(pos, "black"), unplaced_cells(pos, "white")
    if cells_b != cells_w:
        return ("black" if cells_b > cells_w else "white"), "unplaced_cells"
    count_b, count_w = unplaced_count(pos, "black"), unplaced_count(pos, "white")
    if count_b != count_w:
        return ("black" if count_b < count_w else "white"), "unplaced_count"
    return pos.first_player, "first_player"


def outcome(pos: Position) -> dict:
    winner, decided_by = winner_and_reason(pos)
    return {
        "status": "finished" if is_finished(pos) else "ongoing",
        "to_move": pos.to_move,
        "scores": {"black": pos.scores[0], "white": pos.scores[1]},
        "winner": winner,
        "decided_by": decided_by,
    }


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def perft(pos: Position, depth: int) -> int:
    """Number of move sequences of exactly ``depth`` plies from ``pos`` (passes included)."""
    if depth == 0:
        return 1
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(play(pos, m)[0], depth - 1) for m in moves)
