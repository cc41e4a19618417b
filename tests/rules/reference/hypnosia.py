"""Naive reference model of Hypnosia, written from ``docs/rules/hypnosia.md``
alone (the rules, and the engine's notation in its last section: the "interface page").

This is a test oracle for the Rust engine: it favours obvious correctness over speed.  Everything is
plain dicts, lists and strings:

* a location is a string: ``"h1"``..``"h4"`` (home square at that distance), ``"<c>.<i>"`` (circle c,
  space i), ``"centre"`` or ``"captured"``;
* ``Position.pawns`` maps each seated colour to the locations of its 4 pawns, sorted as the interface
  page orders them (home by distance, circles by (circle, index), then centre, then captured);
* a move is a string in the interface page's notation (``roll``, ``5-4``, ``5-4: h2+5 0.3+4``,
  ``h2+5 0.3+4``, ``D0.17+4``, ``2.1^1``, ``pass``).

The model does not draw dice: rolls are supplied as moves (``5-4``).  To mirror an engine ``roll``,
pass the dice the engine drew: ``play(pos, "roll", drawn=(a, b))``.

Decisions taken here where both documents are silent (also in the report for this model):

1. **A unit is lifted off its start before its landing is judged.**  On a circle whose length divides
   the die (possible only on custom boards with a circle of length <= 6) a unit comes back to its own
   start space: a lone single or a double just stops there, and a single split from a double lands on
   its own partner and re-forms the double.  Such a move is legal (and changes nothing on the board).
2. **A single pawn of a double may cross a bridge directly** (``0.5^3`` from a double), also in the
   ``doubles_cross_bridges: false`` variant: moving one pawn of a double *is* splitting it.
3. **A double entering the centre with one free space** is reported as one die-move effect with
   ``pawns: 2`` (the unit the move named), ``to: "centre"``, and ``centre_points`` the one score.
4. **A board description must give all five fields** (``circles``, ``entries``, ``bridges``,
   ``centre_points``, ``home_length``); unknown extra fields are ignored.  Booleans are not integers.
5. **First player**: the model requires ``first_player`` in the options (it has no random source).
6. With dice rolled and no legal die move (possible only mid-turn in a hand-built position, or after
   a roll with nothing to move), the only legal move is ``pass``.
7. ``outcome`` gives ``winner``/``decided_by``/``ranking`` as ``None`` while the game runs.
8. Notation is strict: one space between die moves, ``": "`` after a roll prefix, no leading zeros;
   anything else is malformed.  ``Dh1+5`` and ``h1^5`` fit the notation's grammar (``[D]<from>(+|^)<die>``)
   and are *illegal* rather than malformed in the model (the cross-check only requires them refused).
9. A finished game has no legal moves (``[]``) and refuses every move (GameOver).
10. The model's own position text (``format_position``) is a JSON dump of ``to_dict``; the interface
   page does not fix a position string, so it is not compared with the engine's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
DEFAULT_SEATS = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 5: (0, 1, 2, 3, 4), 6: (0, 1, 2, 3, 4, 5)}
PAWNS_PER_PLAYER = 4
CENTRE_SPACES = 5

# The 21 distinct rolls (a <= b), as perft enumerates them.
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow here."""


class MalformedMove(ValueError):
    """A string that is not a move in the notation."""


class GameOver(ValueError):
    """A move on a finished game."""


class InvalidBoard(ValueError):
    """A bad board description; ``path`` names the faulty field (e.g. ``board.bridges[3].to``)."""

    def __init__(self, path: str, why: str):
        super().__init__(f"invalid-board: {path}: {why}")
        self.path = path
        self.why = why


class InvalidOptions(ValueError):
    """Bad game options (other than the board)."""


# ---------------------------------------------------------------------------
# The board as data
# ---------------------------------------------------------------------------

