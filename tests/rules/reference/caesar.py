"""Naive reference model of Caesar! (Seize Rome in 20 Minutes), written from ``docs/rules/caesar.md``
alone (the rules, and the engine's names and notation in its last section: the "interface page").

This is a test oracle for the Rust engine: it favours obvious correctness over speed.  A position
holds exactly the fields of the spec's "state projection" (plain dicts, lists and strings); ``play``
works on a deep copy and never mutates its input.

Chance.  The model does not implement the engine's seeded generator.  ``initial`` needs the bonus
layout and both hands explicitly, and ``play`` takes the draws of a turn from the move's ``=<token>``
suffixes, or from a ``draw`` callback the caller supplies (``draw(player, bag) -> token``), or -- when
neither is given -- only where the draw is forced (empty bag, or a bag of identical tokens); otherwise
it raises ``DrawsNeeded`` (a ``ValueError``).  ``perft`` is exact wherever the count does not depend
on the draws and raises ``ChanceDependent`` where it would (see ``perft``).

Decisions taken where both the rules and the interface page are silent:

* A twelfth marker ends the game at once: the closures still to resolve do not start (they do not
  appear in ``effects["closures"]``; their provinces keep their bonus token and stay uncontrolled),
  no choice after it is read, no draw after it happens, and the turn does not pass: ``to_move`` in the
  state stays the mover.  (``outcome`` reports ``to_move`` None for every finished game.)
* ``effects["extra_turn"]`` is True when a tactics was used and the game is not over by the twelfth
  marker (an extra turn that then starts with no token or no space is still reported as granted).
* ``effects["winner"]`` is the winner of the game if it is over after the move, whatever the cause:
  the twelfth marker, or the player now to move having no token / no legal space.
* ``outcome["to_move"]`` is None once the game is finished (as in the project's Iago model).
* A closure whose province has no bonus token (only possible in a hand-built position) takes no
  choice and records ``"bonus": None``.
* Might may target any face-up, uncovered opponent token, even one whose provinces are both closed
  already (it then changes nothing); a token covered by a border marker placed earlier in the same
  resolution is no longer a target.  A neighbour closed earlier in the same placement counts as
  "already controlled" for step 4.
* With several tactics in one placement every ``T``/``-`` combination is a distinct legal move
  (``T T``, ``T -`` and ``- T`` all give the one extra turn).
* The player view (``view``) is the projection with ``hands`` holding only the viewer's own hand,
  no ``bags`` field, and ``hand_sizes`` / ``bag_sizes`` for both players.
* The spec fixes no position text format for Caesar!, so the model has none: a position is
  compared (and built by hand) through its projection (``projection`` / ``from_projection``).
"""

from __future__ import annotations

import copy
import re

# ---------------------------------------------------------------------------
# Names and map data
# ---------------------------------------------------------------------------

PLAYERS = ("caesar", "pompey")


def opponent(player: str) -> str:
    return "pompey" if player == "caesar" else "caesar"


# Table order: the rules table's left column top to bottom, then the right column.
PROVINCES = ["HU", "HC", "MT", "SD", "GA", "NU", "SC", "IT", "GC",
             "AF", "AC", "MD", "DM", "CY", "CR", "AG", "AS", "SY"]

PROVINCE_NAMES = {
    "HU": "Hispania Ulterior", "HC": "Hispania Citerior", "MT": "Mauretania", "SD": "Sardinia",
    "GA": "Gallia", "NU": "Numidia", "SC": "Sicilia", "IT": "Italia", "GC": "Gallia Cisalpina",
    "AF": "Africa", "AC": "Achaea", "MD": "Macedonia", "DM": "Dalmatia", "CY": "Cyrenaica",
    "CR": "Creta", "AG": "Aegyptus", "AS": "Asia", "SY": "Syria",
}

# Number of border spaces around each province, as the rules table gives it.
BORDER_COUNTS = {
    "HU": 2, "HC": 2, "MT": 3, "SD": 4, "GA": 3, "NU": 3, "SC": 4, "IT": 6, "GC": 3,
    "AF": 4, "AC": 4, "MD": 3, "DM": 3, "CY": 3, "CR": 4, "AG": 4, "AS": 3, "SY": 2,
}

