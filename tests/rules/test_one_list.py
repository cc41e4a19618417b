"""A new game is its own files and one line in the list of games (docs/development.md, "Adding a game"):
outside a game's own files (its folder in rust_core/src, its picture module), the code of the engine and of
the package spells no game's name but in the list (`games!`, rust_core/src/registry.rs) and in the few places
allowed below, each with its reason and its count. Comments and docstrings are prose and are not read;
tests, docs and each game's reference model and tests are the game's own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import referee
from helpers.games import FACTS
from helpers.spelling import spellings

ROOT = Path(__file__).resolve().parents[2]
GAMES = referee.games()
#: The list of games, where each game has its one line.
LIST = "rust_core/src/registry.rs"

#: Stands in a count below for each game of the list: a place every game has (a new game adds its own).
EACH = "each game"
#: Files outside the games' own that spell game names, how many times a game (`EACH` for every game of the
#: list, or a game by name, the two added), and why.
ALLOWED: dict[str, tuple[dict[str, int], str]] = {
    "rust_core/src/python.rs": ({"hypnosia": 2}, "Hypnosia's own knob, its compiled boards' cache (no registration)"),
    "service/referee/_game.py": ({EACH: 1}, "typing overloads, a `Literal` a game: a type checker reads no list"),
    "service/referee/_schema_types.py": ({EACH: 1, "caesar": 4},
                                         "generated from the Rust types by `referee.contract.typegen`: a game's "
                                         "name, and Caesar!'s player named caesar"),
    "service/referee/types.py": ({"caesar": 1}, "Caesar!'s view, typed by hand"),
    "service/referee/pictures/svg.py": ({"caesar": 1}, "the colour of the player named caesar, as red's or pompey's"),
    "service/referee/codes.py": ({"hypnosia": 1}, "prose: the problem invalid-board is Hypnosia's"),
    "service/referee/http/schemas.py": ({"caesar": 3}, "prose: field descriptions of the contract name Caesar!"),
    "service/referee/cli.py": ({"caesar": 1}, "prose: `--player`'s help names Caesar!"),
}


def allowed_counts(counts: dict[str, int]) -> dict[str, int]:
    """A file's allowed spellings by game: `EACH` for every game of the list, plus a game's own."""
    each = counts.get(EACH, 0)
    expected = {game: each + counts.get(game, 0) for game in GAMES}
    return {game: count for game, count in expected.items() if count}


def own(path: str) -> bool:
    """Whether a file is a game's own: its folder of the engine, its picture module."""
    return any(path.startswith(f"rust_core/src/{game}/") or path == f"service/referee/pictures/{game}.py"
               for game in GAMES)


def code_files() -> dict[str, str]:
    """The engine's and the package's code, by path from the repository's root."""
    paths = [*(ROOT / "rust_core" / "src").rglob("*.rs"), *(ROOT / "service" / "referee").rglob("*.py"),
             *(ROOT / "service" / "referee" / "templates").glob("*.html")]
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in sorted(paths)}


def spelled_outside(files: dict[str, str]) -> dict[str, list[tuple[int, str]]]:
    """The files, not a game's own nor the list, whose code spells a game's name, and where."""
    found = {path: spellings(path, text) for path, text in files.items() if not own(path) and path != LIST}
    return {path: places for path, places in found.items() if places}


def test_a_game_is_spelled_outside_its_files_only_where_allowed() -> None:
    found = spelled_outside(code_files())
    counts = {path: dict(Counter(name.lower() for _, name in places)) for path, places in found.items()}
    allowed = {path: allowed_counts(count) for path, (count, _) in ALLOWED.items()}
    assert counts == allowed, {path: found.get(path) for path in set(counts) ^ set(allowed) | {
        path for path in counts if counts[path] != allowed.get(path)}}


def test_each_game_is_one_line_of_the_list() -> None:
    places = spellings(LIST, (ROOT / LIST).read_text(encoding="utf-8"))
    for game in GAMES:
        lines = {number for number, name in places if name.lower() == game}
        assert len(lines) == 1, (game, lines)


def test_the_check_finds_a_game_named_in_the_engine() -> None:
    files = code_files()
    first, second, last = GAMES[0], GAMES[1], GAMES[-1]
    # Before the engine's tests, which are not read.
    files["rust_core/src/engine.rs"] = f"type Named = crate::{last}::{last.capitalize()}; // a comment: " \
        f"{first.capitalize()}\n" + files["rust_core/src/engine.rs"]
    files["service/referee/http/api.py"] += f'\nGAME = "{first}"  # {second}\n'
    found = spelled_outside(files)
    assert [name for _, name in found["rust_core/src/engine.rs"]] == [last, last.capitalize()]
    assert [name for _, name in found["service/referee/http/api.py"]] == [first]


def test_a_count_for_each_game_counts_a_new_game_too() -> None:
    """Following "Adding a game" spells a new game once more where every game is spelled (its typing
    overload, its generated types): a count for each game allows it."""
    assert allowed_counts({EACH: 1, GAMES[-1]: 4}) == {game: 5 if game == GAMES[-1] else 1 for game in GAMES}
    found = spelled_outside({"service/referee/_game.py": "".join(f'GAME_{n} = "{game}"\n' for n, game in
                                                                  enumerate([*GAMES, "tictactoe"]))})
    assert found == {"service/referee/_game.py": [(n + 1, game) for n, game in enumerate(GAMES)]}


def test_every_game_has_its_test_facts() -> None:
    """The tests' per-game facts (tests/helpers/games.py) hold every game of the list, and nothing else."""
    assert [game for game in GAMES if game not in FACTS] == [], "games with no test facts in tests/helpers/games.py"
    assert [name for name in FACTS if name not in GAMES] == [], "test facts of no game of the list"
    assert list(FACTS) == GAMES, "the facts in the list's order"