def default_board() -> dict:
    """The rules doc's default board: circles [36, 24, 12], seat s enters at 6s, 6 sectors per circle."""
    bridges = []
    for s in range(6):
        bridges.append({"from": [0, 6 * s + 5], "to": [1, 4 * s]})
    for s in range(6):
        bridges.append({"from": [1, 4 * s + 3], "to": [2, 2 * s]})
    for s in range(6):
        bridges.append({"from": [2, 2 * s + 1], "to": "centre"})
    return {
        "circles": [36, 24, 12],
        "entries": [0, 6, 12, 18, 24, 30],
        "bridges": bridges,
        "centre_points": [5, 4, 3, 2, 1],
        "home_length": 4,
    }


@dataclass(frozen=True)
class Board:
    description: dict          # the validated JSON description, as given
    circles: tuple             # lengths, outermost first
    entries: tuple             # outer-circle space for each of the 6 seats
    bridges: dict              # (circle, index) -> (circle + 1, index) or "centre"
    centre_points: tuple


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_board(desc) -> Board:
    """Check a board description as the rules doc and the interface page list; raise InvalidBoard."""
    if not isinstance(desc, dict):
        raise InvalidBoard("board", "must be an object")
    for key in ("circles", "entries", "bridges", "centre_points", "home_length"):
        if key not in desc:
            raise InvalidBoard(f"board.{key}", "missing")

    circles = desc["circles"]
    if not isinstance(circles, list) or not circles:
        raise InvalidBoard("board.circles", "must be a non-empty list")
    if len(circles) > 8:
        raise InvalidBoard("board.circles", "at most 8 circles")
    for c, length in enumerate(circles):
        if not _is_int(length) or length < 1 or length > 360:
            raise InvalidBoard(f"board.circles[{c}]", "a circle's length must be an int in 1..360")

    entries = desc["entries"]
    if not isinstance(entries, list) or len(entries) != 6:
        raise InvalidBoard("board.entries", "must list exactly 6 entries")
    for s, entry in enumerate(entries):
        if not _is_int(entry) or not 0 <= entry < circles[0]:
            raise InvalidBoard(f"board.entries[{s}]", "must be a space of the outer circle")

    bridges = desc["bridges"]
    if not isinstance(bridges, list):
        raise InvalidBoard("board.bridges", "must be a list")
    innermost = len(circles) - 1
    table = {}
    for k, bridge in enumerate(bridges):
        where = f"board.bridges[{k}]"
        if not isinstance(bridge, dict) or "from" not in bridge or "to" not in bridge:
            raise InvalidBoard(where, "a bridge is an object with 'from' and 'to'")
        frm, to = bridge["from"], bridge["to"]
        if not (isinstance(frm, list) and len(frm) == 2 and _is_int(frm[0]) and _is_int(frm[1])):
            raise InvalidBoard(f"{where}.from", "must be [circle, index]")
        c, i = frm
        if not 0 <= c < len(circles):
            raise InvalidBoard(f"{where}.from", "no such circle")
        if not 0 <= i < circles[c]:
            raise InvalidBoard(f"{where}.from", "index out of range")
        if c == innermost:
            if to != "centre":
                raise InvalidBoard(f"{where}.to", "a bridge of the innermost circle leads to the centre")
            target = "centre"
        else:
            if not (isinstance(to, list) and len(to) == 2 and _is_int(to[0]) and _is_int(to[1])):
                raise InvalidBoard(f"{where}.to", "must be [circle + 1, index]")
            if to[0] != c + 1:
                raise InvalidBoard(f"{where}.to", "a bridge goes exactly one circle inward")
            if not 0 <= to[1] < circles[c + 1]:
                raise InvalidBoard(f"{where}.to", "index out of range")
            target = (to[0], to[1])
        if (c, i) in table:
            raise InvalidBoard(f"{where}.from", "a space holds at most one bridge")
        table[(c, i)] = target

    for c in range(len(circles)):
        if not any(src[0] == c for src in table):
            if c == innermost:
                raise InvalidBoard("board.bridges", f"the innermost circle {c} needs a bridge to the centre")
            raise InvalidBoard("board.bridges", f"circle {c} needs at least one bridge")

    points = desc["centre_points"]
    if not isinstance(points, list) or len(points) != CENTRE_SPACES or not all(_is_int(p) for p in points):
        raise InvalidBoard("board.centre_points", "must be exactly 5 ints")

    if not _is_int(desc["home_length"]) or desc["home_length"] != PAWNS_PER_PLAYER:
        raise InvalidBoard("board.home_length", "must be 4")

    return Board(desc, tuple(circles), tuple(entries), table, tuple(points))