# The rules' border list, copied row by row; reading order = border order.
_BORDER_TEXT = """
HU-HC shield   HU-MT ship     HC-GA sword    MT-SD ship     MT-NU sword
SD-GA shield   SD-SC ship     SD-IT shield   GA-GC sword    NU-SC ship
NU-AF sword    SC-IT sword    SC-AF ship     IT-GC sword    IT-AC ship
IT-MD shield   IT-DM ship     GC-DM shield   AF-AC ship     AF-CY shield
AC-MD sword    AC-CR shield   MD-DM sword    CY-CR shield   CY-AG sword
CR-AG ship     CR-AS shield   AG-AS ship     AG-SY sword    AS-SY shield
"""

BORDERS: list[str] = []          # border ids in border order
BORDER_ICON: dict[str, str] = {}  # border id -> sword | shield | ship
BORDER_ENDS: dict[str, tuple[str, str]] = {}  # border id -> (A, B) as listed
_words = _BORDER_TEXT.split()
for _i in range(0, len(_words), 2):
    _bid, _icon = _words[_i], _words[_i + 1]
    BORDERS.append(_bid)
    BORDER_ICON[_bid] = _icon
    _a, _b = _bid.split("-")
    BORDER_ENDS[_bid] = (_a, _b)


def borders_of(province: str) -> list[str]:
    """The border ids around ``province``, in border order."""
    return [b for b in BORDERS if province in BORDER_ENDS[b]]


def canonical_border(a: str, b: str) -> str | None:
    """The listed id of the border between ``a`` and ``b`` (either order), or None."""
    for bid in BORDERS:
        if BORDER_ENDS[bid] == (a, b) or BORDER_ENDS[bid] == (b, a):
            return bid
    return None


def other_end(bid: str, province: str) -> str:
    a, b = BORDER_ENDS[bid]
    return b if province == a else a


assert len(BORDERS) == 30 and len(set(BORDERS)) == 30
assert all(sum(1 for b in BORDERS if BORDER_ICON[b] == icon) == 10 for icon in ("sword", "shield", "ship"))
assert all(len(borders_of(p)) == BORDER_COUNTS[p] for p in PROVINCES)

# ---------------------------------------------------------------------------
# Tokens and bonuses
# ---------------------------------------------------------------------------

ICON_LETTERS = {"L": "laurel", "S": "sword", "D": "shield", "N": "ship"}

# Token order: laurel, sword, shield, ship; larger first number first.
TOKEN_ORDER = ["L40", "L31", "L22",
               "S60", "S51", "S42", "S33",
               "D60", "D51", "D42", "D33",
               "N60", "N51", "N42", "N33"]
FULL_BAG = ["L40", "L31", "L22", "L22",
            "S60", "S51", "S42", "S33",
            "D60", "D51", "D42", "D33",
            "N60", "N51", "N42", "N33"]
assert len(FULL_BAG) == 16


def token_sorted(tokens) -> list[str]:
    return sorted(tokens, key=TOKEN_ORDER.index)


def token_icon(token: str) -> str:
    return ICON_LETTERS[token[0]]


def token_numbers(token: str) -> tuple[int, int]:
    """(larger, smaller) numbers of a token."""
    return int(token[1]), int(token[2])


def is_symmetric(token: str) -> bool:
    first, second = token_numbers(token)
    return first == second


def fits(token: str, bid: str) -> bool:
    """Icon matching: a laurel goes anywhere, other tokens on a border of their own icon."""
    return token_icon(token) == "laurel" or token_icon(token) == BORDER_ICON[bid]


BONUSES = ("senate", "tactics", "wealth", "might")
# The 17 bonus tokens laid out by chance (IT always holds the 6th senate).
BONUS_MULTISET = {"senate": 5, "tactics": 4, "wealth": 4, "might": 4}
CHOICE_LETTER = {"tactics": "T", "wealth": "W", "might": "M"}

WINNING_MARKERS = 12


class DrawsNeeded(ValueError):
    """A draw had to be made but the move listed none and no ``draw`` callback was given."""


class ChanceDependent(Exception):
    """``perft`` met a count that depends on which tokens are drawn."""


# ---------------------------------------------------------------------------
# Position
# ---------------------------------------------------------------------------

PROJECTION_KEYS = ("to_move", "borders", "provinces", "italia_dashed", "hands", "bags",
                   "hand_limits", "senate", "markers")


