# The project's two entry points (see README): `make serve` and `make test` (and `make test-fast`).
# Each sets up everything it needs from the project's own files, on a machine with Python 3.11+,
# a Rust toolchain (cargo) and make.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: serve test test-fast dev lint install-service install-test browser java nginx tools rust-test python-test bench lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The locked versions first (requirements/*.txt, with hashes: what CI tested; see docs/dependencies.md),
# maturin among them; then `pip install .` builds the release wheel with it, exactly as an embedding app
# installs it (no dependency resolved anew: the lock holds them all).
LOCKED := $(BIN)/python -m pip install --quiet --require-hashes
PROJECT := $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation .

install-service: $(BIN)/python
	$(LOCKED) -r requirements/build.txt -r requirements/service.txt
	$(PROJECT)

install-test: $(BIN)/python
	$(LOCKED) -r requirements/build.txt -r requirements/test.txt
	$(PROJECT)

# Starts the service on localhost:8000 under gunicorn (REFEREE_BIND and friends override).
serve: install-service
	exec $(BIN)/gunicorn -c python:referee.http.gunicorn_conf 'referee.http.app:create_app()'

# The whole test suite: the lints, the Rust tests (nextest when installed, else cargo test), then Python.
test: lint rust-test python-test dist-test

# Everything but the slow and the live suites (pytest markers, see docs/development.md): the Rust unit
# tests, then the Python tests marked neither slow nor live.
test-fast: install-test
	cargo test --workspace --lib
	$(BIN)/python -m pytest -m "not slow and not live"

# The edit loop (docs/development.md): the test environment, then the package installed editable with a
# debug build of the native module (maturin develop): Python edits take effect at once, a Rust change
# takes `make dev` again (a debug build, quicker than the release one). `make test` installs the release
# build again.
dev: install-test
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop

# What CI checks before the tests: clippy on every target (warnings are errors), rustfmt's check, ruff
# and mypy on the package (both configured in pyproject.toml).
lint: install-test
	cargo clippy --workspace --all-targets --features python -- -D warnings
	cargo fmt --all --check
	$(BIN)/ruff check service tests bench
	$(BIN)/mypy

rust-test:
	@if cargo nextest --version >/dev/null 2>&1; then \
		cargo nextest run --workspace --no-fail-fast; \
	else \
		cargo test --workspace; \
	fi

# The playground's browser test drives Debian's chromium through its chromedriver (Selenium is in the
# `test` extra and never downloads a browser); installed here when missing, with sudo unless root.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
browser:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	fi

# OpenAPI Generator's test runs the generator's jar (bundled by PyPI's `openapi-generator-cli`, in the
# `test` extra) on Debian's default Java runtime; installed here when missing, with sudo unless root.
java:
	@if ! command -v java >/dev/null 2>&1; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless; \
	fi

# The reverse proxy's test (tests/service/test_nginx_live.py) runs deploy/referee.nginx.conf with Debian's nginx, as
# a plain subprocess on loopback (never through the system's service); installed here when missing (it is
# not always on a user's PATH: /usr/sbin), with sudo unless root.
nginx:
	@if ! command -v nginx >/dev/null 2>&1 && ! test -x /usr/sbin/nginx; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; \
	fi

# Debian's strace (the archive tests trace a run's fsyncs and renames, and kill it at each rename) and
# iproute2 (the budget tests put IPv6 clients on loopback); installed here when missing, sudo unless root.
tools:
	@if ! command -v strace >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace iproute2; \
	fi

# The tests that start no server on both cores, then the live ones alone (their bounds are a quiet worker's).
python-test: install-test browser java nginx tools
	$(BIN)/python -m pytest -m "not live" -n 2 --durations=15
	$(BIN)/python -m pytest -m live --durations=15

bench: install-test
	$(BIN)/python bench/run.py

# Refreshes the lock files from pyproject.toml with pip-tools (in a venv of its own, so that the tested
# environment holds only what the lock lists): pins kept while they still satisfy pyproject.toml, new
# ones added; `make lock UPGRADE=--upgrade` moves every pin to the newest version allowed. The service's
# lock takes the test lock's versions, so `make serve` runs what `make test` tested.
LOCK_VENV ?= .venv-lock
PIP_COMPILE := $(LOCK_VENV)/bin/pip-compile --quiet --generate-hashes --strip-extras --no-emit-find-links \
	--no-emit-index-url --unsafe-package referee $(UPGRADE)
lock:
	$(PYTHON) -m venv $(LOCK_VENV)
	# A current pip: 23.2's resolver (Python 3.11's) gives up backtracking on the test extra's botocore pins.
	$(LOCK_VENV)/bin/python -m pip install --quiet 'pip>=25,<26' 'pip-tools>=7.4,<8'
	$(PIP_COMPILE) --all-build-deps --only-build-deps -o requirements/build.txt pyproject.toml
	$(PIP_COMPILE) --extra test -o requirements/test.txt pyproject.toml
	$(PIP_COMPILE) --extra service --constraint requirements/test.txt -o requirements/service.txt pyproject.toml
	$(PIP_COMPILE) -o requirements/dist.txt requirements/dist.in

clean:
	rm -rf $(VENV) $(LOCK_VENV) $(DIST_VENV) target dist

# Release files (docs/development.md, Releases): the sdist and abi3 wheels in dist/, built by maturin from
# requirements/build.txt with zig (requirements/dist.txt) as the linker, so that a wheel links against
# glibc 2.17 (manylinux2014) or musl 1.2 whatever the host's C library. A wheel whose target has no Rust
# std installed here (`rustup target add TARGET`) is skipped with a message: on a machine with only the
# host's std that leaves the x86_64 manylinux2014 wheel.
DIST_VENV ?= .venv-dist
DIST_BIN := $(DIST_VENV)/bin
DIST_WHEELS := x86_64-unknown-linux-gnu:manylinux2014 aarch64-unknown-linux-gnu:manylinux2014 \
	x86_64-unknown-linux-musl:musllinux_1_2

$(DIST_BIN)/maturin: requirements/build.txt requirements/dist.txt
	$(PYTHON) -m venv $(DIST_VENV)
	$(DIST_BIN)/python -m pip install --quiet --require-hashes -r requirements/build.txt -r requirements/dist.txt
	touch $@

.PHONY: dist dist-test
dist: $(DIST_BIN)/maturin
	rm -rf dist
	$(DIST_BIN)/maturin sdist --out dist
	@rustlib=$$(rustc --print sysroot)/lib/rustlib; \
	for wheel in $(DIST_WHEELS); do \
		target=$${wheel%%:*}; policy=$${wheel#*:}; \
		if [ -d "$$rustlib/$$target/lib" ]; then \
			echo "make dist: the $$policy wheel for $$target"; \
			PATH="$(abspath $(DIST_BIN)):$$PATH" $(DIST_BIN)/maturin build --release --locked --zig --target $$target \
				--compatibility $$policy --out dist || exit 1; \
		else \
			echo "make dist: SKIPPED the $$policy wheel for $$target: Rust's std for $$target is not installed" \
				"(rustup target add $$target)"; \
		fi; \
	done

# What dist/ holds, checked: auditwheel's tags, and the smoke test of the x86_64 wheel and of the sdist in
# fresh venvs without a Rust toolchain (tests/release/dist_checks.py, tests/release/smoke.py).
dist-test: install-test dist
	$(BIN)/python -m pytest -p no:cacheprovider tests/release/dist_checks.py
