"""`referee validate`: archives of records of all four games (with seeds, options, engine-drawn and
client-supplied chance, see records.py) replayed locally and on a Dask cluster started by the test, each
result compared with `game.replay` and with the reference models."""

from __future__ import annotations

import functools
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import referee
from helpers.records import (assert_records_cover_every_game_and_chance, assert_result_is_the_models,
                     expected_by_game_replay, model_replay, random_records)
from referee import archives, cli


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> tuple[Path, list[dict]]:
    records = random_records(300, seed=2026)
    records[17]["moves"] = records[17]["moves"][:3] + ["e5", "S60@HU-HU"]  # the last is no move in any game
    assert_records_cover_every_game_and_chance(records)
    lines = [json.dumps(record) for record in records]
    lines.insert(40, "")  # blank lines are not records
    lines.insert(100, '{"game": "iago"}')  # no moves: not a record
    path = tmp_path_factory.mktemp("archive") / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, records


@functools.cache
def expected_results(path: Path) -> list[tuple[dict, dict]]:
    """Per record, once per archive: its result by `game.replay`, and the reference model's replay."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line and line != '{"game": "iago"}']
    return [(expected_by_game_replay(record), model_replay(record)) for record in records]


def check(output: str, path: Path, records: list[dict]) -> None:
    results = [json.loads(line) for line in output.splitlines()]
    assert [r["record"] for r in results] == list(range(1, len(records) + 2))
    bad = results.pop(99)
    assert bad["error"]["code"] == "malformed-record"
    for result, record, (replayed, modelled) in zip(results, records, expected_results(path), strict=True):
        assert result["id"] == record["id"] and result["game"] == record["game"]
        assert {key: result[key] for key in replayed} == replayed
        assert_result_is_the_models(result, record, modelled)


def summary(path: Path, records: list[dict]) -> str:
    legal = sum(modelled["legal"] for _, modelled in expected_results(path))
    return f"{len(records) + 1} records: {legal} legal, {len(records) - legal} illegal, 1 not records"


@pytest.mark.slow
def test_local_run_writes_one_result_a_record_in_order(archive, tmp_path, capsys) -> None:
    path, records = archive
    out = tmp_path / "results.jsonl"
    status = cli.main(["validate", str(path), "-o", str(out), "--chunk", "64", "--no-progress"])
    assert status == 1  # illegal records and one line that is not a record
    check(out.read_text(), path, records)
    assert summary(path, records) in capsys.readouterr().err


@pytest.mark.slow
def test_the_installed_command_streams_stdin_to_stdout(archive) -> None:
    path, records = archive
    run = subprocess.run(
        [Path(sys.executable).with_name("referee"), "validate", "-", "--jobs", "2"],
        input=path.read_bytes(), capture_output=True, timeout=120,
    )
    assert run.returncode == 1, run.stderr
    check(run.stdout.decode(), path, records)


def test_a_missing_file_is_a_clear_error(tmp_path, capsys) -> None:
    assert cli.main(["validate", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.slow
def test_on_a_dask_cluster_the_results_are_the_same(archive, tmp_path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    path, records = archive
    out = tmp_path / "results.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster.scheduler_address) as client, distributed.get_task_stream(client) as tasks:
            status = cli.main(
                ["validate", str(path), "-o", str(out), "--chunk", "50", "--part-bytes", "20000",
                 "--scheduler", cluster.scheduler_address, "--no-progress"]
            )
    # The work ran as Dask tasks, one a partition of 20,000 bytes (its records counted first where the data
    # is, but for the last's), spread over both workers.
    partitions = -(-path.stat().st_size // 20000)
    replayed = [task for task in tasks.data if "run_partition" in str(task["key"])]
    counted = [task for task in tasks.data if "scan" in str(task["key"])]
    assert (len(replayed), len(counted)) == (partitions, partitions - 1) and partitions > 3
    assert len({task["worker"] for task in replayed}) == 2
    assert status == 1
    check(out.read_text(), path, records)


def test_kept_fields_are_copied_into_each_result_unchanged(tmp_path) -> None:
    records = random_records(40, seed=7)
    for number, record in enumerate(records):
        record |= {"date": f"2026-11-{number % 28 + 1:02}", "players": {"first": "Ann", "second": ["Bo", 1.5, None]}}
        if number % 3:
            del record["date"]  # a field a record may lack
    path, out = tmp_path / "records.jsonl", tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records) + '{"moves": [], "date": "x"}\n')
    cli.main(["validate", str(path), "-o", str(out), "--keep", "date,players,nowhere", "--no-progress"])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    for record, result in zip(records, results):
        assert {key: result.get(key) for key in ("date", "players", "nowhere")} == \
            {key: record.get(key) for key in ("date", "players", "nowhere")}
    assert results[-1]["error"]["code"] == "malformed-record" and results[-1]["date"] == "x"


def test_a_field_of_every_result_cannot_be_kept(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["validate", str(tmp_path / "records.jsonl"), "--keep", "date,outcome"])
    assert exited.value.code == 2
    assert "outcome: a field of every result" in capsys.readouterr().err


def test_positions_are_every_position_of_a_legal_record_as_its_replay_reaches_them(tmp_path) -> None:
    """Each position string, read back by the engine (`parse_position` with the record's setup), is the
    state that playing the moves one by one reaches; the last is the result's `position`."""
    records = random_records(60, seed=11)
    assert_records_cover_every_game_and_chance(records)
    path, out = tmp_path / "records.jsonl", tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    cli.main(["validate", str(path), "-o", str(out), "--positions", "--no-progress"])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    checked = 0
    for record, result in zip(records, results, strict=True):
        if not result["legal"]:
            assert "positions" not in result
            continue
        positions = result["positions"]
        assert len(positions) == len(record["moves"]) + 1 and positions[-1] == result["position"]
        game = referee.game(record["game"], variant=record.get("variant"), options=record.get("options"))
        state = game.new(seed=record["seed"])
        for move, position in zip([None, *record["moves"]], positions):
            if move is not None:
                state = game.play(state, move)["state"]
            assert game.parse_position(position) == state
            checked += 1
    assert checked > 500


def test_chunks_hold_whole_lines_within_their_bounds() -> None:
    lines = [b'{"n": %d, "pad": "%s"}\n' % (n, b"x" * (n % 40 * 9)) for n in range(200)]  # up to 370 bytes
    parts = list(archives.chunks(io.BytesIO(b"".join(lines)), records=50, size=300))
    assert b"".join(data for _, data in parts) == b"".join(lines)
    assert all(len(data) <= 300 or data.count(b"\n") == 1 for _, data in parts)
    assert all(data.count(b"\n") <= 50 for _, data in parts)
    assert [first for first, _ in parts] == [1 + sum(d.count(b"\n") for _, d in parts[:i]) for i in range(len(parts))]


def test_render_of_json_nested_too_deep_is_a_one_line_error(tmp_path) -> None:
    """`referee render -` on JSON nested 100,000 deep died with a RecursionError traceback: it reads its
    input as the service reads a body, and says what is wrong in one line."""
    deep = "[" * 100_000 + "]" * 100_000
    run = subprocess.run([sys.executable, "-m", "referee.cli", "render", "-"], input=deep, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("referee: malformed-json: "), run.stderr[-500:]


@pytest.mark.parametrize("spec", ["mcts:-5", "mcts:0", "mcts:2.5", "mcts:many", "randomly", "engine:0", "engine:",
                                  "engine:-1", "engine:2.5", "engine:four", "engine:4294967296", "engines"])
def test_match_refuses_a_bot_that_is_none_as_a_usage_error(spec, capsys) -> None:
    """`mcts:-5` and `mcts:0` were taken without a word; any BOT that names no bot is a usage error, which
    names the bot and says what is wrong with it."""
    with pytest.raises(SystemExit) as exited:
        cli.main(["match", "random", spec, "--game", "iago"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert "usage: referee match" in error and "error: argument BOT: " in error, error
    if spec.startswith("engine:"):
        assert "engine:LEVEL takes a level 1 to 8" in error or "at most 4,294,967,295" in error, error
    elif spec == "engines":
        assert "engine:LEVEL (1 to 8) or engine:SIMULATIONS (a whole number above 8)" in error, error