def _copy_state(s: dict) -> dict:
    """A deep copy of a state dict of the projection's shape (plain, and faster than copy.deepcopy)."""
    return {
        "to_move": s["to_move"],
        "borders": {bid: None if cell is None else dict(cell, faces=dict(cell["faces"]))
                    for bid, cell in s["borders"].items()},
        "provinces": {code: dict(prov) for code, prov in s["provinces"].items()},
        "italia_dashed": s["italia_dashed"],
        "hands": {p: list(tokens) for p, tokens in s["hands"].items()},
        "bags": {p: list(tokens) for p, tokens in s["bags"].items()},
        "hand_limits": dict(s["hand_limits"]),
        "senate": dict(s["senate"]),
        "markers": dict(s["markers"]),
    }


class Position:
    """A game position: exactly the spec's state projection, held as a private deep copy.

    Read it through ``projection(pos)`` (a fresh copy) or the read-only attributes below.
    """

    __slots__ = ("_s",)

    def __init__(self, state: dict):
        object.__setattr__(self, "_s", _copy_state(state))

    def __setattr__(self, name, value):
        raise AttributeError("positions are immutable")

    def __getattr__(self, name):
        if name in PROJECTION_KEYS:
            return copy.deepcopy(self._s[name])
        raise AttributeError(name)

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and self._s == other._s

    def __hash__(self) -> int:
        return hash(repr(self._s))

    def __repr__(self) -> str:
        return f"Position({self._s!r})"


def projection(pos: Position) -> dict:
    """The state projection the engine and the model are compared on (a fresh copy)."""
    return _copy_state(pos._s)


def from_projection(state: dict) -> Position:
    """Build a position from a projection dict (hand-built, or an engine state's top-level fields).

    Checks the shape and that every player's tokens (hand + bag + board) are exactly the 16 of a bag.
    """
    s = {key: copy.deepcopy(state[key]) for key in PROJECTION_KEYS}
    if s["to_move"] not in PLAYERS:
        raise ValueError(f"bad to_move {s['to_move']!r}")
    if set(s["borders"]) != set(BORDERS) or set(s["provinces"]) != set(PROVINCES):
        raise ValueError("every border and every province must be listed")
    for key in ("hands", "bags", "hand_limits", "senate", "markers"):
        if set(s[key]) != set(PLAYERS):
            raise ValueError(f"{key} needs both players")
    for player in PLAYERS:
        for token in s["hands"][player] + s["bags"][player]:
            if token not in TOKEN_ORDER:
                raise ValueError(f"bad token {token!r}")
        s["hands"][player] = token_sorted(s["hands"][player])
        s["bags"][player] = token_sorted(s["bags"][player])
        on_board = [cell["token"] for cell in s["borders"].values() if cell and cell["player"] == player]
        if token_sorted(s["hands"][player] + s["bags"][player] + on_board) != token_sorted(FULL_BAG):
            raise ValueError(f"{player}'s tokens are not one full bag")
        if not 0 <= s["markers"][player] <= WINNING_MARKERS:
            raise ValueError("bad marker count")
    for bid, cell in s["borders"].items():
        if cell is None:
            continue
        if not fits(cell["token"], bid) or set(cell["faces"]) != set(BORDER_ENDS[bid]):
            raise ValueError(f"bad border {bid}")
        if sorted(cell["faces"].values(), reverse=True) != list(token_numbers(cell["token"])):
            raise ValueError(f"bad faces on {bid}")
    for code, prov in s["provinces"].items():
        if prov["bonus"] is not None and prov["bonus"] not in BONUSES:
            raise ValueError(f"bad bonus on {code}")
    return Position(s)