# ---------------------------------------------------------------------------
# Locations
# ---------------------------------------------------------------------------

def is_home(loc: str) -> bool:
    return loc.startswith("h")


def is_circle(loc: str) -> bool:
    return loc[0].isdigit()


def is_active(loc: str) -> bool:
    """At home or on a circle (not in the centre, not captured)."""
    return is_home(loc) or is_circle(loc)


def home_distance(loc: str) -> int:
    return int(loc[1:])


def circle_space(loc: str) -> tuple[int, int]:
    c, i = loc.split(".")
    return int(c), int(i)


def circle_loc(c: int, i: int) -> str:
    return f"{c}.{i}"


def location_key(loc: str) -> tuple:
    if is_home(loc):
        return (0, home_distance(loc), 0)
    if is_circle(loc):
        c, i = circle_space(loc)
        return (1, c, i)
    if loc == "centre":
        return (2, 0, 0)
    return (3, 0, 0)


def sort_locations(locs) -> tuple:
    return tuple(sorted(locs, key=location_key))


# ---------------------------------------------------------------------------
# Position
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Position:
    board: Board
    seats: tuple               # seated seat numbers, ascending
    doubles_cross_bridges: bool
    to_move: str | None        # colour, None when the game is over
    dice: tuple | None         # None before the roll, else the unused dice in the order they remain
    pawns: dict                # colour -> sorted tuple of 4 locations (never mutated)
    scores: dict               # colour -> int
    centre: tuple              # colours in order of entry, one per pawn
    captures: dict             # colour -> enemy pawns captured

    def colours(self) -> list[str]:
        return [COLOURS[s] for s in self.seats]


def seat_of(colour: str) -> int:
    return COLOURS.index(colour)


def _parse_options(options: dict) -> tuple:
    options = dict(options or {})
    known = {"players", "seats", "first_player", "doubles_cross_bridges", "board"}
    for key in options:
        if key not in known:
            raise InvalidOptions(f"unknown option {key!r}")
    players = options.get("players")
    seats = options.get("seats")
    if players is not None and (not _is_int(players) or not 2 <= players <= 6):
        raise InvalidOptions("players must be 2..6")
    if seats is not None:
        if not isinstance(seats, list) or not all(_is_int(s) and 0 <= s <= 5 for s in seats):
            raise InvalidOptions("seats must be a list of seat numbers 0..5")
        if len(set(seats)) != len(seats):
            raise InvalidOptions("seats must be distinct")
        if not 2 <= len(seats) <= 6:
            raise InvalidOptions("2..6 seats")
        if players is not None and players != len(seats):
            raise InvalidOptions("players and seats disagree")
        seats = tuple(sorted(seats))
    else:
        seats = DEFAULT_SEATS[players if players is not None else 2]
    doubles = options.get("doubles_cross_bridges", True)
    if not isinstance(doubles, bool):
        raise InvalidOptions("doubles_cross_bridges must be a bool")
    board = validate_board(options["board"] if "board" in options else default_board())
    first = options.get("first_player")
    if first is None:
        raise InvalidOptions("the model needs first_player given explicitly")
    if first not in [COLOURS[s] for s in seats]:
        raise InvalidOptions(f"first_player {first!r} is not seated")
    return seats, doubles, board, first


def initial(options: dict) -> Position:
    """The position before the first roll, from the engine's option dict (first_player required)."""
    seats, doubles, board, first = _parse_options(options)
    colours = [COLOURS[s] for s in seats]
    home = tuple(f"h{k}" for k in range(1, PAWNS_PER_PLAYER + 1))
    return Position(
        board=board,
        seats=seats,
        doubles_cross_bridges=doubles,
        to_move=first,
        dice=None,
        pawns={c: home for c in colours},
        scores={c: 0 for c in colours},
        centre=(),
        captures={c: 0 for c in colours},
    )


