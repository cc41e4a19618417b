"""The lock files (requirements/*.txt, written by `make lock`) against pyproject.toml: every dependency the
project declares is pinned, with hashes, at a version its specifier allows, and `make serve` installs the
versions `make test` tested. A dependency added to pyproject.toml without `make lock` fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)((?:\s*\\\n\s+--hash=sha256:[0-9a-f]{64})*)", re.M)


def pins(name: str) -> dict[str, tuple[str, int]]:
    """A lock file's pins: package -> (version, how many hashes)."""
    text = (ROOT / "requirements" / f"{name}.txt").read_text()
    found = {canonicalize_name(m[1]): (m[2], m[3].count("--hash=")) for m in PIN.finditer(text)}
    assert found, f"requirements/{name}.txt pins nothing"
    return found


def declared(*extras: str) -> list[Requirement]:
    """The project's own requirements and those of `extras`, its extras that name the project expanded."""
    requirements, seen, todo = [], set(), list(extras)
    for text in PROJECT["project"]["dependencies"]:
        requirements.append(Requirement(text))
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in PROJECT["project"]["optional-dependencies"][extra]:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == canonicalize_name(PROJECT["project"]["name"]):
                todo += sorted(requirement.extras)
            else:
                requirements.append(requirement)
    return requirements


@pytest.mark.parametrize(("lock", "requirements"), [
    ("build", [Requirement(text) for text in PROJECT["build-system"]["requires"]]),
    ("service", declared("service")),
    ("test", declared("test")),
], ids=["build", "service", "test"])
def test_every_declared_dependency_is_pinned_within_its_specifier(lock: str, requirements: list[Requirement]) -> None:
    locked = pins(lock)
    for requirement in requirements:
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{requirement} is not in requirements/{lock}.txt: run `make lock`"
        version, _ = locked[name]
        assert requirement.specifier.contains(version, prereleases=True), \
            f"requirements/{lock}.txt pins {name}=={version}, outside {requirement}: run `make lock`"


@pytest.mark.parametrize("lock", ["build", "service", "test", "dist"])
def test_every_pin_has_hashes(lock: str) -> None:
    assert all(hashes for _, hashes in pins(lock).values())


def test_the_service_runs_the_versions_the_tests_tested() -> None:
    tested = pins("test")
    for name, (version, _) in pins("service").items():
        assert tested.get(name, (None,))[0] == version, f"{name}: service {version}, tests {tested.get(name)}"
