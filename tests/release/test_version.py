"""One version in one place: rust_core/Cargo.toml's, which maturin gives the package (pyproject.toml's
`dynamic = ["version"]`) and the native module (`referee.__version__`); `referee --version`, `GET /healthz`
and the contract's `info.version` all show it (docs/compatibility.md, CHANGELOG.md)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import referee
from referee import cli, contract

ROOT = Path(__file__).resolve().parents[2]
CARGO = tomllib.loads((ROOT / "rust_core" / "Cargo.toml").read_text())["package"]["version"]


def test_the_package_takes_its_version_from_cargo_toml() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert referee.__version__ == CARGO


def test_the_cli_shows_the_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit:
        cli.main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"referee {CARGO}\n"


def test_healthz_and_the_contract_show_the_version(client) -> None:
    assert client.get("/healthz").json == {"status": "ok", "version": CARGO}
    assert contract.document()["info"]["version"] == CARGO


def test_the_changelog_has_a_section_for_the_version() -> None:
    assert f"## [{CARGO}]" in (ROOT / "CHANGELOG.md").read_text()
