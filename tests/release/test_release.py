"""The release workflow (.github/workflows/release.yml) can only run on a public CI; what can be checked here is
that it says what docs/development.md (Releases) says it does: wheels for Linux (manylinux2014 and
musllinux_1_2), macOS and Windows, x86_64 and arm64, each smoke-tested, the sdist, and publishing by
trusted publishing (an OIDC token, no stored secret) on a tag."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())


def platforms(job: str) -> list[dict]:
    return WORKFLOW["jobs"][job]["strategy"]["matrix"]["platform"]


def steps(job: str) -> list[dict]:
    return WORKFLOW["jobs"][job]["steps"]


def test_wheels_for_linux_macos_and_windows_on_x86_64_and_arm64() -> None:
    linux = {(p["target"], p["manylinux"]) for p in platforms("linux")}
    assert linux == {("x86_64", "2014"), ("aarch64", "2014"), ("x86_64", "musllinux_1_2"), ("aarch64", "musllinux_1_2")}
    assert {p["target"] for p in platforms("macos")} == {"x86_64", "aarch64"}
    assert {p["target"] for p in platforms("windows")} == {"x64", "aarch64"}
    assert any(step.get("with", {}).get("command") == "sdist" for step in steps("sdist"))


def test_every_built_wheel_is_smoke_tested_on_its_platform() -> None:
    for job in ("linux", "macos", "windows"):
        assert any("tests/release/smoke.py" in step.get("run", "") for step in steps(job)), job


def test_publishing_is_by_trusted_publishing_on_a_tag() -> None:
    release = WORKFLOW["jobs"]["release"]
    assert release["permissions"]["id-token"] == "write"
    assert set(release["needs"]) == {"linux", "macos", "windows", "sdist"}
    assert "refs/tags/" in release["if"]
    publish = steps("release")[-1]
    assert "--trusted-publishing always" in publish["run"] and "env" not in publish
    assert "secrets." not in (ROOT / ".github" / "workflows" / "release.yml").read_text()
