"""Naive reference model of Iago, written from ``docs/rules/iago.md`` alone.

This is a test oracle for the Rust engine: it favours obvious correctness over
speed.  Boards are plain ``dict[str, str]`` maps from cell name to one of

    ``.``  empty
    ``B``  black disc, face up        ``b``  black disc, captive (red side up)
    ``W``  white disc, face up        ``w``  white disc, captive (red side up)

Decisions taken where the rules document is silent are listed in the
docstrings below (and in the project's brief for this model).
"""

from __future__ import annotations

from dataclasses import dataclass

# ---------------------------------------------------------------------------
# Board geometry
# ---------------------------------------------------------------------------

ROW_LETTERS = "abcdefghi"
VARIANTS = ("standard", "loose", "simple")
PLAYERS = ("black", "white")

# The six directions in (row, diagonal) index space, as in the rules document.
DIRECTIONS = ((0, +1), (0, -1), (+1, 0), (-1, 0), (+1, +1), (-1, -1))


def _exists(r: int, d: int) -> bool:
    return 0 <= r <= 8 and 0 <= d <= 8 and abs(r - d) <= 4


def _name(r: int, d: int) -> str:
    return f"{ROW_LETTERS[r]}{d + 1}"


# The 61 cells in notation order: row a..i, within a row by increasing diagonal.
CELLS: list[str] = [_name(r, d) for r in range(9) for d in range(9) if _exists(r, d)]
ROWS: list[list[str]] = [[c for c in CELLS if c[0] == letter] for letter in ROW_LETTERS]
COORDS: dict[str, tuple[int, int]] = {_name(r, d): (r, d) for r in range(9) for d in range(9) if _exists(r, d)}
INDEX: dict[str, int] = {c: i for i, c in enumerate(CELLS)}


def ring(cell: str) -> int:
    """Distance from the centre: 4 = outer area, <= 3 inner area, 0 centre."""
    r, d = COORDS[cell]
    x = d - 4
    z = 4 - r
    y = -x - z
    return max(abs(x), abs(y), abs(z))


CENTRE = "e5"
OUTER: list[str] = [c for c in CELLS if ring(c) == 4]
INNER: list[str] = [c for c in CELLS if ring(c) <= 3]  # centre included

assert len(CELLS) == 61 and len(OUTER) == 24 and len(INNER) == 37 and ring(CENTRE) == 0


def ray(cell: str, direction: tuple[int, int]) -> list[str]:
    """Cells met walking from ``cell`` (excluded) in ``direction`` up to the board's edge."""
    r, d = COORDS[cell]
    dr, dd = direction
    out = []
    r, d = r + dr, d + dd
    while _exists(r, d):
        out.append(_name(r, d))
        r, d = r + dr, d + dd
    return out


RAYS: dict[str, list[list[str]]] = {c: [ray(c, v) for v in DIRECTIONS] for c in CELLS}


def in_cells_order(cells) -> list[str]:
    return sorted(cells, key=INDEX.__getitem__)


# ---------------------------------------------------------------------------
# Discs
# ---------------------------------------------------------------------------

def owner(ch: str) -> str | None:
    if ch in "Bb":
        return "black"
    if ch in "Ww":
        return "white"
    return None


def is_face_up(ch: str) -> bool:
    return ch in "BW"


def is_captive(ch: str) -> bool:
    return ch in "bw"


def face_up_char(player: str) -> str:
    return "B" if player == "black" else "W"


def opponent(player: str) -> str:
    return "white" if player == "black" else "black"


# ---------------------------------------------------------------------------
# Position
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Position:
    board: dict[str, str]      # every cell present; never mutated
    to_move: str               # 'black' | 'white'
    penalty_claim: bool        # a penalty claim is pending for the side to move
    variant: str               # 'standard' | 'loose' | 'simple'
    penalty: bool              # the penalty option

    def __hash__(self) -> int:
        return hash((format_position(self), self.variant, self.penalty))


def _check_options(variant: str, penalty: bool) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    if penalty and variant != "standard":
        raise ValueError("the penalty option combines only with the standard rules")