def initial(bonuses: dict, hands: dict) -> Position:
    """The position after setup, from the two options given explicitly.

    ``bonuses``: each of the 17 provinces other than IT -> its bonus (5 senate, 4 tactics, 4 wealth,
    4 might); IT holds the 6th senate.  ``hands``: ``{"caesar": [t, t], "pompey": [t, t]}``, taken out
    of the players' full bags.
    """
    if bonuses is None or hands is None:
        raise ValueError("the model needs the bonuses and the hands explicitly")
    if set(bonuses) != set(PROVINCES) - {"IT"}:
        raise ValueError("bonuses must name the 17 provinces other than IT")
    counts = {name: 0 for name in BONUSES}
    for name in bonuses.values():
        if name not in counts:
            raise ValueError(f"unknown bonus {name!r}")
        counts[name] += 1
    if counts != BONUS_MULTISET:
        raise ValueError("the bonuses must be 5 senate, 4 tactics, 4 wealth, 4 might")
    if set(hands) != set(PLAYERS):
        raise ValueError("hands needs both players")
    bags = {}
    for player in PLAYERS:
        hand = list(hands[player])
        if len(hand) != 2:
            raise ValueError("each initial hand holds 2 tokens")
        bag = list(FULL_BAG)
        for token in hand:
            if token not in bag:
                raise ValueError(f"token {token!r} is not in {player}'s bag")
            bag.remove(token)
        bags[player] = token_sorted(bag)
    provinces = {}
    for code in PROVINCES:
        bonus = "senate" if code == "IT" else bonuses[code]
        provinces[code] = {"bonus": bonus, "control": None, "flipped": False}
    state = {
        "to_move": "caesar",
        "borders": {bid: None for bid in BORDERS},
        "provinces": provinces,
        "italia_dashed": None,
        "hands": {p: token_sorted(hands[p]) for p in PLAYERS},
        "bags": bags,
        "hand_limits": {p: 2 for p in PLAYERS},
        "senate": {p: 0 for p in PLAYERS},
        "markers": {p: 0 for p in PLAYERS},
    }
    return Position(state)


# ---------------------------------------------------------------------------
# Move notation
# ---------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"^[LSDN][0-9][0-9]$")


def parse_move(text: str) -> dict:
    """Split ``<token>@<A>-<B>[ <choice>...][ =<token>...]`` into its parts (syntax only).

    Returns ``{"token", "a", "b", "choices": [...], "draws": [...]}``; raises ValueError if malformed.
    """
    if not isinstance(text, str) or text == "":
        raise ValueError("empty move")
    parts = text.split(" ")
    if any(part == "" for part in parts):
        raise ValueError(f"malformed move {text!r} (stray space)")
    head = parts[0]
    if head.count("@") != 1:
        raise ValueError(f"malformed placement {head!r}")
    token, border = head.split("@")
    if not _TOKEN_RE.match(token) or token not in TOKEN_ORDER:
        raise ValueError(f"unknown token {token!r}")
    ends = border.split("-")
    if len(ends) != 2 or ends[0] not in PROVINCES or ends[1] not in PROVINCES:
        raise ValueError(f"malformed border {border!r}")
    choices, draws = [], []
    for part in parts[1:]:
        if part.startswith("="):
            drawn = part[1:]
            if drawn not in TOKEN_ORDER:
                raise ValueError(f"unknown drawn token {drawn!r}")
            draws.append(drawn)
            continue
        if draws:
            raise ValueError("choices come before the draws")
        if part in ("T", "W", "-"):
            choices.append(part)
        elif part.startswith("M:") and (part[2:] in PROVINCES or part[2:] in BORDERS):
            choices.append(part)
        else:
            raise ValueError(f"malformed choice {part!r}")
    return {"token": token, "a": ends[0], "b": ends[1], "choices": choices, "draws": draws}


def format_move(token: str, a: str, b: str, choices=(), draws=()) -> str:
    parts = [f"{token}@{a}-{b}"] + list(choices) + ["=" + t for t in draws]
    return " ".join(parts)


# ---------------------------------------------------------------------------
# Placements
# ---------------------------------------------------------------------------

def placements(pos: Position) -> list[tuple[str, str, str]]:
    """Every distinct (token, A, B) the player to move may place, first number toward A.

    A symmetric token gets only the canonical orientation.  Ignores whether the game is over.
    """
    s = pos._s
    out = []
    for token in TOKEN_ORDER:
        if token not in s["hands"][s["to_move"]]:
            continue
        for bid in BORDERS:
            if s["borders"][bid] is not None or not fits(token, bid):
                continue
            a, b = BORDER_ENDS[bid]
            out.append((token, a, b))
            if not is_symmetric(token):
                out.append((token, b, a))
    return out


def _province_full(s: dict, province: str) -> bool:
    return all(s["borders"][bid] is not None for bid in borders_of(province))


def _closes_something(s: dict, bid: str) -> bool:
    """Whether filling the empty border ``bid`` would fill every border of one of its provinces."""
    for province in BORDER_ENDS[bid]:
        if all(s["borders"][other] is not None for other in borders_of(province) if other != bid):
            return True
    return False


