# Build stage: the release wheel (Rust core + Python package), as `pip install .` would build it.
FROM rust:1-slim-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY requirements/build.txt /requirements/
RUN python3 -m venv /opt/maturin \
    && /opt/maturin/bin/pip install --no-cache-dir --require-hashes -r /requirements/build.txt
WORKDIR /src
COPY Cargo.toml Cargo.lock pyproject.toml README.md openapi.yaml ./
COPY rust_core rust_core
COPY service service
RUN /opt/maturin/bin/maturin build --release --locked -o /wheels

# Runtime stage: the service's locked dependencies, then the wheel, gunicorn as a non-root user.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 REFEREE_BIND=0.0.0.0:8000
COPY requirements/service.txt /requirements/
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --require-hashes -r /requirements/service.txt \
    && pip install --no-cache-dir --no-deps /wheels/referee-*.whl \
    && rm -rf /wheels /requirements \
    && useradd --system --uid 10001 --no-create-home referee
USER referee
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
CMD ["gunicorn", "-c", "python:referee.http.gunicorn_conf", "referee.http.app:create_app()"]