def initial(variant: str = "standard", penalty: bool = False) -> Position:
    _check_options(variant, penalty)
    return Position({c: "." for c in CELLS}, "black", False, variant, penalty)


def format_position(pos: Position) -> str:
    rows = "/".join("".join(pos.board[c] for c in row) for row in ROWS)
    text = f"{rows} {'b' if pos.to_move == 'black' else 'w'}"
    if pos.penalty_claim:
        text += " p"
    return text


def parse_position(text: str, variant: str = "standard", penalty: bool = False) -> Position:
    _check_options(variant, penalty)
    fields = text.split(" ")
    if len(fields) not in (2, 3):
        raise ValueError(f"bad position {text!r}")
    rows = fields[0].split("/")
    if len(rows) != 9:
        raise ValueError("a position needs 9 rows")
    board = {}
    for row_cells, row_text in zip(ROWS, rows):
        if len(row_text) != len(row_cells):
            raise ValueError(f"row {row_cells[0][0]} needs {len(row_cells)} cells")
        for cell, ch in zip(row_cells, row_text):
            if ch not in ".BWbw":
                raise ValueError(f"bad cell character {ch!r}")
            board[cell] = ch
    if fields[1] == "b":
        to_move = "black"
    elif fields[1] == "w":
        to_move = "white"
    else:
        raise ValueError(f"bad side to move {fields[1]!r}")
    claim = False
    if len(fields) == 3:
        if fields[2] != "p":
            raise ValueError(f"bad extra field {fields[2]!r}")
        if not penalty:
            raise ValueError("a penalty claim needs the penalty option")
        claim = True
    return Position(board, to_move, claim, variant, penalty)


# ---------------------------------------------------------------------------
# Flip actions
# ---------------------------------------------------------------------------

def _is_anchor_area(cell: str) -> bool:
    """Outer ring or centre: where one end of a release must stand."""
    return ring(cell) == 4 or cell == CENTRE


def capture_run(board: dict[str, str], cell: str, line: list[str], player: str) -> list[str]:
    """Opponent discs captured along ``line`` (the ray from ``cell``) by placing there."""
    run = []
    for c in line:
        ch = board[c]
        if is_face_up(ch) and owner(ch) == opponent(player):
            run.append(c)
            continue
        if run and ch == face_up_char(player):
            return run
        return []
    return []  # ran off the board


def release_run(board: dict[str, str], cell: str, line: list[str], player: str) -> list[str]:
    """Captives released along ``line`` (the ray from ``cell``) by placing there."""
    run = []
    for c in line:
        ch = board[c]
        if is_captive(ch):
            run.append(c)
            continue
        if run and ch == face_up_char(player):
            if _is_anchor_area(cell) or _is_anchor_area(c):
                return run
        return []
    return []  # ran off the board


def flips(pos: Position, cell: str) -> tuple[list[str], list[str]]:
    """(captured, released) if the side to move placed on empty ``cell``; on the board before placement."""
    captured: list[str] = []
    released: list[str] = []
    for line in RAYS[cell]:
        captured += capture_run(pos.board, cell, line, pos.to_move)
        if pos.variant != "simple":  # Simple Iago: no releases at all
            released += release_run(pos.board, cell, line, pos.to_move)
    return in_cells_order(captured), in_cells_order(released)


def capture_count(pos: Position, cell: str) -> int:
    """Number of opponent discs a placement on ``cell`` would capture (0 if ``cell`` is occupied)."""
    if pos.board[cell] != ".":
        return 0
    return len(flips(pos, cell)[0])


def _performs_flip(pos: Position, cell: str) -> bool:
    captured, released = flips(pos, cell)
    return bool(captured or released)


# ---------------------------------------------------------------------------
# Legal moves
# ---------------------------------------------------------------------------

def is_finished(pos: Position) -> bool:
    return all(pos.board[c] != "." for c in INNER)


def empty_cells(pos: Position) -> list[str]:
    return [c for c in CELLS if pos.board[c] == "."]