def derived_scores(board: Board, pawns: dict, centre, captures: dict) -> dict:
    """Points = centre points of own entries + enemy pawns captured - own pawns lost."""
    result = {}
    for colour in pawns:
        points = sum(board.centre_points[n] for n, who in enumerate(centre) if who == colour)
        lost = sum(1 for loc in pawns[colour] if loc == "captured")
        result[colour] = points + captures[colour] - lost
    return result


def make_position(options: dict, pawns: dict, to_move, dice=None, centre=(), captures=None) -> Position:
    """A hand-built position; scores are derived from centre entries and captures.  Checked."""
    seats, doubles, board, _ = _parse_options({**options, "first_player": to_move or COLOURS[_first_seat(options)]})
    colours = [COLOURS[s] for s in seats]
    if captures is None:
        captures = {c: 0 for c in colours}
    pawns = {c: sort_locations(pawns[c]) for c in colours}
    captures = {c: captures.get(c, 0) for c in colours}
    pos = Position(board, seats, doubles, to_move, tuple(dice) if dice is not None else None, pawns,
                   derived_scores(board, pawns, tuple(centre), captures), tuple(centre), captures)
    check_position(pos)
    return pos


def _first_seat(options: dict) -> int:
    if options.get("seats"):
        return min(options["seats"])
    return DEFAULT_SEATS[options.get("players", 2)][0]


def check_position(pos: Position) -> None:
    """Consistency of a position (raises ValueError); every reachable position passes."""
    colours = pos.colours()
    if set(pos.pawns) != set(colours):
        raise ValueError("pawns must list every seated colour")
    occupants: dict[str, list[str]] = {}
    for colour in colours:
        locs = pos.pawns[colour]
        if len(locs) != PAWNS_PER_PLAYER:
            raise ValueError(f"{colour} needs 4 pawns")
        if tuple(sorted(locs, key=location_key)) != tuple(locs):
            raise ValueError(f"{colour}'s pawns are not in order")
        homes = [loc for loc in locs if is_home(loc)]
        if len(set(homes)) != len(homes):
            raise ValueError("home pawns never stack")
        for loc in locs:
            if is_home(loc):
                if not 1 <= home_distance(loc) <= PAWNS_PER_PLAYER:
                    raise ValueError(f"bad home square {loc}")
            elif is_circle(loc):
                c, i = circle_space(loc)
                if not (0 <= c < len(pos.board.circles) and 0 <= i < pos.board.circles[c]):
                    raise ValueError(f"no such space {loc}")
                occupants.setdefault(loc, []).append(colour)
            elif loc not in ("centre", "captured"):
                raise ValueError(f"bad location {loc!r}")
        if sum(1 for loc in locs if loc == "centre") != pos.centre.count(colour):
            raise ValueError(f"{colour}'s centre pawns disagree with the centre list")
    for loc, who in occupants.items():
        if len(who) > 2 or len(set(who)) > 1:
            raise ValueError(f"space {loc} holds {who}")
    if len(pos.centre) > CENTRE_SPACES:
        raise ValueError("the centre holds 5 pawns")
    lost = sum(1 for c in colours for loc in pos.pawns[c] if loc == "captured")
    if sum(pos.captures.values()) != lost:
        raise ValueError("captures disagree with captured pawns")
    if pos.scores != derived_scores(pos.board, pos.pawns, pos.centre, pos.captures):
        raise ValueError("scores disagree with centre entries and captures")
    if is_finished(pos):
        if pos.to_move is not None or pos.dice is not None:
            raise ValueError("a finished game has nobody to move and no dice")
    else:
        if pos.to_move not in colours:
            raise ValueError("to_move must be a seated colour")
        if not any(is_active(loc) for loc in pos.pawns[pos.to_move]):
            raise ValueError("the player to move has no pawn to move")
        if pos.dice is not None:
            if len(pos.dice) not in (1, 2) or not all(_is_int(d) and 1 <= d <= 6 for d in pos.dice):
                raise ValueError("dice are one or two values 1..6")


def is_finished(pos: Position) -> bool:
    return _game_over(pos.pawns, pos.centre)


def _game_over(pawns: dict, centre) -> bool:
    if len(centre) >= CENTRE_SPACES:
        return True
    return all(not is_active(loc) for locs in pawns.values() for loc in locs)


