"""Every game's perft table, ``tests/rules/perft.json`` (rust_core/tests/perft.rs reads the same file): the
engine's counts through the Python API, and the independent implementations that agreed on them counting
again, as far as they run within the suite. The engine against the models from positions along random
games stays with each game's engine tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import referee
from helpers.games import FACTS, Counter
TABLES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "perft.json").read_text())["tables"]
#: Counts above this many nodes are marked slow (the models need some 10-30 s for them).
SLOW_NODES = 200_000


def start(table: dict[str, Any]) -> tuple[referee.Game, dict[str, Any]]:
    """The engine of a table's setup, and its start drawn from the table's seed."""
    setup = table["setup"]
    game = referee.game(table["game"], variant=setup.get("variant"), options=setup.get("options"))
    return game, game.new(seed=table["seed"])


#: Each game's independent counters (tests/helpers/games.py): (name, counter, the largest count it makes
#: within the suite). Larger counts were agreed outside the suite (see the table's ``agreed_by``).
COUNTERS: dict[str, list[tuple[str, Counter, int]]] = {name: FACTS[name].perft_counters for name in referee.games()}


def table_counts() -> list[tuple[dict[str, Any], int, int, str]]:
    return [(table, int(depth), count, f"{table['game']}-{table['name']}-{depth}")
            for table in TABLES for depth, count in table["counts"].items()]


def slow_if_large(count: int) -> list[pytest.MarkDecorator]:
    return [pytest.mark.slow] if count > SLOW_NODES else []


@pytest.mark.parametrize(("table", "depth", "count"), [
    pytest.param(table, depth, count, id=name) for table, depth, count, name in table_counts()
])
def test_the_engine_counts_the_table(table: dict[str, Any], depth: int, count: int) -> None:
    game, state = start(table)
    assert game.perft(state, depth) == count


@pytest.mark.parametrize(("table", "depth", "count", "counter"), [
    pytest.param(table, depth, count, counter, id=f"{name}-{counter_name}", marks=slow_if_large(count))
    for table, depth, count, name in table_counts()
    for counter_name, counter, largest in COUNTERS[table["game"]] if count <= largest
])
def test_an_independent_implementation_counts_the_table(table: dict[str, Any], depth: int, count: int,
                                                        counter: Counter) -> None:
    _, state = start(table)
    assert counter(table, state, depth) == count


def test_every_game_has_a_table() -> None:
    assert {table["game"] for table in TABLES} == set(referee.games())

