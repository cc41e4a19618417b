"""`referee validate`: archives replayed locally and on a Dask cluster started by the test."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import referee
from referee import cli

game = referee.game("iago")


def random_record(rng: random.Random, number: int) -> dict:
    state, moves = game.new(), []
    for _ in range(rng.randrange(0, 40)):
        legal = game.legal_moves(state)
        if not legal:
            break
        moves.append(rng.choice(legal))
        state = game.play(state, moves[-1])["state"]
    return {"game": "iago", "moves": moves, "id": number}


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> tuple[Path, list[dict]]:
    rng = random.Random(2026)
    records = [random_record(rng, n) for n in range(300)]
    records[17]["moves"] = records[17]["moves"][:3] + ["e5"] * 2  # an illegal ply somewhere
    lines = [json.dumps(record) for record in records]
    lines.insert(40, "")  # blank lines are not records
    lines.insert(100, '{"game": "iago"}')  # no moves: not a record
    path = tmp_path_factory.mktemp("archive") / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, records


def expected_results(records: list[dict]) -> list[dict]:
    return [game.replay(record["moves"]) for record in records]


def check(output: str, records: list[dict]) -> None:
    results = [json.loads(line) for line in output.splitlines()]
    assert [r["record"] for r in results] == list(range(1, len(records) + 2))
    bad = results.pop(99)
    assert bad["error"]["code"] == "malformed-record"
    for result, record, expected in zip(results, records, expected_results(records)):
        assert result["id"] == record["id"] and result["game"] == "iago"
        assert result["legal"] is expected["legal"] and result["plies"] == expected["plies"]
        assert result["position"] == expected["position"] and result["outcome"] == expected["outcome"]
        if not expected["legal"]:
            assert result["ply"] == expected["ply"] and result["reason"] == expected["reason"]


def test_local_run_writes_one_result_a_record_in_order(archive, tmp_path, capsys) -> None:
    path, records = archive
    out = tmp_path / "results.jsonl"
    status = cli.main(["validate", str(path), "-o", str(out), "--chunk", "64", "--no-progress"])
    assert status == 1  # one illegal record and one line that is not a record
    check(out.read_text(), records)
    summary = capsys.readouterr().err
    assert "301 records: 299 legal, 1 illegal, 1 not records" in summary


def test_the_installed_command_streams_stdin_to_stdout(archive) -> None:
    path, records = archive
    run = subprocess.run(
        [Path(sys.executable).with_name("referee"), "validate", "-", "--jobs", "2"],
        input=path.read_bytes(), capture_output=True, timeout=120,
    )
    assert run.returncode == 1, run.stderr
    check(run.stdout.decode(), records)


def test_a_missing_file_is_a_clear_error(tmp_path, capsys) -> None:
    assert cli.main(["validate", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_on_a_dask_cluster_the_results_are_the_same(archive, tmp_path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    path, records = archive
    out = tmp_path / "results.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster.scheduler_address) as client, distributed.get_task_stream(client) as tasks:
            status = cli.main(
                ["validate", str(path), "-o", str(out), "--chunk", "50", "--scheduler", cluster.scheduler_address, "--no-progress"]
            )
    # The work ran as Dask tasks, one a chunk of 50 records, spread over both workers.
    chunks = [task for task in tasks.data if "replay_chunk" in str(task["key"])]
    assert len(chunks) == 7
    assert len({task["worker"] for task in chunks}) == 2
    assert status == 1
    check(out.read_text(), records)