# ---------------------------------------------------------------------------
# Serialisation (the model's own; the compared projection is ``projection``)
# ---------------------------------------------------------------------------

def projection(pos: Position) -> dict:
    """The fields the interface page says the engine's state has and the cross-check compares."""
    return {
        "to_move": pos.to_move,
        "dice": list(pos.dice) if pos.dice is not None else None,
        "pawns": {c: list(pos.pawns[c]) for c in pos.colours()},
        "scores": dict(pos.scores),
        "centre": list(pos.centre),
        "captures": dict(pos.captures),
    }


def to_dict(pos: Position) -> dict:
    return {
        "options": {"seats": list(pos.seats), "doubles_cross_bridges": pos.doubles_cross_bridges,
                    "board": pos.board.description},
        **projection(pos),
    }


def from_dict(data: dict) -> Position:
    pos = make_position(data["options"], data["pawns"], data["to_move"], data["dice"], data["centre"],
                        data["captures"])
    if pos.scores != data["scores"]:
        raise ValueError("scores disagree with centre entries and captures")
    return pos


def format_position(pos: Position) -> str:
    return json.dumps(to_dict(pos), sort_keys=True, separators=(",", ":"))


def parse_position(text: str) -> Position:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad position text: {exc}") from None
    return from_dict(data)


# ---------------------------------------------------------------------------
# Move notation
# ---------------------------------------------------------------------------

DIE_MOVE = re.compile(r"^(D?)(h[1-4]|(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*))([+^])([1-6])$")
ROLL = re.compile(r"^([1-6])-([1-6])$")
ROLL_TURN = re.compile(r"^([1-6])-([1-6]): (.+)$")


@dataclass(frozen=True)
class DieMove:
    double: bool
    frm: str
    cross: bool
    die: int

    def __str__(self) -> str:
        return f"{'D' if self.double else ''}{self.frm}{'^' if self.cross else '+'}{self.die}"


def parse_die_move(text: str) -> DieMove:
    m = DIE_MOVE.match(text)
    if not m:
        raise MalformedMove(f"not a die move: {text!r}")
    return DieMove(m.group(1) == "D", m.group(2), m.group(3) == "^", int(m.group(4)))


def parse_turn(text: str) -> list[DieMove] | None:
    """A whole turn: ``pass`` (returns []) or one or two die moves separated by one space."""
    if text == "pass":
        return []
    parts = text.split(" ")
    if len(parts) > 2:
        raise MalformedMove(f"a turn has at most two die moves: {text!r}")
    return [parse_die_move(p) for p in parts]


# ---------------------------------------------------------------------------
# One die move
# ---------------------------------------------------------------------------

def next_active(pawns: dict, seats: tuple, mover: str) -> str | None:
    """The next seated player with the next LOWER seat number (wrapping) who still has a pawn to move."""
    order = list(seats)  # ascending
    at = order.index(seat_of(mover))
    for step in range(1, len(order) + 1):
        colour = COLOURS[order[(at - step) % len(order)]]
        if any(is_active(loc) for loc in pawns[colour]):
            return colour
    return None


def _replace(locs, old: str, new: str, count: int) -> tuple:
    """``locs`` with ``count`` occurrences of ``old`` replaced by ``new``, sorted."""
    out = list(locs)
    for _ in range(count):
        out[out.index(old)] = new
    return sort_locations(out)