# ---------------------------------------------------------------------------
# Resolution (works on a mutable state dict ``s``)
# ---------------------------------------------------------------------------

def _winner_by_markers(s: dict) -> str | None:
    for player in PLAYERS:
        if s["markers"][player] >= WINNING_MARKERS:
            return player
    return None


def _place_marker(s: dict, player: str, where: str, record: dict) -> bool:
    """Put one of ``player``'s control markers on ``where``; True if it was their twelfth."""
    s["markers"][player] += 1
    record["markers"].append(where)
    if where == "IT*":
        s["italia_dashed"] = player
    elif where in s["provinces"]:
        s["provinces"][where]["control"] = player
    elif where in s["borders"]:
        s["borders"][where]["marker"] = player
    # "senate": the marker goes under the senate token in front of the player; nothing on the map.
    return s["markers"][player] >= WINNING_MARKERS


def _sums(s: dict, province: str) -> dict:
    """Each player's total of their own tokens' numbers facing ``province``; flipped tokens count 0."""
    sums = {p: 0 for p in PLAYERS}
    for bid in borders_of(province):
        cell = s["borders"][bid]
        if cell is not None and not cell["flipped"]:
            sums[cell["player"]] += cell["faces"][province]
    return sums


def _close_first_steps(s: dict, closer: str, province: str) -> dict:
    """Closing steps 1-4 and senate's part of step 5.  Returns the closure record.

    Stops as soon as a twelfth marker is placed (check ``_winner_by_markers`` afterwards).
    """
    record = {"province": province, "bonus": None, "sums": None, "control": None,
              "markers": [], "choice": None}
    # 1. The closer takes the bonus token.
    bonus = s["provinces"][province]["bonus"]
    record["bonus"] = bonus
    s["provinces"][province]["bonus"] = None
    if bonus == "senate":
        s["senate"][closer] += 1
    # 2. Sums; the higher places a control marker on the province space.
    sums = _sums(s, province)
    record["sums"] = sums
    if sums["caesar"] == sums["pompey"]:
        controller = None
    else:
        controller = "caesar" if sums["caesar"] > sums["pompey"] else "pompey"
    record["control"] = controller
    if controller is not None:
        if _place_marker(s, controller, province, record):
            return record
        # 3. Italia: a second marker on the dashed space.
        if province == "IT":
            if _place_marker(s, controller, "IT*", record):
                return record
        # 4. Border markers toward neighbours already controlled by the same player, not flipped.
        for bid in borders_of(province):
            neighbour = other_end(bid, province)
            there = s["provinces"][neighbour]
            if there["control"] == controller and not there["flipped"]:
                if _place_marker(s, controller, bid, record):
                    return record
    # 5, senate: kept; if the closer won here, as many markers under it as senate tokens held.
    if bonus == "senate" and controller == closer:
        for _ in range(s["senate"][closer]):
            if _place_marker(s, closer, "senate", record):
                return record
    return record


def might_targets(s: dict, closer: str) -> list[str]:
    """Might choices available to ``closer`` (without the ``M:``), in border then table order."""
    victim = opponent(closer)
    targets = []
    for bid in BORDERS:
        cell = s["borders"][bid]
        if cell is not None and cell["player"] == victim and not cell["flipped"] and cell["marker"] is None:
            targets.append(bid)
    for code in PROVINCES:
        prov = s["provinces"][code]
        if prov["control"] == victim and not prov["flipped"]:
            targets.append(code)
    return targets


def _choice_options(s: dict, closer: str, bonus: str | None) -> list[str] | None:
    """The choices a closure's bonus allows at step 5, or None if it takes no choice."""
    if bonus == "tactics":
        return ["T", "-"]
    if bonus == "wealth":
        return ["W", "-"]
    if bonus == "might":
        return ["M:" + t for t in might_targets(s, closer)] + ["-"]
    return None  # senate (automatic) or no bonus


def _draw_one(s: dict, player: str, drawer) -> str | None:
    """Move one token from ``player``'s bag to their hand (nothing if the bag is empty)."""
    bag = s["bags"][player]
    if not bag:
        return None
    token = drawer(player, tuple(bag))
    if token not in bag:
        raise ValueError(f"{token!r} is not in {player}'s bag {bag}")
    bag.remove(token)
    s["hands"][player] = token_sorted(s["hands"][player] + [token])
    return token