def _rule2_moves(pos: Position) -> set[str]:
    """Rules 2 and 3 (as if rule 1 did not apply)."""
    allowed = set()
    outer_flips = False
    for c in empty_cells(pos):
        if ring(c) == 4:
            if _performs_flip(pos, c):
                allowed.add(c)
                outer_flips = True
        elif c == CENTRE:
            if _performs_flip(pos, c):
                allowed.add(c)
        else:
            allowed.add(c)  # any empty inner hex except the centre
    # Rule 3, centre exception.
    if pos.board[CENTRE] == ".":
        only_centre_left = all(pos.board[c] != "." for c in INNER if c != CENTRE)
        if only_centre_left and not outer_flips:
            allowed.add(CENTRE)
    return allowed


def _max_capture(pos: Position) -> tuple[int, set[str]]:
    """Largest capture count over all empty hexes and the hexes reaching it."""
    counts = {c: capture_count(pos, c) for c in empty_cells(pos)}
    best = max(counts.values(), default=0)
    return best, {c for c, n in counts.items() if n == best}


def legal_moves(pos: Position) -> list[str]:
    if is_finished(pos):
        return []
    if pos.penalty_claim:
        return empty_cells(pos)  # a claimed placement may go on any empty hex
    rule2 = _rule2_moves(pos)
    if pos.variant == "loose":
        return in_cells_order(rule2)
    best, forced = _max_capture(pos)
    if best == 0:
        return in_cells_order(rule2)
    if pos.penalty:
        return in_cells_order(forced | rule2)  # may skip the forced capture
    return in_cells_order(forced)


def play(pos: Position, cell: str) -> tuple[Position, dict]:
    if cell not in COORDS or cell not in legal_moves(pos):
        raise ValueError(f"illegal move {cell!r} in {format_position(pos)}")
    captured, released = flips(pos, cell)
    skip = False
    if pos.penalty and not pos.penalty_claim:
        best, forced = _max_capture(pos)
        skip = best > 0 and cell not in forced
    board = dict(pos.board)
    board[cell] = face_up_char(pos.to_move)
    for c in captured:
        board[c] = board[c].lower()
    for c in released:
        board[c] = board[c].upper()
    nxt = Position(board, opponent(pos.to_move), skip, pos.variant, pos.penalty)
    if skip and is_finished(nxt):
        # Decision: a skip that ends the game leaves nothing to claim.
        nxt = Position(board, opponent(pos.to_move), False, pos.variant, pos.penalty)
    return nxt, {"captured": captured, "released": released, "penalty_skip": skip}


# ---------------------------------------------------------------------------
# Consistency: what a state must show to be reachable at all
# ---------------------------------------------------------------------------
# Discs never move and never change owner; only their face turns.  So whatever a placement leaves on
# the board in terms of *occupied cells and owners* stays there for the rest of the game.

SUPPLY = {"black": 31, "white": 30}


def _opposite(direction: tuple[int, int]) -> tuple[int, int]:
    return (-direction[0], -direction[1])


def _walk(cell: str, direction: tuple[int, int]) -> list[str]:
    return RAYS[cell][DIRECTIONS.index(direction)]


def _end_of_run(board: dict[str, str], cell: str, direction: tuple[int, int]) -> str | None:
    """Walking from ``cell`` over discs of its owner, the first hex that is not one (None: off the board)."""
    mine = owner(board[cell])
    for c in _walk(cell, direction):
        if owner(board[c]) != mine:
            return c
    return None


def _flanked(board: dict[str, str], cell: str) -> bool:
    """A capture turned ``cell``: along one line, the capturer's discs at both ends of a run of discs
    of the captive's owner, ``cell`` among them."""
    theirs = opponent(owner(board[cell]))
    for direction in DIRECTIONS[::2]:  # one direction of each of the three lines
        ends = [_end_of_run(board, cell, way) for way in (direction, _opposite(direction))]
        if all(end is not None and owner(board[end]) == theirs for end in ends):
            return True
    return False