def apply_die_move(pos: Position, dm: DieMove) -> tuple[Position, dict]:
    """Play one die move for the player to move, using one of ``pos.dice``.

    Returns the position after it, with that die removed from ``dice`` and the same player to move (the
    turn logic ends turns), and the die move's effect.  Raises IllegalMove.
    """
    mover = pos.to_move
    if pos.dice is None or dm.die not in pos.dice:
        raise IllegalMove(f"no die {dm.die} to use")
    board = pos.board
    own = pos.pawns[mover]

    # The unit and where its last step ends.
    if is_home(dm.frm):
        k = home_distance(dm.frm)
        if dm.double or dm.cross:
            raise IllegalMove("a home pawn moves alone and along its track")
        if dm.frm not in own:
            raise IllegalMove(f"no pawn at {dm.frm}")
        if dm.die < k:
            raise IllegalMove(f"a pawn at home distance {k} needs a die >= {k}")
        unit = 1
        dest = circle_loc(0, (board.entries[seat_of(mover)] + dm.die - k) % board.circles[0])
    else:
        c, i = circle_space(dm.frm)
        if not (0 <= c < len(board.circles) and 0 <= i < board.circles[c]):
            raise IllegalMove(f"no such space {dm.frm}")
        here = own.count(dm.frm)
        if here == 0:
            raise IllegalMove(f"no pawn of {mover} at {dm.frm}")
        unit = 2 if dm.double else 1
        if unit == 2 and here != 2:
            raise IllegalMove(f"no double at {dm.frm}")
        if dm.cross:
            if (c, i) not in board.bridges:
                raise IllegalMove(f"{dm.frm} is not a bridge")
            if unit == 2 and not pos.doubles_cross_bridges:
                raise IllegalMove("a double cannot cross a bridge in this variant")
            target = board.bridges[(c, i)]
            if target == "centre":
                if dm.die != 1:
                    raise IllegalMove("entering the centre needs a die of exactly 1")
                dest = "centre"
            else:
                tc, tj = target
                dest = circle_loc(tc, (tj + dm.die - 1) % board.circles[tc])
        else:
            dest = circle_loc(c, (i + dm.die) % board.circles[c])

    pawns = dict(pos.pawns)
    centre = list(pos.centre)
    captures = dict(pos.captures)
    captured = []
    points = 0

    if dest == "centre":
        free = CENTRE_SPACES - len(centre)
        entering = min(unit, free)  # a double with one free space: one pawn enters, the other stays
        for _ in range(entering):
            points += board.centre_points[len(centre)]
            centre.append(mover)
        pawns[mover] = _replace(own, dm.frm, "centre", entering)
    else:
        # Lift the unit off its start, then judge the landing (decision 1 in the module docstring).
        lifted = list(own)
        for _ in range(unit):
            lifted.remove(dm.frm)
        there = {colour: (lifted if colour == mover else list(pawns[colour])).count(dest) for colour in pawns}
        there = {colour: n for colour, n in there.items() if n}
        if there:
            (owner, count), = there.items()  # one player per space
            if owner == mover:
                if not (unit == 1 and count == 1):
                    raise IllegalMove("at most 2 pawns per space: only a single joins an own single")
            else:
                if unit == 1 and count == 2:
                    raise IllegalMove("a single may not end on an enemy double")
                pawns[owner] = _replace(pawns[owner], dest, "captured", count)
                captures[mover] += count
                captured.append({"player": owner, "pawns": count})
        pawns[mover] = _replace(own, dm.frm, dest, unit)

    dice = list(pos.dice)
    dice.remove(dm.die)
    centre = tuple(centre)
    after = Position(board, pos.seats, pos.doubles_cross_bridges, mover, tuple(dice), pawns,
                     derived_scores(board, pawns, centre, captures), centre, captures)
    effect = {"from": dm.frm, "pawns": unit, "die": dm.die, "cross": dm.cross, "to": dest,
              "captured": captured, "centre_points": points}
    return after, effect


def candidate_die_moves(pos: Position, die: int) -> list[DieMove]:
    """Every die move of the notation the player to move might make with ``die`` (legal or not)."""
    out = []
    own = pos.pawns[pos.to_move]
    for loc in sorted(set(own), key=location_key):
        if is_home(loc):
            out.append(DieMove(False, loc, False, die))
        elif is_circle(loc):
            for double in (False, True):
                for cross in (False, True):
                    out.append(DieMove(double, loc, cross, die))
    return out


def legal_die_moves(pos: Position, die: int) -> list[tuple[DieMove, Position, dict]]:
    out = []
    for dm in candidate_die_moves(pos, die):
        try:
            after, effect = apply_die_move(pos, dm)
        except IllegalMove:
            continue
        out.append((dm, after, effect))
    return out


# ---------------------------------------------------------------------------
# Turns
# ---------------------------------------------------------------------------

