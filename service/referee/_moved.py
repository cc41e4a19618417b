"""The import paths of modules that moved into the packages by concern, kept working through 0.1.x and
gone in 0.2.0 (docs/compatibility.md): `import referee.app` gives `referee.http.app` itself, with a
DeprecationWarning naming the new path. Nothing is imported until an old path is."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

__all__ = ["MOVED", "install"]

_HTTP = ("api", "app", "body", "budget", "gunicorn_conf", "lifecycle", "logs", "metrics", "moves", "observe",
         "offload", "pages", "playground", "problems", "schemas", "settings", "worker")
#: Each old path, and where its module is now.
MOVED: dict[str, str] = {f"referee.{name}": f"referee.http.{name}" for name in _HTTP} | {
    "referee.dataset": "referee.archives.dataset",
    "referee.report": "referee.archives.report",
    "referee.openspiel": "referee.bots.openspiel",
    "referee.pettingzoo": "referee.bots.pettingzoo",
    "referee.typegen": "referee.contract.typegen",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module at its new one (the same object, its spec its own)."""

    def __init__(self) -> None:
        self.specs: dict[str, importlib.machinery.ModuleSpec | None] = {}  # each module's own, by its name

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if fullname in MOVED else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} is now {new}; the old path goes in 0.2.0", DeprecationWarning,
                      stacklevel=2)
        module = importlib.import_module(new)
        self.specs[new] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system gave the module the old path's spec: it keeps its own.
        module.__spec__ = self.specs[module.__name__]


def install() -> None:
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
