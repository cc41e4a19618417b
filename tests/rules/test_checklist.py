"""The checklist "Adding a game" (docs/development.md) proven whole against the tree, on every commit: what
every game has, and every place that names every game, is a step of it; what it names is there for every game.
A new kind of per-game file, or a new table of the games, fails here until the checklist says so."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import referee

from helpers.spelling import spellings

ROOT = Path(__file__).resolve().parents[2]
GAMES = referee.games()
GAME = "<game>"
#: A game's name in a path.
NAMED = re.compile("|".join(GAMES), re.IGNORECASE)
#: A path in the checklist that holds `<game>` (a folder and a file, or a folder).
TEMPLATE = re.compile(r"[\w.-]*/[\w./-]*<game>[\w./-]*|[\w./-]*<game>[\w.-]*/[\w./-]*")

#: Files that spell every game's name and are no step of adding one, with why.
NOT_STEPS = {
    "pyproject.toml": "prose: the package's description names the games it has",
    "tests/contract/test_contract.py": "tests of some games' own schema rules, each on its game",
    "tests/pictures/test_pictures.py": "tests of each game's own pictures (a new game's are its own tests)",
    "tests/pictures/test_playground_browser.py": "the browser's tests of each game's own clicks",
}
#: Where a file's text is the games' own (their rules, their reference models) or prose and history.
OWN_TEXT = ("docs/rules/", "tests/rules/reference/", "rust_core/src/registry.rs")


def checklist() -> str:
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    return text.split("\n## Adding a game\n", 1)[1].split("\n## ", 1)[0]


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [path for path in listed.splitlines() if (ROOT / path).is_file() and not (ROOT / path).is_symlink()]


def template_of(path: str) -> str:
    return NAMED.sub(GAME, path)


def every_games_files(paths: list[str]) -> set[str]:
    """The templates of the files that every game has (`rust_core/src/<game>/board.rs`)."""
    games_of: dict[str, set[str]] = {}
    for path in paths:
        if found := NAMED.search(path):
            games_of.setdefault(template_of(path), set()).add(found.group(0).lower())
    return {template for template, games in games_of.items() if games == set(GAMES)}


def named(template: str, steps: str) -> bool:
    """Whether the checklist names a template, itself or a folder above it (`rust_core/src/<game>/`)."""
    return template in steps or any(template.startswith(folder) for folder in TEMPLATE.findall(steps)
                                    if folder.endswith("/"))


def spells_every_game(path: str) -> bool:
    """Whether a file names every game: in its code (not comments or docstrings) for Rust and Python, in its
    text for data; Markdown is prose, but the README, which shows each game's picture."""
    if path.endswith(".md") and path != "README.md" or path.startswith(OWN_TEXT) or NAMED.search(path):
        return False
    try:
        text = (ROOT / path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return False
    return set(GAMES) <= {name.lower() for _, name in spellings(path, text)}


def test_every_file_every_game_has_is_a_step() -> None:
    steps = checklist()
    assert sorted(t for t in every_games_files(tracked()) if not named(t, steps)) == []


def missing(steps: str, paths: list[str]) -> list[tuple[str, str]]:
    """The `<game>` paths of the checklist that some game lacks, with that game."""
    templates = [template.rstrip(".,") for template in TEMPLATE.findall(steps)]
    return [(template, game) for template in templates for game in GAMES
            if not any(path.startswith(template.replace(GAME, game)) for path in paths)]


def test_every_game_path_of_the_checklist_is_there_for_every_game() -> None:
    assert TEMPLATE.findall(checklist()), "the checklist names no game's path"
    assert missing(checklist(), tracked()) == []


def test_every_file_that_names_every_game_is_a_step_or_said_not_to_be() -> None:
    steps = checklist()
    unsaid = [path for path in tracked() if spells_every_game(path) and path not in steps and path not in NOT_STEPS]
    assert unsaid == [], "name it in 'Adding a game' (docs/development.md) or in NOT_STEPS with its reason"
    stale = [path for path in NOT_STEPS if not spells_every_game(path)]
    assert stale == [], "no longer names every game: not a reason any more"


def test_the_check_finds_a_new_table_and_a_new_kind_of_file() -> None:
    """A per-game file every game has, unnamed by the checklist, is found; so is a step naming what is not."""
    paths = [f"bench/{game}.toml" for game in GAMES] + [f"bench/{GAMES[0]}-only.toml"]
    assert every_games_files(paths) == {"bench/<game>.toml"}
    assert not named("bench/<game>.toml", checklist())
    assert named("rust_core/src/<game>/board.rs", checklist())
    paths = [f"docs/rules/{game}.md" for game in GAMES[1:]]
    assert missing("1. its rules, docs/rules/<game>.md.", paths) == [("docs/rules/<game>.md", GAMES[0])]