def turn_sequences(pos: Position) -> list[list[DieMove]]:
    """Every legal whole (remaining) turn as a list of die moves; [[]] means the turn is ``pass``."""
    assert pos.dice is not None and pos.to_move is not None
    found = []  # (die moves, dice used)
    dice = list(pos.dice)
    for first_index in range(len(dice)):
        d1 = dice[first_index]
        for dm1, after1, _ in legal_die_moves(pos, d1):
            if is_finished(after1):
                found.append(([dm1], len(dice)))  # a game-ending die move counts as using every die
                continue
            if len(dice) == 1:
                found.append(([dm1], 1))
                continue
            seconds = legal_die_moves(after1, after1.dice[0])
            if seconds:
                for dm2, _, _ in seconds:
                    found.append(([dm1, dm2], 2))
            else:
                found.append(([dm1], 1))
    if not found:
        return [[]]
    most = max(used for _, used in found)
    return [seq for seq, used in found if used == most]


def turn_text(seq: list[DieMove]) -> str:
    return " ".join(str(dm) for dm in seq) if seq else "pass"


def legal_moves(pos: Position) -> list[str]:
    if is_finished(pos):
        return []
    if pos.dice is None:
        return ["roll"]
    return sorted({turn_text(seq) for seq in turn_sequences(pos)})


def first_die_moves(pos: Position) -> list[str]:
    """The single die moves accepted when two dice remain: first die moves of legal whole turns."""
    if is_finished(pos) or pos.dice is None or len(pos.dice) != 2:
        return []
    return sorted({str(seq[0]) for seq in turn_sequences(pos) if seq})


def _end_turn(pos: Position) -> Position:
    """The turn is over: clear the dice, pass to the next player (or nobody when the game is over)."""
    if is_finished(pos):
        to_move = None
    else:
        to_move = next_active(pos.pawns, pos.seats, pos.to_move)
    return Position(pos.board, pos.seats, pos.doubles_cross_bridges, to_move, None, pos.pawns, pos.scores,
                    pos.centre, pos.captures)


def _with_dice(pos: Position, dice) -> Position:
    return Position(pos.board, pos.seats, pos.doubles_cross_bridges, pos.to_move, tuple(dice), pos.pawns,
                    pos.scores, pos.centre, pos.captures)


def _play_turn(pos: Position, text: str) -> tuple[Position, list[dict], bool]:
    """Play a whole remaining turn (or one die move of two); returns (position, die effects, turn over)."""
    seq = parse_turn(text)
    sequences = turn_sequences(pos)
    if text in {turn_text(s) for s in sequences}:
        effects = []
        for dm in seq:
            pos, effect = apply_die_move(pos, dm)
            effects.append(effect)
        return _end_turn(pos), effects, True
    if len(seq) == 1 and len(pos.dice) == 2 and text in {str(s[0]) for s in sequences if s}:
        pos, effect = apply_die_move(pos, seq[0])
        if is_finished(pos) or not legal_die_moves(pos, pos.dice[0]):
            return _end_turn(pos), [effect], True
        return pos, [effect], False
    raise IllegalMove(f"illegal turn {text!r}")


