# The project's two entry points (see README): `make serve` and `make test`.
# Each sets up everything it needs from the project's own files, on a machine with Python 3.11+,
# a Rust toolchain (cargo) and make.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: serve test install-service install-test browser java rust-test python-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# `pip install .` builds the release wheel with maturin, exactly as an embedding app installs it.
install-service: $(BIN)/python
	$(BIN)/python -m pip install --quiet '.[service]'

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet '.[test]'

# Starts the service on localhost:8000 under gunicorn (REFEREE_BIND and friends override).
serve: install-service
	exec $(BIN)/gunicorn -c python:referee.gunicorn_conf 'referee.app:create_app()'

# The whole test suite: Rust (lints, then nextest when installed, else cargo test), then Python.
test: rust-test python-test

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

python-test: install-test browser java
	$(BIN)/python -m pytest

bench: install-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) target dist
