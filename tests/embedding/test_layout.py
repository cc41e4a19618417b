"""The package's layout, as a newcomer meets it (`ls service/referee`): the library at the top, every other
concern a package of its own (the HTTP service, archives, bots, pictures, the contract); no module imports
another that imports it back, imports inside functions counted; importing the library imports no web
framework; the old paths of moved modules still import, for one release."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import referee
from referee._moved import MOVED

PACKAGE = Path(referee.__file__).parent
#: What a newcomer finds at the top, at most.
TOP_LEVEL_MODULES = 16
#: What the library alone must not import (the HTTP service's).
WEB = ("flask", "gunicorn", "gevent", "marshmallow", "werkzeug")


def module_names() -> dict[str, Path]:
    """Every Python module of the package, by its dotted name (the engine's too, which imports none)."""
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    names["referee._core"] = PACKAGE / "_core.pyi"
    return names


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `name` imports, wherever the import is (a function's included): `from a
    import b` is `a.b` when that is a module, else `a`."""
    tree, found = ast.parse(path.read_text()), set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names}
    return {module for module in found if module in known and module != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while (member := stack.pop()) != node:
                on_stack.discard(member)
                component.append(member)
            on_stack.discard(node)
            if component:
                found.append(sorted([node, *component]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_top_level_holds_the_library_and_one_folder_a_concern() -> None:
    top = {path.name.split(".")[0] for path in PACKAGE.iterdir()
           if (path.suffix in (".py", ".so") or (path / "__init__.py").exists())}
    assert len(top) <= TOP_LEVEL_MODULES, sorted(top)
    assert {"http", "archives", "bots", "pictures", "contract"} <= top


def test_no_module_imports_one_that_imports_it_back() -> None:
    names = module_names()
    graph = {name: imports(name, path, set(names)) for name, path in names.items()}
    assert graph["referee.http.app"], "the graph finds imports"  # a check that can fail
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_importing_the_library_imports_no_web_framework() -> None:
    code = ("import sys, referee; referee.game('iago').new(); "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {WEB!r}))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert loaded.stdout.strip() == "[]"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_imports_the_moved_module_itself(old: str) -> None:
    import importlib

    new = importlib.import_module(MOVED[old])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sys.modules.pop(old, None)
        aliased = importlib.import_module(old)
    assert aliased is new and new.__spec__.name == MOVED[old]
    assert any(issubclass(warning.category, DeprecationWarning) and MOVED[old] in str(warning.message)
               for warning in caught)
