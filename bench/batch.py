"""The `batch` section: NDJSON batches over HTTP, end to end.

`POST /v1/games/<game>/batch` with 10,000 validate items as NDJSON (half legal, half refused; about
2.3 MB for Iago, 30 MB for Caesar!), one request at a time, 5 requests a game; *items/s* is items ÷
time from sending to the last byte of the answer (median and best), × Iago's, and compared with the
in-process JSON batch when the embedding section ran too. Then, for every game, one long stream of
1,000,000 items (`--stream-items`, or as many as fit in 250 MB, `--stream-mb`) and one of a tenth of that,
with the workers' peak resident memory after each: the short streams of all games run first, so memory
that grew with the input would show as a larger peak in the long rows."""

from __future__ import annotations

import argparse
import statistics
import time

import orjson

from helpers.live import send
from report import number, progress, ratio, table, times
from samples import REFERENCE, Sample, batch_items, ndjson
from served import Server, worker_kib

__all__ = ["bench_http_batch", "bench_stream"]


def http_batch(args: argparse.Namespace, server: Server, name: str, body: bytes, count: int) -> list[float]:
    """Seconds of each of --batch-repeat NDJSON batch requests of `count` items."""
    seconds = []
    for _ in range(args.batch_repeat):
        start = time.perf_counter()
        answer = send(server, f"/v1/games/{name}/batch", body, "application/x-ndjson", timeout=60)
        seconds.append(time.perf_counter() - start)
        lines = answer.body.count(b"\n")
        if answer.status != 200 or lines != count:
            raise RuntimeError(f"the {name} batch answered {answer.status} with {lines} lines: {answer.body[:500]!r}")
    return seconds


def bench_http_batch(args: argparse.Namespace, server: Server, samples: dict[str, list[Sample]],
                     json_rates: dict[str, float]) -> str:
    rows, rates = [], {}
    for name, found in samples.items():
        progress(f"batch: {name} NDJSON batch of {args.batch_size} items over HTTP")
        body = ndjson(batch_items(found, args.batch_size))
        seconds = http_batch(args, server, name, body, args.batch_size)
        median, best = statistics.median(seconds), min(seconds)
        rates[name] = args.batch_size / median
        in_process = json_rates.get(name)
        rows.append([name, f"{len(body) / 1e6:,.1f}", f"{median * 1000:,.0f}", number(rates[name]),
                     f"{best * 1000:,.0f}", number(args.batch_size / best), ratio(rates[name], rates.get(REFERENCE)),
                     times(in_process / rates[name]) if in_process else "—"])
    return "\n".join([
        "## batch: NDJSON over HTTP",
        "",
        f"`POST /v1/games/<game>/batch` with {number(args.batch_size)} NDJSON validate items (half legal, half "
        f"refused moves), one request at a time on a fresh connection, {args.batch_repeat} requests a game; timed "
        "from sending the request to the last byte of the answer. *× Iago*: median items/s ÷ Iago's; *in-process "
        "÷ HTTP*: the in-process `validate_batch_json` items/s (embedding section) ÷ the median here.",
        "",
        table(["game", "MB in", "median ms", "median items/s", "best ms", "best items/s", "× Iago",
               "in-process ÷ HTTP"], rows),
    ])


def stream_row(server: Server, name: str, lines: list[bytes], count: int) -> list[str]:
    progress(f"batch: {name} NDJSON stream of {count:,} items")
    body = b"".join(lines[index % len(lines)] for index in range(count))
    start = time.perf_counter()
    answer = send(server, f"/v1/games/{name}/batch", body, "application/x-ndjson", timeout=600)
    seconds = time.perf_counter() - start
    answered = answer.body.count(b"\n")
    if answer.status != 200 or answered != count:
        raise RuntimeError(f"the {name} stream answered {answer.status} with {answered} lines: {answer.body[:300]!r}")
    peak = max(worker_kib(server, "VmHWM").values())
    return [name, number(count), f"{len(body) / 1e6:,.0f}", f"{seconds:,.2f}", number(count / seconds),
            f"{peak / 1024:,.0f}"]


def bench_stream(args: argparse.Namespace, server: Server, samples: dict[str, list[Sample]]) -> str:
    """Every game's long NDJSON stream: items/s end to end, and the workers' peak memory, first a short
    stream of each game, then a long one of each."""
    lines = {name: [orjson.dumps(item) + b"\n" for item in batch_items(found, 2 * len(found))]
             for name, found in samples.items()}
    counts = {}
    for name, encoded in lines.items():
        per_item = statistics.mean(map(len, encoded))
        counts[name] = max(10, min(args.stream_items, int(args.stream_mb * 1e6 / per_item)))
    rows = [stream_row(server, name, lines[name], counts[name] // 10) for name in samples]
    rows += [stream_row(server, name, lines[name], counts[name]) for name in samples]
    return "\n".join([
        "## batch: a long NDJSON stream over HTTP",
        "",
        f"`POST /v1/games/<game>/batch` (NDJSON) with the validate items above repeated, {number(args.stream_items)} "
        f"items (`--stream-items`) or as many as fit in {args.stream_mb} MB (`--stream-mb`), and a tenth of that "
        "first; one request on a fresh connection (Python's http.client, which sends the whole body before "
        "reading), timed to the last byte of the answer. The service reads and judges the stream in chunks of about "
        "1 MB and spools results beyond 8 MB to a temporary file. Peak memory: the largest peak resident set "
        "(VmHWM, which never falls) among the workers after the request; the short streams of every game run "
        "before the long ones, so memory growing with the input would show as a larger peak in the long rows.",
        "",
        table(["game", "items", "MB in", "seconds", "items/s", "worker peak MiB (so far)"], rows),
    ])