def _shows_flip(board: dict[str, str], cell: str) -> bool:
    """A flip from ``cell``: along one line, one or more discs (the run) and then a disc of the placer."""
    mine = owner(board[cell])
    for line in RAYS[cell]:
        for i in range(1, len(line)):
            if any(board[c] == "." for c in line[:i + 1]):
                break
            if owner(board[line[i]]) == mine:
                return True
    return False


def _plies(pos: Position) -> int:
    return sum(1 for c in CELLS if pos.board[c] != ".")


def _max_claims(pos: Position) -> dict[str, int]:
    """The most penalty claims each side can have made: a claim follows a skip, a skip needs a capture
    on offer (the mover's and the opponent's disc on the board: ply 3 at the earliest). Nothing bounds
    both sides together: a claim played from an accepted position must give an accepted one."""
    if not pos.penalty:
        return {"black": 0, "white": 0}
    n = _plies(pos)
    black = len(range(5, n + 1, 2))   # Black plays the odd plies
    white = len(range(4, n + 1, 2))   # White the even ones
    return {"black": black, "white": white}


def _unflipped(pos: Position, player: str) -> list[str]:
    """``player``'s discs on the outer ring or the centre that show no flip."""
    last_mover = opponent(pos.to_move)
    found = []
    for c in CELLS:
        if owner(pos.board[c]) != player or not _is_anchor_area(c):
            continue
        if c == CENTRE and is_finished(pos) and pos.board[c] == face_up_char(last_mover):
            continue  # may be the centre exception, the game's last placement
        if not _shows_flip(pos.board, c):
            found.append(c)
    return found


def refusal(pos: Position) -> tuple[str, str] | None:
    """(cell or field, reason) for a position no game can reach by these necessary conditions, else None."""
    black = sum(1 for c in CELLS if owner(pos.board[c]) == "black")
    white = sum(1 for c in CELLS if owner(pos.board[c]) == "white")
    for player, count in (("black", black), ("white", white)):
        if count > SUPPLY[player]:
            return "board", f"{player} has more discs than its supply"
    if black - white not in (0, 1):
        return "board", "disc counts that alternation cannot give"
    if pos.to_move != ("black" if black == white else "white"):
        return "to_move", "the counts say the other side is to move"
    last_mover = opponent(pos.to_move)
    if black + white and not any(pos.board[c] == face_up_char(last_mover) for c in CELLS):
        return "board", "the last mover has no face-up disc"
    if is_finished(pos) and not any(pos.board[c] == face_up_char(last_mover) for c in INNER):
        return "board", "the game is over but the last mover shows no face-up inner disc"
    if pos.penalty_claim and (black + white < 3 or is_finished(pos)):
        return "penalty_claim", "no claim can be pending"
    for c in CELLS:
        if is_captive(pos.board[c]) and not _flanked(pos.board, c):
            return c, "a captive with no capture line through it"
    each = _max_claims(pos)
    for player in PLAYERS:
        unflipped = _unflipped(pos, player)
        if len(unflipped) > each[player]:
            return unflipped[0], "a disc on the outer ring or the centre that shows no flip"
    return None


# ---------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------

def scores(pos: Position) -> dict[str, int]:
    result = {}
    for player in PLAYERS:
        up = face_up_char(player)
        if pos.variant == "simple":
            result[player] = sum(1 for c in CELLS if pos.board[c] == up)
        else:
            inner = sum(1 for c in INNER if pos.board[c] == up)
            outer = sum(1 for c in OUTER if pos.board[c] == up)
            result[player] = max(inner, 1) * max(outer, 1)
    return result


def winner(pos: Position) -> str | None:
    if not is_finished(pos):
        return None
    s = scores(pos)
    if s["black"] != s["white"]:
        return "black" if s["black"] > s["white"] else "white"
    centre = pos.board[CENTRE]
    if is_face_up(centre):
        return owner(centre)
    return opponent(owner(centre))  # captive centre: its owner loses


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def perft(pos: Position, depth: int) -> int:
    """Number of move sequences of exactly ``depth`` plies from ``pos``."""
    if depth == 0:
        return 1
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(play(pos, m)[0], depth - 1) for m in moves)
