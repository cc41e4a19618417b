"""gunicorn configuration of the Referee service: `gunicorn -c python:referee.http.gunicorn_conf ...`.
Every value can be set from the environment (see docs/operations.md)."""

from __future__ import annotations

import gc

from referee.http.settings import Settings, bind_address, probe_address

__all__ = [
    "bind", "workers", "worker_class", "worker_connections", "timeout", "graceful_timeout", "keepalive",
    "max_requests", "max_requests_jitter", "limit_request_line", "limit_request_fields",
    "limit_request_field_size", "accesslog", "errorlog", "loglevel", "logconfig_dict", "preload_app", "when_ready",
    "pre_fork", "post_fork",
]

# Every setting read and checked together before gunicorn starts anything: a bad one stops it here, named.
_settings = Settings.from_env()
# The probes' listener (REFEREE_PROBE_BIND), when set, beside the service's: served by a pool of its own
# (referee.http.worker), so that no client holding the service's connections can make a probe wait.
bind = [bind_address(), *filter(None, [probe_address()])]
workers = _settings.workers
# gevent workers (referee/http/worker.py): a connection costs a greenlet, so slow clients cannot hold the
# workers; each read or write waits at most REFEREE_READ_TIMEOUT seconds. The engine's calls are short
# and CPU-bound and run between reads.
worker_class = "referee.http.worker.RefereeWorker"
worker_connections = _settings.worker_connections
# A worker whose loop is stuck this long (one request computing, not a slow client) is killed and replaced.
timeout = _settings.timeout
# On SIGTERM, workers finish the requests in hand for up to this long before being killed.
graceful_timeout = _settings.graceful_timeout
keepalive = _settings.keepalive
# Recycle workers now and then (with jitter, so they do not all restart at once); 0 turns it off.
max_requests = _settings.max_requests
max_requests_jitter = max_requests // 10
# Request line and header limits (the body limit is REFEREE_MAX_BODY_BYTES, enforced by the app).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
accesslog = None  # the app writes one JSON line per request itself
errorlog = "-"
loglevel = _settings.log_level.lower()
# gunicorn's own log lines (workers booted, refused requests) as JSON, like the app's.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "referee.http.logs.JsonFormatter"}},
    "handlers": {"json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
    "loggers": {"gunicorn.error": {"handlers": ["json"], "level": loglevel.upper(), "propagate": False}},
    "root": {"handlers": ["json"], "level": "WARNING"},
}
# Load the app (and the native engine) once in the master; workers fork with it ready.
preload_app = True



def when_ready(server) -> None:  # noqa: ANN001 - gunicorn hook signature
    from referee.http import metrics

    # The metrics' table in shared memory, a slot a worker: twice the workers, so that a worker replaced
    # (or added by TTIN) always finds a free one.
    metrics.share(slots=2 * server.num_workers + 2)


def pre_fork(server, worker) -> None:  # noqa: ANN001
    # The app is loaded in the master (preload_app); frozen objects are never scanned again by the
    # garbage collector, so workers neither pay for tracing them nor copy their pages on write.
    gc.freeze()
    # The metrics slot of the new worker: one no live worker adds to (a dead worker's, whose counts the
    # new one carries on).
    taken = {getattr(other, "metrics_slot", None) for other in server.WORKERS.values()}
    worker.metrics_slot = next(slot for slot in range(2 * server.num_workers + 2) if slot not in taken)


def post_fork(server, worker) -> None:  # noqa: ANN001
    from referee.http import metrics

    metrics.use_slot(worker.metrics_slot)
