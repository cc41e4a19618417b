"""What `make dist` built (dist/), checked by `make dist-test` (part of `make test`; pytest collects this file
only when named, since it needs the built files): `auditwheel show` confirms the platform tag of every wheel,
and the x86_64 wheel, then the sdist, pass the smoke test (tests/release/smoke.py) in fresh virtual environments
with no Rust toolchain on PATH. The service's dependencies come from requirements/service.txt (hashed) and
the package from dist/ alone (`--no-index`). See docs/development.md, Releases."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from referee import cli

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
AUDITWHEEL = ROOT / ".venv-dist" / "bin" / "auditwheel"
VERSION = tomllib.loads((ROOT / "rust_core" / "Cargo.toml").read_text())["package"]["version"]
#: The wheel `make dist` builds on every x86_64 Linux machine (the others need their target's Rust std).
MANYLINUX_X86_64 = f"referee-{VERSION}-cp311-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
#: The tag auditwheel must find of each wheel, by the policy its file name starts with.
AUDITED = {"manylinux2014_x86_64": "manylinux_2_17_x86_64", "manylinux2014_aarch64": "manylinux_2_17_aarch64",
           "musllinux_1_2_x86_64": "musllinux_1_2_x86_64"}
#: What the environment must not pass on to a build-free install: the toolchain and where it lives.
TOOLCHAIN_VARIABLES = ("CARGO", "RUSTUP", "RUSTC", "RUSTFLAGS", "PYO3")
INSTALL_SECONDS = 600


def wheels() -> list[Path]:
    return sorted(DIST.glob("*.whl"))


def test_make_dist_built_the_sdist_and_the_x86_64_manylinux2014_wheel() -> None:
    assert (DIST / f"referee-{VERSION}.tar.gz").is_file()
    assert (DIST / MANYLINUX_X86_64).is_file(), [path.name for path in wheels()]


@pytest.mark.parametrize("wheel", wheels(), ids=lambda path: path.name)
def test_auditwheel_confirms_the_wheel_tag(wheel: Path) -> None:
    policy = wheel.name.removesuffix(".whl").split("-")[-1].split(".")[0]
    shown = subprocess.run([AUDITWHEEL, "show", wheel], capture_output=True, text=True, check=True).stdout
    found = re.search(r'consistent with the following platform tag:\s+"([^"]+)"', shown)
    assert found and found[1] == AUDITED[policy], shown
    assert AUDITED[policy] in wheel.name, "the file name carries the tag auditwheel confirms"


def toolless_env(prefix: Path) -> dict[str, str]:
    """The environment less the toolchain: PATH only the venv's and the system's, no Cargo, rustup or PyO3
    variables, nothing of the test run's Python (PYTHONPATH, VIRTUAL_ENV)."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(TOOLCHAIN_VARIABLES) and key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return env | {"PATH": f"{prefix / 'bin'}:/usr/bin:/bin", "VIRTUAL_ENV": str(prefix)}


def fresh_venv(prefix: Path, *locks: str) -> Path:
    """A new virtual environment with the locked dependencies of `locks` (requirements/*.txt, hashed)."""
    venv.create(prefix, with_pip=True)
    requirements = [arg for lock in locks for arg in ("-r", ROOT / "requirements" / f"{lock}.txt")]
    pip(prefix, "--require-hashes", *requirements)
    return prefix / "bin" / "python"


def pip(prefix: Path, *args: object, env: dict[str, str] | None = None) -> None:
    subprocess.run([prefix / "bin" / "python", "-m", "pip", "install", "--quiet", *args],
                   env=env or toolless_env(prefix), check=True, timeout=INSTALL_SECONDS)


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> tuple[Path, Path]:
    """The example archive and its results by the tested build (`referee validate` in this process)."""
    archive = ROOT / "docs" / "archive" / "example.jsonl"
    results = tmp_path_factory.mktemp("expected") / "results.jsonl"
    assert cli.main(["validate", str(archive), "-o", str(results), "--no-progress"]) == 1
    return archive, results


def smoke(prefix: Path, expected: tuple[Path, Path], cwd: Path) -> None:
    done = subprocess.run([prefix / "bin" / "python", ROOT / "tests" / "release" / "smoke.py", *expected],
                          env=toolless_env(prefix), cwd=cwd, timeout=300, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"smoke test passed: referee {VERSION}" in done.stdout


def test_the_wheel_installs_and_runs_without_a_rust_toolchain(tmp_path, expected) -> None:
    prefix = tmp_path / "venv"
    fresh_venv(prefix, "service")
    pip(prefix, "--no-deps", "--no-index", DIST / MANYLINUX_X86_64)
    smoke(prefix, expected, tmp_path)


def test_the_sdist_builds_and_its_install_runs_without_a_rust_toolchain(tmp_path, expected) -> None:
    """Built with the toolchain (maturin from requirements/build.txt, no build isolation: nothing unlocked),
    reusing the tree's cargo target directory; then run without it."""
    prefix = tmp_path / "venv"
    fresh_venv(prefix, "build", "service")
    with_toolchain = os.environ | {"CARGO_TARGET_DIR": str(ROOT / "target"),
                                   "PATH": f"{prefix / 'bin'}:{os.environ['PATH']}"}
    with_toolchain.pop("PYTHONPATH", None)
    # No wheel cache: pip would reuse a wheel built from an earlier sdist of the same name.
    pip(prefix, "--no-deps", "--no-index", "--no-build-isolation", "--no-cache-dir", DIST / f"referee-{VERSION}.tar.gz",
        env=with_toolchain)
    smoke(prefix, expected, tmp_path)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, *sys.argv[1:]]))
