"""The types of the embedding API: the generated TypedDicts are what ``referee.contract.typegen`` writes from the
Rust types, the hand-written answer shapes are the contract's components, a program using every game
type-checks under ``mypy --strict`` (and mistakes in it do not), and the stubs of ``referee._core`` agree
with the module (mypy's stubtest)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.contract import typegen

from referee import types

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "service" / "referee" / "_schema_types.py"
COMPONENTS = yaml.safe_load((ROOT / "openapi.yaml").read_text())["components"]["schemas"]

#: The contract's component of each hand-written shape (generic ones in Iago's form), and the keys the
#: embedding API leaves out (a batch result's ``index``: the list keeps the input order; ``same_as``: only
#: the service's NDJSON answers are compact).
SHAPES: list[tuple[Any, str, set[str]]] = [
    (types.Reason, "Reason", set()),
    (types.Verdict, "IagoVerdict", set()),
    (types.Played, "IagoPlayed", set()),
    (types.ReplayResult, "IagoReplayResult", set()),
    (types.BatchResult, "IagoBatchResult", {"index", "same_as"}),
    (types.CaesarView, "CaesarView", set()),
]

#: Mistakes a type checker must find, each line marked with the error code mypy gives it.
MISTAKES = '''
import referee

game = referee.game("iago")
state = game.new()
state["bord"]  # typeddict-item
game.play(referee.game("caesar").new(), "e4")  # arg-type
game.play(state, "e4")["effects"]["token"]  # typeddict-item
winner: int = game.outcome(state)["winner"]  # assignment
view = referee.game("caesar").view(referee.game("caesar").new(), "caesar")
view["bags"]  # typeddict-item
game.validate(state, 4)  # arg-type
'''


def mypy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """mypy against the installed package, from a directory where the source tree is not on the path."""
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, check=False)


def test_the_generated_types_are_what_the_generator_writes() -> None:
    """`python -m referee.contract.typegen` rewrites them after a Rust type changes."""
    assert GENERATED.read_text() == typegen.text()


@pytest.mark.parametrize(("shape", "component", "left_out"), SHAPES, ids=[name for _, name, _ in SHAPES])
def test_the_answer_shapes_are_the_contracts(shape: Any, component: str, left_out: set[str]) -> None:
    schema = COMPONENTS[component]
    assert shape.__required_keys__ == set(schema.get("required", [])) - left_out
    assert shape.__required_keys__ | shape.__optional_keys__ == set(schema["properties"]) - left_out


@pytest.mark.slow
def test_a_program_on_every_game_type_checks_strictly(tmp_path: Path) -> None:
    program = ROOT / "tests" / "embedding" / "typed_embedding.py"
    checked = mypy("mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(program), cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
def test_mistakes_are_found(tmp_path: Path) -> None:
    (tmp_path / "mistakes.py").write_text(MISTAKES)
    checked = mypy("mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "mistakes.py", cwd=tmp_path)
    found = {(int(line), code) for line, code in re.findall(r"mistakes\.py:(\d+): error: .*\[([a-z-]+)\]$",
                                                             checked.stdout, re.M)}
    expected = {(number, line.rsplit("# ", 1)[1]) for number, line in enumerate(MISTAKES.splitlines(), start=1)
                if "  # " in line}
    assert found == expected, checked.stdout


@pytest.mark.slow
def test_the_native_module_stubs_agree_with_the_module(tmp_path: Path) -> None:
    checked = mypy("mypy.stubtest", "referee._core", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