def _apply_choice(s: dict, closer: str, choice: str, drawer, drawn: list, flags: dict) -> None:
    """Step 5 for tactics, wealth and might.  ``drawer`` None: skip the wealth draw (enumeration)."""
    if choice == "T":
        flags["tactics"] = True
    elif choice == "W":
        s["hand_limits"][closer] += 1
        if drawer is not None:
            token = _draw_one(s, closer, drawer)
            if token is not None:
                drawn.append(token)
    elif choice.startswith("M:"):
        target = choice[2:]
        if target in s["borders"]:
            s["borders"][target]["flipped"] = True
        else:
            s["provinces"][target]["flipped"] = True


def _place_token(s: dict, player: str, token: str, a: str, b: str) -> tuple[str, list[str]]:
    """Put the token on the board; returns (canonical border id, provinces it closed in table order)."""
    bid = canonical_border(a, b)
    first, second = token_numbers(token)
    s["hands"][player].remove(token)
    s["borders"][bid] = {"player": player, "token": token, "faces": {a: first, b: second},
                         "flipped": False, "marker": None}
    closed = [p for p in PROVINCES if p in (a, b) and _province_full(s, p)]
    return bid, closed


def _choice_sequences(s: dict, closer: str, closing: list[str]) -> list[list[str]]:
    """Every list of choices the closures in ``closing`` allow, resolving them in order."""
    if not closing:
        return [[]]
    s = _copy_state(s)
    record = _close_first_steps(s, closer, closing[0])
    if _winner_by_markers(s):
        return [[]]
    options = _choice_options(s, closer, record["bonus"])
    if options is None:
        return _choice_sequences(s, closer, closing[1:])
    out = []
    for option in options:
        after = _copy_state(s)
        _apply_choice(after, closer, option, None, [], {})
        for rest in _choice_sequences(after, closer, closing[1:]):
            out.append([option] + rest)
    return out


# ---------------------------------------------------------------------------
# Outcome
# ---------------------------------------------------------------------------

def outcome(pos: Position) -> dict:
    """``{"status", "to_move", "scores", "winner", "decided_by"}`` as the spec names them."""
    s = pos._s
    scores = dict(s["markers"])
    winner = _winner_by_markers(s)
    if winner is not None:
        return {"status": "finished", "to_move": None, "scores": scores, "winner": winner,
                "decided_by": "twelfth_marker"}
    mover = s["to_move"]
    if not s["hands"][mover]:
        return {"status": "finished", "to_move": None, "scores": scores, "winner": opponent(mover),
                "decided_by": "no_token"}
    if not placements(pos):
        return {"status": "finished", "to_move": None, "scores": scores, "winner": opponent(mover),
                "decided_by": "no_space"}
    return {"status": "ongoing", "to_move": mover, "scores": scores, "winner": None, "decided_by": None}


def is_finished(pos: Position) -> bool:
    return outcome(pos)["status"] == "finished"


def scores(pos: Position) -> dict:
    return dict(pos._s["markers"])


def winner(pos: Position) -> str | None:
    return outcome(pos)["winner"]


# ---------------------------------------------------------------------------
# Legal moves and play
# ---------------------------------------------------------------------------

def legal_moves(pos: Position) -> list[str]:
    """Every distinct (token, border, orientation, choices) for the player to move, without draws,
    sorted by plain string order."""
    if is_finished(pos):
        return []
    moves = []
    mover = pos._s["to_move"]
    for token, a, b in placements(pos):
        if not _closes_something(pos._s, canonical_border(a, b)):
            moves.append(format_move(token, a, b))  # no closure, no choice
            continue
        s = _copy_state(pos._s)
        _, closed = _place_token(s, mover, token, a, b)
        for choices in _choice_sequences(s, mover, closed):
            moves.append(format_move(token, a, b, choices))
    return sorted(moves)


def _canonical_base(parsed: dict) -> str:
    """The move without draws, a symmetric token's border written in canonical form."""
    token, a, b = parsed["token"], parsed["a"], parsed["b"]
    bid = canonical_border(a, b)
    if bid is not None and is_symmetric(token):
        a, b = BORDER_ENDS[bid]
    return format_move(token, a, b, parsed["choices"])


def _forced_draw(player: str, bag: tuple) -> str:
    if len(set(bag)) == 1:
        return bag[0]
    raise DrawsNeeded(f"{player} must draw from {list(bag)}: give the draws in the move")


