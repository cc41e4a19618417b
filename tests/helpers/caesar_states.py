"""The Caesar! engine's JSON states as the reference model (tests/rules/reference/caesar.py) sees them: its
state projection and its setup (bonus layout and hands), read from the state's fields alone."""

from __future__ import annotations

from rules.reference import caesar as model


def engine_projection(state: dict) -> dict:
    return {key: state[key] for key in model.PROJECTION_KEYS}


def setup_from_state(state: dict) -> tuple[dict, dict]:
    """The bonus layout and the hands of an engine's fresh state (checked to be a proper setup)."""
    bonuses = {code: state["provinces"][code]["bonus"] for code in model.PROVINCES if code != "IT"}
    hands = {player: list(state["hands"][player]) for player in model.PLAYERS}
    return bonuses, hands
