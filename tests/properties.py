"""Checks shared by the games' property tests: each game draws its own inputs, and every engine must
answer them alike."""

from __future__ import annotations

from typing import Any

import referee


def assert_verdict_or_invalid_state(game: referee.Game, state: Any, move: str) -> None:
    """Any JSON as a state: a verdict on the move, or `invalid-state` with a detail; nothing else."""
    try:
        verdict = game.validate(state, move)
    except referee.InvalidState as error:
        assert error.code == "invalid-state" and error.detail
    else:
        assert isinstance(verdict["legal"], bool)


def assert_position_round_trips(
    game: referee.Game, text: str, refused: tuple[type[referee.RefereeError], ...] = (referee.InvalidState,)
) -> None:
    """Any text as a position: refused with a typed error, or a state written back as the same text."""
    try:
        state = game.parse_position(text)
    except refused:
        return
    assert game.position(state) == text