def play(pos: Position, move: str, draw=None) -> tuple[Position, dict]:
    """Play ``move``; returns (new position, effects).  Raises ValueError if illegal or malformed.

    Draws come from the move's ``=<token>`` suffixes (exactly every draw of the turn, in order), else
    from ``draw(player, bag_tuple) -> token`` if given, else only forced draws are possible.
    """
    parsed = parse_move(move)
    if is_finished(pos):
        raise ValueError("the game is over")
    base = _canonical_base(parsed)
    if base not in legal_moves(pos):
        raise ValueError(f"illegal move {move!r}")

    given = list(parsed["draws"])
    if given:
        def drawer(player, bag):
            if not given:
                raise ValueError("the move lists too few draws")
            return given.pop(0)
    elif draw is not None:
        drawer = draw
    else:
        drawer = _forced_draw

    s = _copy_state(pos._s)
    mover = s["to_move"]
    token, a, b = parsed["token"], parsed["a"], parsed["b"]
    if is_symmetric(token):
        a, b = BORDER_ENDS[canonical_border(a, b)]
    bid, closed = _place_token(s, mover, token, a, b)
    effects = {"player": mover, "token": token, "border": bid,
               "faces": dict(s["borders"][bid]["faces"]),
               "closures": [], "drawn": [], "extra_turn": False, "winner": None}
    choices = list(parsed["choices"])
    flags = {"tactics": False}
    won = None
    for province in closed:
        record = _close_first_steps(s, mover, province)
        effects["closures"].append(record)
        won = _winner_by_markers(s)
        if won:
            break
        if _choice_options(s, mover, record["bonus"]) is not None:
            choice = choices.pop(0)  # the legal-move check guarantees one is there and allowed
            record["choice"] = choice
            _apply_choice(s, mover, choice, drawer, effects["drawn"], flags)
    if choices:
        raise AssertionError("choices left over after a legal move")  # cannot happen
    if not won:
        # End of turn: refill to the hand limit (or until the bag is empty).
        while len(s["hands"][mover]) < s["hand_limits"][mover] and s["bags"][mover]:
            effects["drawn"].append(_draw_one(s, mover, drawer))
        s["to_move"] = mover if flags["tactics"] else opponent(mover)
        effects["extra_turn"] = flags["tactics"]
    if given:
        raise ValueError("the move lists more draws than the turn makes")
    new_pos = Position(s)
    effects["winner"] = outcome(new_pos)["winner"]
    return new_pos, effects


def draws_of(effects: dict) -> list[str]:
    """The ``=<token>`` suffixes that replay the draws a move made."""
    return ["=" + t for t in effects["drawn"]]


# ---------------------------------------------------------------------------
# Player view
# ---------------------------------------------------------------------------

def view(pos: Position, player: str) -> dict:
    """What ``player`` may see: own hand in full, hand and bag sizes for both, no bag contents."""
    s = projection(pos)
    view_ = {key: s[key] for key in PROJECTION_KEYS if key not in ("hands", "bags")}
    view_["hands"] = {player: s["hands"][player]}
    view_["hand_sizes"] = {p: len(s["hands"][p]) for p in PLAYERS}
    view_["bag_sizes"] = {p: len(s["bags"][p]) for p in PLAYERS}
    return view_


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def perft(pos: Position, depth: int) -> int:
    """Number of move sequences of exactly ``depth`` plies (moves as ``legal_moves`` lists them).

    The engine draws from the position's seeded source, which the model does not have.  The model
    draws arbitrarily and tracks which players' hands are therefore unknown; it raises
    ``ChanceDependent`` when it would need the legal moves of such a player (a draw from a bag holding
    one kind of token only is not a guess).  Every number it returns is the same for any draws.
    """
    return _perft(pos, depth, frozenset())


def _perft(pos: Position, depth: int, unknown: frozenset) -> int:
    if depth == 0:
        return 1
    if _winner_by_markers(pos._s):
        return 0
    if pos._s["to_move"] in unknown:
        raise ChanceDependent(f"{pos._s['to_move']}'s hand depends on the draws")
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        guessed = set(unknown)

        def drawer(player, bag):
            if len(set(bag)) > 1:
                guessed.add(player)
            return bag[0]

        nxt, _ = play(pos, move, draw=drawer)
        total += _perft(nxt, depth - 1, frozenset(guessed))
    return total
