"""Boards shared by the Hypnosia model tests and the engine cross-check: three valid custom boards
(besides the default) and one faulty description per board-validation rule, with the field path the
error must name (docs/rules/hypnosia.md, "The board as data")."""

from __future__ import annotations

import copy


def default_board() -> dict:
    """The rules doc's default board, spelt out (kept apart from the model's own builder)."""
    bridges = [{"from": [0, 6 * s + 5], "to": [1, 4 * s]} for s in range(6)]
    bridges += [{"from": [1, 4 * s + 3], "to": [2, 2 * s]} for s in range(6)]
    bridges += [{"from": [2, 2 * s + 1], "to": "centre"} for s in range(6)]
    return {"circles": [36, 24, 12], "entries": [0, 6, 12, 18, 24, 30], "bridges": bridges,
            "centre_points": [5, 4, 3, 2, 1], "home_length": 4}


# A single circle of 10 with two bridges into the centre; seats' entries close together.
ONE_CIRCLE = {"circles": [10], "entries": [0, 2, 4, 5, 7, 8],
              "bridges": [{"from": [0, 3], "to": "centre"}, {"from": [0, 9], "to": "centre"}],
              "centre_points": [5, 4, 3, 2, 1], "home_length": 4}
# Two circles (20, 7); seats 1 and 2 share entry 4, which is also a bridge (a pawn leaving with die = its
# distance lands on it and may cross with its second die); an outer bridge leads onto an inner bridge
# (0.19 -> 1.6); odd centre points, one negative.
TWO_CIRCLES = {"circles": [20, 7], "entries": [0, 4, 4, 9, 13, 17],
               "bridges": [{"from": [0, 4], "to": [1, 0]}, {"from": [0, 12], "to": [1, 3]},
                           {"from": [0, 19], "to": [1, 6]}, {"from": [1, 2], "to": "centre"},
                           {"from": [1, 6], "to": "centre"}],
               "centre_points": [6, 3, 2, 1, -1], "home_length": 4}
# Circles 9, 3, 1: dice of 3 and 6 bring a unit on the middle circle back to its start and any die does
# so on the innermost (decision 1 of the model); every crossing into circle 2 lands on its only space.
SHORT_CIRCLES = {"circles": [9, 3, 1], "entries": [0, 1, 3, 4, 6, 7],
                 "bridges": [{"from": [0, 2], "to": [1, 0]}, {"from": [0, 8], "to": [1, 1]},
                             {"from": [1, 2], "to": [2, 0]}, {"from": [2, 0], "to": "centre"}],
                 "centre_points": [5, 4, 3, 2, 1], "home_length": 4}

CUSTOM_BOARDS = {"one-circle": ONE_CIRCLE, "two-circles": TWO_CIRCLES, "short": SHORT_CIRCLES}


def largest_board(k: int = 0) -> dict:
    """The largest description the contract takes: 8 circles of 360 spaces and a bridge on every space
    (about 85 KB of JSON); boards of different `k` (0 to 359) differ by their seats' entries."""
    bridges = [{"from": [c, i], "to": "centre" if c == 7 else [c + 1, i]} for c in range(8) for i in range(360)]
    return {"circles": [360] * 8, "entries": [(k + 60 * s) % 360 for s in range(6)], "bridges": bridges,
            "centre_points": [5, 4, 3, 2, 1], "home_length": 4}


def _board(**changes):
    board = default_board()
    board.update(copy.deepcopy(changes))
    return board


def _bridges_with(index, bridge):
    bridges = default_board()["bridges"]
    bridges[index] = bridge
    return bridges


BAD_BOARDS = [
    ("not an object", [1, 2], "board"),
    ("missing circles", {k: v for k, v in default_board().items() if k != "circles"}, "board.circles"),
    ("no circles", _board(circles=[]), "board.circles"),
    ("nine circles", _board(circles=[10] * 9), "board.circles"),
    ("zero length", _board(circles=[36, 0, 12]), "board.circles[1]"),
    ("too long", _board(circles=[361, 24, 12]), "board.circles[0]"),
    ("five entries", _board(entries=[0, 6, 12, 18, 24]), "board.entries"),
    ("entry out of range", _board(entries=[0, 6, 36, 18, 24, 30]), "board.entries[2]"),
    ("negative entry", _board(entries=[0, 6, 12, -1, 24, 30]), "board.entries[3]"),
    ("bridge from no circle", _board(bridges=_bridges_with(3, {"from": [3, 0], "to": "centre"})),
     "board.bridges[3].from"),
    ("bridge from out of range", _board(bridges=_bridges_with(3, {"from": [0, 36], "to": [1, 0]})),
     "board.bridges[3].from"),
    ("bridge skipping a circle", _board(bridges=_bridges_with(3, {"from": [0, 23], "to": [2, 0]})),
     "board.bridges[3].to"),
    ("bridge going outward", _board(bridges=_bridges_with(8, {"from": [1, 11], "to": [0, 0]})),
     "board.bridges[8].to"),
    ("bridge to out of range", _board(bridges=_bridges_with(3, {"from": [0, 23], "to": [1, 24]})),
     "board.bridges[3].to"),
    ("outer bridge to the centre", _board(bridges=_bridges_with(3, {"from": [0, 23], "to": "centre"})),
     "board.bridges[3].to"),
    ("innermost bridge not to the centre", _board(bridges=_bridges_with(14, {"from": [2, 5], "to": [3, 0]})),
     "board.bridges[14].to"),
    ("two bridges on a space", _board(bridges=_bridges_with(4, {"from": [0, 5], "to": [1, 16]})),
     "board.bridges[4].from"),
    ("a circle without a bridge", _board(bridges=default_board()["bridges"][6:]), "board.bridges"),
    ("no bridge to the centre", _board(bridges=default_board()["bridges"][:12]), "board.bridges"),
    ("four centre points", _board(centre_points=[5, 4, 3, 2]), "board.centre_points"),
    ("home length 3", _board(home_length=3), "board.home_length"),
]


