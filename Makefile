# The project's two entry points (see README): `make serve` and `make test` (and `make test-fast`).
# Each sets up everything it needs from the project's own files, on a machine with Python 3.11+,
# a Rust toolchain (cargo) and make.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: serve test test-fast install-service install-test browser java nginx rust-test python-test bench lock clean

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
	exec $(BIN)/gunicorn -c python:referee.gunicorn_conf 'referee.app:create_app()'

# The whole test suite: Rust (lints, then nextest when installed, else cargo test), then Python.
test: rust-test python-test

# Everything but the slow and the live suites (pytest markers, see docs/development.md): the Rust unit
# tests, then the Python tests marked neither slow nor live.
test-fast: install-test
	cargo test --workspace --lib
	$(BIN)/python -m pytest -m "not slow and not live"

rust-test:
	cargo clippy --workspace --all-targets --features python -- -D warnings
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

# The reverse proxy's test (tests/test_nginx_live.py) runs deploy/referee.nginx.conf with Debian's nginx, as
# a plain subprocess on loopback (never through the system's service); installed here when missing (it is
# not always on a user's PATH: /usr/sbin), with sudo unless root.
nginx:
	@if ! command -v nginx >/dev/null 2>&1 && ! test -x /usr/sbin/nginx; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx; \
	fi

python-test: install-test browser java nginx
	$(BIN)/python -m pytest

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
	$(LOCK_VENV)/bin/python -m pip install --quiet 'pip-tools>=7.4,<8'
	$(PIP_COMPILE) --all-build-deps --only-build-deps -o requirements/build.txt pyproject.toml
	$(PIP_COMPILE) --extra test -o requirements/test.txt pyproject.toml
	$(PIP_COMPILE) --extra service --constraint requirements/test.txt -o requirements/service.txt pyproject.toml

clean:
	rm -rf $(VENV) $(LOCK_VENV) target dist