def play(pos: Position, move: str, drawn: tuple | None = None) -> tuple[Position, dict]:
    """Play ``move`` (any form the interface page accepts); never mutates ``pos``.

    ``roll`` needs the engine's drawn dice as ``drawn=(a, b)`` (the model has no random source).
    Raises MalformedMove / IllegalMove / GameOver (all ValueError).
    """
    if not isinstance(move, str):
        raise MalformedMove("a move is a string")
    if is_finished(pos):
        raise GameOver("the game is over")
    effects = {"player": pos.to_move, "roll": None, "drawn": False, "moves": [], "turn_over": False,
               "passed": False}
    if pos.dice is None:
        m_roll, m_turn = ROLL.match(move), ROLL_TURN.match(move)
        if move == "roll":
            if drawn is None:
                raise ValueError("the model cannot draw dice: pass drawn=(a, b)")
            a, b = drawn
            if not (_is_int(a) and _is_int(b) and 1 <= a <= 6 and 1 <= b <= 6):
                raise ValueError("drawn dice must be 1..6")
            effects["roll"], effects["drawn"] = [a, b], True
            return _with_dice(pos, (a, b)), effects
        if m_roll:
            a, b = int(m_roll.group(1)), int(m_roll.group(2))
            effects["roll"] = [a, b]
            return _with_dice(pos, (a, b)), effects
        if m_turn:
            a, b = int(m_turn.group(1)), int(m_turn.group(2))
            rest = m_turn.group(3)
            parse_turn(rest)  # malformed?
            rolled = _with_dice(pos, (a, b))
            if rest not in legal_moves(rolled):
                raise IllegalMove(f"{rest!r} is not a legal whole turn for {a}-{b}")
            after, moves, _ = _play_turn(rolled, rest)
            effects.update(roll=[a, b], moves=moves, turn_over=True, passed=(rest == "pass"))
            return after, effects
        # A die move or turn before the roll is well-formed but not allowed now.
        if move == "pass" or _well_formed_turn(move):
            raise IllegalMove("roll first")
        raise MalformedMove(f"not a move: {move!r}")
    if move == "roll" or ROLL.match(move) or ROLL_TURN.match(move):
        raise IllegalMove("the dice are already rolled")
    if move == "pass":
        if legal_moves(pos) != ["pass"]:
            raise IllegalMove("a die can be used: no pass")
        effects.update(turn_over=True, passed=True)
        return _end_turn(pos), effects
    parse_turn(move)  # raises MalformedMove
    after, moves, over = _play_turn(pos, move)
    effects.update(moves=moves, turn_over=over)
    return after, effects


def _well_formed_turn(text: str) -> bool:
    try:
        parse_turn(text)
    except MalformedMove:
        return False
    return True


def is_legal(pos: Position, move: str) -> bool:
    try:
        play(pos, move, drawn=(1, 1) if move == "roll" else None)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------
# Outcome
# ---------------------------------------------------------------------------

def ranking(pos: Position) -> list[list[str]]:
    """Ranks best first: by points; among tied players, earlier first centre entry ranks higher;
    tied players with no centre pawn share a rank below those with one.  Seat order within a rank."""
    colours = pos.colours()
    first_entry = {c: pos.centre.index(c) for c in colours if c in pos.centre}
    ranks = []
    for points in sorted(set(pos.scores.values()), reverse=True):
        tied = [c for c in colours if pos.scores[c] == points]
        with_centre = sorted((c for c in tied if c in first_entry), key=lambda c: first_entry[c])
        ranks += [[c] for c in with_centre]
        without = [c for c in tied if c not in first_entry]
        if without:
            ranks.append(without)
    return ranks


def outcome(pos: Position) -> dict:
    result = {"status": "ongoing", "to_move": pos.to_move, "scores": dict(pos.scores), "winner": None,
              "decided_by": None, "ranking": None}
    if not is_finished(pos):
        return result
    ranks = ranking(pos)
    top = ranks[0]
    top_points = pos.scores[top[0]]
    alone_on_points = sum(1 for c in pos.colours() if pos.scores[c] == top_points) == 1
    if len(top) > 1:
        winner, decided_by = None, "shared"
    elif alone_on_points:
        winner, decided_by = top[0], "score"
    else:
        winner, decided_by = top[0], "first_to_centre"
    result.update(status="finished", to_move=None, winner=winner, decided_by=decided_by, ranking=ranks)
    return result


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def children(pos: Position) -> list[Position]:
    """Positions one ply (one whole turn) later; before the roll, over the 21 distinct rolls."""
    if is_finished(pos):
        return []
    if pos.dice is None:
        out = []
        for a, b in ROLLS:
            rolled = _with_dice(pos, (a, b))
            out += [play(rolled, turn)[0] for turn in legal_moves(rolled)]
        return out
    return [play(pos, turn)[0] for turn in legal_moves(pos)]


def perft(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    if is_finished(pos):
        return 0
    if depth == 1:
        if pos.dice is None:
            return sum(len(legal_moves(_with_dice(pos, roll))) for roll in ROLLS)
        return len(legal_moves(pos))
    return sum(perft(child, depth - 1) for child in children(pos))
