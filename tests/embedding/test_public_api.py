"""The package's public surface: ``referee.__all__`` is the API docs/embedding.md documents, every module of the
package says what it offers in ``__all__``, and no module, test or benchmark takes from another module a
name that module does not offer (names with a leading underscore are private and may be reached by tests).
The modules are read as source, not imported: importing the gunicorn worker patches the standard library."""

from __future__ import annotations

import ast
import re
import types
from collections.abc import Iterator
from pathlib import Path

import referee
import referee.types

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "service" / "referee"
EMBEDDING = ROOT / "docs" / "embedding.md"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, ast.Module]:
    return {module_name(path): ast.parse(path.read_text()) for path in sorted(PACKAGE.rglob("*.py"))}


def top_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    return names


def declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "__all__" and node.value:
            return list(ast.literal_eval(node.value))
    return None


def imports_from_the_package(tree: ast.Module, importer: str) -> Iterator[tuple[str, str]]:
    """``(module, name)`` for every ``from referee.x import name`` and ``x.name`` on a module imported as
    ``from referee import x`` (or ``import referee`` for the package itself)."""
    modules = {"referee": "referee"} if any(isinstance(node, ast.Import) and any(
        alias.name == "referee" for alias in node.names) for node in ast.walk(tree)) else {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "referee":
            for alias in node.names:
                if node.module != importer:
                    yield node.module, alias.name
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            yield modules[node.value.id], node.attr


def test_the_public_api_is_the_one_the_docs_document() -> None:
    paragraph = re.search(r"\*\*The public API\*\*(.*?)\n\n", EMBEDDING.read_text(), re.S)
    assert paragraph, "docs/embedding.md names the public API"
    documented = set(re.findall(r"`([A-Za-z_][A-Za-z_0-9]*)`", paragraph.group(1)))
    assert documented == set(referee.__all__)


def test_every_error_the_engine_raises_is_public() -> None:
    """A caller catches what the pages' calls raise by name: every class of referee.errors is in `__all__`."""
    import referee.errors

    def subclasses(cls: type) -> set[type]:
        return {cls, *(sub for direct in cls.__subclasses__() for sub in subclasses(direct))}

    errors = {cls.__name__ for cls in subclasses(referee.RefereeError) if cls.__module__ == "referee.errors"}
    assert errors == {name for name in referee.errors.__all__ if name[0].isupper()}
    assert errors <= set(referee.__all__), errors - set(referee.__all__)


def test_every_public_name_resolves_and_nothing_else_shows() -> None:
    for name in referee.__all__:
        assert getattr(referee, name) is not None, name
    shown = {name for name in dir(referee) if not name.startswith("_")
             and not isinstance(getattr(referee, name), types.ModuleType)}
    assert shown == set(referee.__all__) - {"__version__"}
    assert set(referee.types.__all__) <= set(dir(referee.types))


def test_every_module_declares_what_it_offers() -> None:
    for name, tree in package_modules().items():
        offered = declared_all(tree)
        if name == "referee.types":
            continue  # its list adds the generated module's, checked at run time above
        assert offered is not None, f"{name} has no __all__"
        assert len(offered) == len(set(offered)), name
        assert set(offered) <= top_level_names(tree), f"{name}.__all__ names what it does not define"


def test_no_module_takes_a_name_its_module_does_not_offer() -> None:
    modules = package_modules()
    offered = {name: set(declared_all(tree) or []) for name, tree in modules.items()}
    offered["referee.types"] = set(referee.types.__all__)
    users = {**modules, **{str(path.relative_to(ROOT)): ast.parse(path.read_text())
                           for folder in ("tests", "bench") for path in (ROOT / folder).rglob("*.py")}}
    taken = {(module, name, user) for user, tree in users.items()
             for module, name in imports_from_the_package(tree, user)}
    strays = sorted((module, name, user) for module, name, user in taken
                    if module in offered and not name.startswith("_") and name not in offered[module] | {"*"}
                    and f"{module}.{name}" not in modules)
    assert not strays
