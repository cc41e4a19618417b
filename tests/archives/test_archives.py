"""`referee validate SOURCE...` at scale (referee.archives): many compressed files, globs, fsspec URLs;
partitions that give the results of one run however the work is cut; outputs that appear only complete;
`-o DIR/` with its manifest and `--resume` after a killed run; a Dask cluster that loses a worker."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import json
import lzma
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from referee import cli
from helpers.games import FACTS


DOCS = Path(__file__).resolve().parents[2] / "docs" / "archive"


def example_lines() -> list[bytes]:
    """The example archive's lines (every game, every kind of end, an illegal move, a line no record)."""
    return (DOCS / "example.jsonl").read_bytes().splitlines(keepends=True)


def archive(path: Path, copies: int, blank_every: int = 0) -> Path:
    """The example archive `copies` times over, a blank line every `blank_every` lines, the last line
    without its line end."""
    lines = example_lines() * copies
    if blank_every:
        lines = [line for index, line in enumerate(lines) for line in ([b"  \n", line] if index % blank_every == 3 else [line])]
    path.write_bytes(b"".join(lines).rstrip(b"\n"))
    return path


def run(*args: str) -> int:
    return cli.main(["validate", *args, "--no-progress"])


def results(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def parts_of(directory: Path) -> bytes:
    manifest = json.loads((directory / "_manifest.json").read_bytes())
    return b"".join((directory / entry["part"]).read_bytes() for entry in manifest["parts"])


def test_partitions_give_the_results_of_one_run_however_the_work_is_cut(tmp_path) -> None:
    path = archive(tmp_path / "records.jsonl", 6, blank_every=7)
    assert run(str(path), "-o", str(tmp_path / "one.jsonl"), "--report", str(tmp_path / "one.html")) == 1
    whole = (tmp_path / "one.jsonl").read_bytes()
    assert [r["record"] for r in results(tmp_path / "one.jsonl")] == list(range(1, 6 * len(example_lines()) + 1))
    for part_bytes in (997, 4096, 50_000):  # cuts inside lines, at blank lines, at line ends
        out = tmp_path / f"cut-{part_bytes}.jsonl"
        assert run(str(path), "-o", str(out), "--part-bytes", str(part_bytes), "--chunk", "17") == 1
        assert out.read_bytes() == whole
        directory = tmp_path / f"dir-{part_bytes}"
        assert run(str(path), "-o", f"{directory}/", "--part-bytes", str(part_bytes)) == 1
        manifest = json.loads((directory / "_manifest.json").read_bytes())
        assert len(manifest["parts"]) == -(-path.stat().st_size // part_bytes)
        assert parts_of(directory) == whole and (directory / "_SUCCESS").exists()
        assert sum(entry["done"]["counts"]["records"] for entry in manifest["parts"]) == manifest["counts"]["records"] == 6 * len(example_lines())
    assert not list(tmp_path.glob("*.partial*"))


def test_many_compressed_files_a_glob_and_a_directory_name_each_result_s_source(tmp_path) -> None:
    zstandard = pytest.importorskip("zstandard")
    lines = example_lines()
    plain = {name: b"".join(lines[index::4]) for index, name in enumerate("abcd")}
    compress = {"a": gzip.compress, "b": bz2.compress, "c": lzma.compress, "d": zstandard.ZstdCompressor().compress}
    ending = {"a": "gz", "b": "bz2", "c": "xz", "d": "zst"}
    (tmp_path / "in").mkdir()
    for name, data in plain.items():
        (tmp_path / "in" / f"{name}.jsonl").write_bytes(data)
        (tmp_path / "in" / f"{name}.jsonl.{ending[name]}").write_bytes(compress[name](data))
    single = {}
    for name in plain:
        run(str(tmp_path / "in" / f"{name}.jsonl"), "-o", str(tmp_path / f"{name}.out"))
        single[name] = results(tmp_path / f"{name}.out")
        assert "source" not in single[name][0]  # one file named: results as before
    run(str(tmp_path / "in" / "*.jsonl.*"), "-o", str(tmp_path / "glob.out"))
    expected = [result | {"source": str(tmp_path / "in" / f"{name}.jsonl.{ending[name]}")}
                for name in plain for result in single[name]]
    assert results(tmp_path / "glob.out") == expected
    assert [list(result)[-1] for result in results(tmp_path / "glob.out")] == ["source"] * len(expected)
    # Named one by one, in another order, and as a directory (its plain files, in name order).
    run(*(str(tmp_path / "in" / f"{name}.jsonl.{ending[name]}") for name in "dcba"), "-o", str(tmp_path / "named.out"))
    assert results(tmp_path / "named.out") == [r for name in "dcba" for r in expected if r["source"].endswith(ending[name])]
    (tmp_path / "in" / "_SUCCESS").write_bytes(b"")  # skipped, as Spark and Hadoop skip it
    for compressed in tmp_path.glob("in/*.jsonl.*"):
        compressed.unlink()
    run(str(tmp_path / "in"), "-o", str(tmp_path / "dir.out"))
    assert [{k: v for k, v in r.items() if k != "source"} for r in results(tmp_path / "dir.out")] == [
        r for name in plain for r in single[name]]


def test_an_fsspec_url_is_a_source_and_an_output(tmp_path) -> None:
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    data = b"".join(example_lines())
    memory.pipe({"/archives/2026-01.jsonl.gz": gzip.compress(data), "/archives/2026-02.jsonl": data})
    run(str(archive(tmp_path / "records.jsonl", 1)), "-o", str(tmp_path / "local.out"))
    local = results(tmp_path / "local.out")
    assert run("memory://archives/*", "-o", "memory://results/", "--part-bytes", "9000") == 1
    manifest = json.loads(memory.cat("/results/_manifest.json"))
    assert [entry["partition"]["source"] for entry in manifest["parts"]][:2] == [
        "memory:///archives/2026-01.jsonl.gz", "memory:///archives/2026-02.jsonl"]
    out = b"".join(memory.cat(f"/results/{entry['part']}") for entry in manifest["parts"])
    got = [json.loads(line) for line in out.splitlines()]
    assert [{k: v for k, v in r.items() if k != "source"} for r in got] == local * 2
    assert memory.exists("/results/_SUCCESS")
    memory.rm("/archives", recursive=True)
    memory.rm("/results", recursive=True)


def killed_mid_run(command: list[str], started: callable, env: dict | None = None) -> subprocess.Popen:
    """Runs `referee validate` as a process and kills it (SIGKILL) as soon as `started()` holds."""
    process = subprocess.Popen([sys.executable, "-m", "referee.cli", "validate", *command, "--no-progress", "-j", "1"],
                               stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    while not started() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert process.poll() is None, "the run ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    return process


def partial_written(path: Path) -> bool:
    """Whether an attempt at `path` (`.NAME.partial-<token>` beside it, `whole_file`) has written bytes yet."""
    for partial in path.parent.glob(f".{path.name}.partial-*"):
        with contextlib.suppress(FileNotFoundError):  # moved into place meanwhile
            if partial.stat().st_size:
                return True
    return False


def manifest_done(directory: Path) -> int:
    try:
        manifest = json.loads((directory / "_manifest.json").read_bytes())
    except (OSError, ValueError):
        return 0
    return sum(entry["done"] is not None for entry in manifest["parts"])


def test_a_killed_run_leaves_nothing_at_its_paths_and_resume_ends_as_an_unbroken_run(tmp_path) -> None:
    path = archive(tmp_path / "records.jsonl", 300)  # 15,000 records, 14 MB
    out, page = tmp_path / "results.jsonl", tmp_path / "report.html"
    killed_mid_run([str(path), "-o", str(out), "--report", str(page)], lambda: partial_written(out))
    assert not out.exists() and not page.exists()  # only the partial files say a run was under way
    left = sorted(tmp_path.glob(".results.jsonl.partial-*"))
    assert left and run(str(path), "-o", str(out)) == 1 and out.exists()
    assert not list(tmp_path.glob(".results.jsonl.partial-*"))  # the next run took away what the killed one left

    directory = tmp_path / "parts"
    path = archive(tmp_path / "more.jsonl", 1200)  # a run of seconds: the manifest is saved once a second
    command = [str(path), "-o", f"{directory}/", "--part-bytes", "1600000", "--report", str(page)]
    killed_mid_run(command, lambda: manifest_done(directory) >= 2)
    manifest = json.loads((directory / "_manifest.json").read_bytes())
    complete = {entry["part"]: (directory / entry["part"]).stat().st_mtime_ns
                for entry in manifest["parts"] if entry["done"] is not None}
    assert 2 <= len(complete) < len(manifest["parts"]) and not (directory / "_SUCCESS").exists()

    assert run(*command) == 2  # a directory holding a run is not overwritten: nothing done
    assert run(*command, "--resume") == 1
    assert run(str(path), "-o", f"{tmp_path / 'unbroken'}/", "--part-bytes", "1600000") == 1
    assert parts_of(directory) == parts_of(tmp_path / "unbroken")
    assert all((directory / name).stat().st_mtime_ns == mtime for name, mtime in complete.items())  # not redone
    assert (directory / "_SUCCESS").exists() and page.exists()


def in_a_thread(function, *args) -> tuple[threading.Thread, dict]:
    answer: dict = {}
    thread = threading.Thread(target=lambda: answer.update(value=function(*args)), daemon=True)
    thread.start()
    return thread, answer


@pytest.mark.slow
def test_on_a_dask_cluster_a_lost_worker_loses_nothing(tmp_path, monkeypatch) -> None:
    distributed = pytest.importorskip("dask.distributed")
    path = archive(tmp_path / "records.jsonl", 300)
    assert run(str(path), "-o", f"{tmp_path / 'local'}/", "--part-bytes", "400000") == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")  # the workers' native pools: one thread each, as their Dask threads
    directory, out = tmp_path / "parts", tmp_path / "results.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster.scheduler_address) as client:
            pids = client.run(os.getpid)
            command = [str(path), "-o", f"{directory}/", "--part-bytes", "400000", "--scheduler", cluster.scheduler_address]
            thread, answer = in_a_thread(run, *command)
            deadline = time.monotonic() + 60
            while manifest_done(directory) < 2 and thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.005)
            assert thread.is_alive() and manifest_done(directory) < 36
            os.kill(next(iter(pids.values())), signal.SIGKILL)  # one worker, its task in flight with it
            thread.join(120)
            assert answer["value"] == 1
            assert parts_of(directory) == parts_of(tmp_path / "local") and (directory / "_SUCCESS").exists()
            # Nothing but the parts, the manifest and _SUCCESS: not the lost attempt's partial file either.
            assert sorted(entry.name for entry in directory.iterdir()) == sorted(
                [entry.name for entry in (tmp_path / "local").iterdir()])
            # The same when the results come back in order to one file (the nanny has restarted the worker).
            client.wait_for_workers(2, timeout=30)
            pids = client.run(os.getpid)
            thread, answer = in_a_thread(run, str(path), "-o", str(out), "--part-bytes", "400000",
                                         "--scheduler", cluster.scheduler_address)
            while not partial_written(out) and thread.is_alive():
                time.sleep(0.005)  # the first results written
            assert thread.is_alive()
            os.kill(next(iter(pids.values())), signal.SIGKILL)
            thread.join(120)
            assert answer["value"] == 1 and out.read_bytes() == parts_of(directory)
            assert set(client.run(os.getpid).values()) != set(pids.values())  # a worker was lost indeed


def dask_cluster(port: int) -> list[subprocess.Popen]:
    """A scheduler and one worker process (one thread), as `dask scheduler` and `dask worker` start them."""
    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet)]
    processes.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-dashboard"], **quiet))
    from dask.distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(1, timeout=30)
    return processes


def stopped(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_a_lost_scheduler_is_one_line_with_the_command_that_resumes(tmp_path, monkeypatch) -> None:
    pytest.importorskip("dask.distributed")
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = archive(tmp_path / "records.jsonl", 300)
    assert run(str(path), "-o", f"{tmp_path / 'local'}/", "--part-bytes", "400000") == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    monkeypatch.chdir(tmp_path)
    cluster = dask_cluster(port)
    try:
        command = ["records.jsonl", "-o", "parts/", "--part-bytes", "400000", "--scheduler", f"tcp://127.0.0.1:{port}"]
        process = subprocess.Popen([sys.executable, "-m", "referee.cli", "validate", *command, "--no-progress"],
                                   stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while manifest_done(tmp_path / "parts") < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        cluster[0].kill()  # the scheduler
        _, errors = process.communicate(timeout=60)
    finally:
        stopped(cluster)
    assert process.returncode == 3 and errors.count("\n") == 1, errors
    assert errors.startswith(f"referee: the Dask scheduler at tcp://127.0.0.1:{port} was lost")
    resume = errors.split("resume with: ")[1].split()
    assert resume[:2] == ["referee", "validate"] and resume[-1] == "--resume"
    assert not (tmp_path / "parts" / "_SUCCESS").exists() and manifest_done(tmp_path / "parts") < 36
    cluster = dask_cluster(port)  # a new scheduler where the old one was
    try:
        resumed = subprocess.run([sys.executable, "-m", "referee.cli", *resume[1:]], capture_output=True, timeout=120,
                                 check=False)
    finally:
        stopped(cluster)
    assert resumed.returncode == 1, resumed.stderr
    assert parts_of(tmp_path / "parts") == parts_of(tmp_path / "local") and (tmp_path / "parts" / "_SUCCESS").exists()


def test_a_kept_null_is_kept_and_a_known_game_with_bad_options_counts_in_its_game_s_tally(tmp_path) -> None:
    """The two bugs planted in the archive code (issue 40), pinned: `--keep` dropped a field whose value is
    null, and a record of a known game with bad options was left out of that game's tally."""
    from referee import archives

    path = tmp_path / "records.jsonl"
    path.write_text('{"game": "iago", "moves": [], "date": null}\n'
                    '{"game": "caesar", "options": {"x": 1}, "moves": [], "date": null}\n'
                    '{"game": "isaac", "date": null}\n')
    run(str(path), "-o", str(tmp_path / "out.jsonl"), "--keep", "date")
    assert [("date" in result, result["date"]) for result in results(tmp_path / "out.jsonl")] == [(True, None)] * 3
    options = archives.Options(["date"], False, True, 10, False)
    done = archives.run_partition(archives.plan([str(path)], 1 << 20).parts[0], options, None)
    tally = done.tally.as_dict()
    caesar = tally["games"]["caesar"]
    assert (caesar["records"], caesar["errors"]) == (1, 1) and tally["errors"]["invalid-options"] == 1


def test_what_cannot_be_done_is_said_in_one_line(tmp_path, capsys, monkeypatch) -> None:
    import importlib.util

    path = archive(tmp_path / "records.jsonl", 2)
    assert run(str(path), "-o", str(tmp_path / "out.jsonl"), "--resume") == 2  # nothing done: a usage error
    assert "--resume finishes a run into a directory" in capsys.readouterr().err
    assert run("-", "--scheduler", "tcp://127.0.0.1:9") == 2
    assert "standard input cannot go to a cluster" in capsys.readouterr().err
    assert run(str(path), "-o", f"{tmp_path / 'parts'}/", "--part-bytes", "20000") == 1
    assert run(str(path), "-o", f"{tmp_path / 'parts'}/", "--part-bytes", "30000", "--resume") == 2
    assert "written with other options" in capsys.readouterr().err
    manifest = tmp_path / "parts" / "_manifest.json"
    manifest.write_bytes(manifest.read_bytes().replace(b'"engine": "', b'"engine": "0.0.0-other+'))
    assert run(str(path), "-o", f"{tmp_path / 'parts'}/", "--part-bytes", "20000", "--resume") == 2
    assert "was written by referee 0.0.0-other" in capsys.readouterr().err
    assert run(str(tmp_path / "nothing-*.jsonl")) == 2
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "zstandard" else real(name))
    (tmp_path / "records.jsonl.zst").write_bytes(b"")
    assert run(str(tmp_path / "records.jsonl.zst")) == 2
    assert "pip install 'referee[archives]'" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["local", "memory://"])
def test_an_output_that_fails_half_written_is_not_there(tmp_path, where) -> None:
    """A file output appears whole or not at all, on a local disk and an object store alike: an upload
    closed on an error was committed half written."""
    import fsspec

    from referee.archives import whole_file

    path = str(tmp_path / "out.jsonl") if where == "local" else f"memory://{tmp_path.name}/out.jsonl"
    with pytest.raises(RuntimeError), whole_file(path) as file:
        file.write(b"half")
        raise RuntimeError("the run failed")
    fs, target = fsspec.core.url_to_fs(path)
    folder, name = target.rsplit("/", 1)
    assert not fs.exists(target) and not fs.glob(f"{folder}/.{name}.partial*")
    with whole_file(path) as file:
        file.write(b"whole\n")
    assert fs.cat(target) == b"whole\n" and fs.ls(folder, detail=False) == [target]


def test_an_output_that_is_a_pipe_or_a_device_is_written_to_not_replaced(tmp_path) -> None:
    """`-o /dev/null` (as the archives page's example writes) or a FIFO: written straight to. Moving a
    whole file onto it replaced the device with a regular file, which then held what was written to it."""
    import stat

    path = archive(tmp_path / "records.jsonl", 2)
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    thread, answer = in_a_thread(lambda: fifo.read_bytes())
    assert run(str(path), "-o", str(fifo), "--report", str(tmp_path / "report.html")) == 1
    thread.join(30)
    assert stat.S_ISFIFO(fifo.stat().st_mode) and answer["value"].count(b"\n") == 2 * len(example_lines())
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["records.jsonl", "report.html", "results.fifo"]


def test_two_attempts_at_one_part_each_write_their_own_file_and_leave_it_whole(tmp_path) -> None:
    """A killed client's task still running on a worker beside a resumed run's task for the same part: both
    open the part at once and write it in step; each writes under its own name and moves a whole part into
    place (with one shared `PATH.partial` the second found its file moved away under it)."""
    from referee.archives import whole_file

    part = tmp_path / "part-00001.jsonl"
    lines = [b'{"record":%d}\n' % number for number in range(2000)]
    both_open, halfway, failures = threading.Barrier(2), threading.Barrier(2), []

    def attempt() -> None:
        try:
            with whole_file(str(part)) as file:
                both_open.wait(10)
                file.write(b"".join(lines[:1000]))
                file.flush()
                halfway.wait(10)
                file.write(b"".join(lines[1000:]))
        except Exception as error:  # noqa: BLE001 - said by the assertion below
            failures.append(error)

    attempts = [threading.Thread(target=attempt) for _ in range(2)]
    for thread in attempts:
        thread.start()
    for thread in attempts:
        thread.join(30)
    assert not failures and part.read_bytes() == b"".join(lines)
    assert sorted(path.name for path in tmp_path.iterdir()) == [part.name]  # no partial file left


def test_a_killed_run_s_partial_part_is_not_done_and_a_resumed_run_removes_it(tmp_path) -> None:
    from referee.archives import partial_of

    path = archive(tmp_path / "records.jsonl", 2)
    directory = tmp_path / "parts"
    assert run(str(path), "-o", f"{directory}/", "--part-bytes", "4000") == 1
    whole = parts_of(directory)
    # As a run killed while writing part 1 leaves it: the manifest without it, its bytes in a partial file.
    manifest = json.loads((directory / "_manifest.json").read_bytes())
    manifest["parts"][1]["done"] = None
    (directory / "_manifest.json").write_text(json.dumps(manifest))
    lost = directory / manifest["parts"][1]["part"]
    stale = Path(partial_of(str(lost), "a-killed-run"))
    stale.write_bytes(lost.read_bytes()[:100])
    lost.unlink()
    (directory / "_SUCCESS").unlink()
    assert run(str(path), "-o", f"{directory}/", "--part-bytes", "4000", "--resume") == 1
    assert parts_of(directory) == whole and (directory / "_SUCCESS").exists()
    assert not stale.exists() and not list(directory.glob("*.partial*"))


def dataset_rows(directory: Path):
    """The data set's rows as pyarrow and as pandas read them (both skip `_manifest.json` and `_SUCCESS`)."""
    pq = pytest.importorskip("pyarrow.parquet")
    pandas = pytest.importorskip("pandas")
    table = pq.read_table(directory)
    frame = pandas.read_parquet(directory)
    assert frame.shape == (table.num_rows, 10) and list(frame["position"]) == table.column("position").to_pylist()
    assert [None if pandas.isna(value) else value for value in frame["action"]] == table.column("action").to_pylist()
    return table.to_pylist()


def test_a_dataset_is_a_row_a_ply_of_every_legal_record_and_resumes(tmp_path) -> None:
    import referee

    path = archive(tmp_path / "records.jsonl", 2)
    assert run(str(path), "--positions", "-o", str(tmp_path / "results.jsonl")) == 1  # the example has illegal records
    directory = tmp_path / "dataset"
    assert run(str(path), "--dataset", f"{directory}/", "--part-bytes", "4000") == 1
    manifest = json.loads((directory / "_manifest.json").read_bytes())
    assert len(manifest["parts"]) > 2 and (directory / "_SUCCESS").exists()
    assert all(entry["part"].endswith(".parquet") for entry in manifest["parts"])

    rows = dataset_rows(directory)
    records = {number: json.loads(line) for number, line in enumerate(path.read_bytes().splitlines(), 1)}
    answers = {answer["record"]: answer for answer in results(tmp_path / "results.jsonl")}
    legal = [number for number, answer in answers.items() if answer.get("legal") is True]
    assert len(legal) < len(answers)  # illegal records (and a line no record) ...
    assert {row["record"] for row in rows} == set(legal)  # ... give no row
    assert len(rows) == sum(len(records[number]["moves"]) + 1 for number in legal)
    for number in legal:
        mine = [row for row in rows if row["record"] == number]
        record, answer = records[number], answers[number]
        assert [row["ply"] for row in mine] == list(range(len(record["moves"]) + 1))
        assert [row["position"] for row in mine] == answer["positions"]
        assert [row["move"] for row in mine] == [None, *record["moves"]]
        assert {row["id"] for row in mine} == {record.get("id")} and {row["game"] for row in mine} == {record["game"]}
        assert {row["source"] for row in mine} == {str(path)}
        game = referee.game(record["game"], record.get("variant"), record.get("options"))
        handle = game.start(record.get("seed"))
        assert mine[0]["to_move"] == handle.to_move and mine[-1]["to_move"] == answer["outcome"]["to_move"]
        for row in mine[1:]:
            if row["action"] is not None:  # one move, one decision: the action id is that move's
                assert game.move_of(row["action"]) == row["move"] or game.action_of(row["move"]) == row["action"]
        returns = mine[0]["returns"]
        assert all(row["returns"] == returns for row in mine) and len(returns) == len(handle.players)
        winner = answer["outcome"]["winner"]
        if answer["outcome"]["status"] == "ongoing":
            assert returns == [0.0] * len(returns)
        elif winner is not None:
            assert returns[handle.players.index(winner)] == max(returns) == 1.0
    assert any(row["action"] is not None for row in rows) and any(row["action"] is None and row["ply"] for row in rows)

    # Resume: the parts not complete are redone, byte for byte; the others are left as they were.
    lost = directory / manifest["parts"][1]["part"]
    whole = lost.read_bytes()
    kept = {entry["part"]: (directory / entry["part"]).stat().st_mtime_ns for entry in manifest["parts"][2:]}
    lost.unlink()
    (directory / "_SUCCESS").unlink()
    assert run(str(path), "--dataset", f"{directory}/", "--part-bytes", "4000", "--resume") == 1
    assert lost.read_bytes() == whole and (directory / "_SUCCESS").exists()
    assert all((directory / name).stat().st_mtime_ns == mtime for name, mtime in kept.items())
    assert dataset_rows(directory) == rows
    assert run(str(path), "--dataset", f"{directory}/", "-o", str(tmp_path / "also.jsonl")) == 2  # one output
    assert run(str(path), "--dataset", f"{tmp_path / 'other'}/", "--keep", "date") == 2  # its own columns


def one_decision(handle, move: str) -> int | None:
    """The action id of `move` at the handle's position when that id alone plays the move (the position
    after is the move's), else None: what a data set's `action` says, found with the public handle."""
    from referee.errors import RefereeError

    played = handle.copy(stack=False)
    played.push(move)
    try:
        action = handle.action_of(move)
        decided = handle.copy(stack=False)
        decided.push(action)
    except RefereeError:  # no one decision's notation, or the id not legal here
        return None
    return action if decided.at_turn_start() and decided.position() == played.position() else None


def test_a_dataset_s_players_to_move_action_ids_and_returns_are_a_position_handle_s(tmp_path) -> None:
    """The native replay's `to_move`, `action` and `returns` of every row of every game against a position
    handle started from the record's seed and pushed along its moves: a row a ply out of step, a wrong id,
    an id given to a move of several decisions or returns of another position would each differ."""
    import referee

    path = archive(tmp_path / "records.jsonl", 1)
    assert run(str(path), "--dataset", f"{tmp_path / 'dataset'}/", "--part-bytes", "4000") == 1
    records = {number: json.loads(line) for number, line in enumerate(path.read_bytes().splitlines(), 1)}
    by_record: dict[int, list[dict]] = {}
    for row in dataset_rows(tmp_path / "dataset"):
        by_record.setdefault(row["record"], []).append(row)
    actions: dict[str, set[bool]] = {}
    for number, rows in by_record.items():
        record = records[number]
        handle = referee.game(record["game"], record.get("variant"), record.get("options")).start(record["seed"])
        expected = [(0, handle.to_move, None)]
        for ply, move in enumerate(record["moves"], 1):
            action = one_decision(handle, move)
            handle.push(move)
            expected.append((ply, handle.to_move, action))
            actions.setdefault(record["game"], set()).add(action is not None)
        assert [(row["ply"], row["to_move"], row["action"]) for row in rows] == expected, record["id"]
        assert all(row["returns"] == handle.returns() for row in rows), record["id"]
    assert {game for game, kinds in actions.items() if True in kinds} == set(referee.games())  # ids in every game
    several = {name for name, facts in FACTS.items() if facts.moves_of_several_decisions}
    assert {game for game, kinds in actions.items() if False in kinds} == several  # and moves of several


def test_on_a_dask_cluster_each_task_writes_its_dataset_part(tmp_path, monkeypatch) -> None:
    distributed = pytest.importorskip("dask.distributed")
    pytest.importorskip("pyarrow")
    path = archive(tmp_path / "records.jsonl", 2)
    assert run(str(path), "--dataset", f"{tmp_path / 'local'}/", "--part-bytes", "4000") == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert run(str(path), "--dataset", f"{tmp_path / 'cluster'}/", "--part-bytes", "4000",
                   "--scheduler", cluster.scheduler_address) == 1
    assert parts_of(tmp_path / "cluster") == parts_of(tmp_path / "local") and (tmp_path / "cluster" / "_SUCCESS").exists()


def s3_parts(store, directory: str) -> bytes:
    manifest = json.loads(store.cat(f"{directory}/_manifest.json"))
    return b"".join(store.cat(f"{directory}/{entry['part']}") for entry in manifest["parts"])


def s3_done(store, directory: str) -> int:
    try:
        manifest = json.loads(store.cat(f"{directory}/_manifest.json"))
    except (OSError, ValueError):
        return 0
    return sum(entry["done"] is not None for entry in manifest["parts"])


@pytest.mark.slow
def test_archives_on_an_s3_store_a_killed_run_resumes_as_an_unbroken_run(tmp_path, s3) -> None:
    zstandard = pytest.importorskip("zstandard")
    data = b"".join(example_lines() * 30)  # 1,500 records a month
    for month in range(1, 9):
        s3.pipe(f"archives/2026-{month:02}.jsonl.zst", zstandard.ZstdCompressor().compress(data))
    s3.pipe("archives/2026-09.jsonl.gz", gzip.compress(data))
    assert run("s3://archives/2026-*.jsonl.zst", "-o", "s3://archives/unbroken/") == 1
    manifest = json.loads(s3.cat("archives/unbroken/_manifest.json"))
    assert [entry["partition"]["source"] for entry in manifest["parts"]] == [
        f"s3://archives/2026-{month:02}.jsonl.zst" for month in range(1, 9)]
    assert s3.exists("archives/unbroken/_SUCCESS")

    command = ["s3://archives/2026-*.jsonl.zst", "-o", "s3://archives/out/"]
    killed_mid_run(command, lambda: s3_done(s3, "archives/out") >= 2)
    assert 2 <= s3_done(s3, "archives/out") < 8 and not s3.exists("archives/out/_SUCCESS")
    assert run(*command, "--resume") == 1
    assert s3_parts(s3, "archives/out") == s3_parts(s3, "archives/unbroken") and s3.exists("archives/out/_SUCCESS")

    # One file, of every month (.zst and .gz): there only once complete.
    started = time.monotonic()
    assert run("s3://archives/2026-*", "-o", "s3://archives/whole.jsonl") == 1
    unbroken = time.monotonic() - started
    whole = s3.cat("archives/whole.jsonl")
    assert whole.count(b"\n") == 9 * len(example_lines()) * 30
    s3.rm("archives/whole.jsonl")
    begun: list[float] = []

    def writing() -> bool:  # the outputs open (the report's partial file there), then a third of a run's time
        if any(tmp_path.glob(".report.html.partial-*")) and not begun:
            begun.append(time.monotonic())
        return bool(begun) and time.monotonic() - begun[0] > unbroken / 3

    killed_mid_run(["s3://archives/2026-*", "-o", "s3://archives/x.jsonl", "--report", str(tmp_path / "report.html")], writing)
    s3.invalidate_cache()
    assert not s3.exists("archives/x.jsonl") and not s3.glob("archives/.x.jsonl.partial*")
    assert run("s3://archives/2026-*", "-o", "s3://archives/x.jsonl") == 1
    assert s3.cat("archives/x.jsonl") == whole


@pytest.mark.slow
def test_on_a_dask_cluster_the_client_killed_resumes_as_an_unbroken_run(tmp_path, monkeypatch) -> None:
    distributed = pytest.importorskip("dask.distributed")
    path = archive(tmp_path / "records.jsonl", 300)
    assert run(str(path), "-o", f"{tmp_path / 'local'}/", "--part-bytes", "400000") == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    directory = tmp_path / "parts"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        command = [str(path), "-o", f"{directory}/", "--part-bytes", "400000", "--scheduler", cluster.scheduler_address]
        # the client, its tasks on the workers; the manifest is saved at most once a second, the parts at once
        killed_mid_run(command, lambda: len(list(directory.glob("part-*"))) >= 2)
        assert manifest_done(directory) < 36 and not (directory / "_SUCCESS").exists()
        assert run(*command, "--resume") == 1
    assert parts_of(directory) == parts_of(tmp_path / "local") and (directory / "_SUCCESS").exists()


@pytest.mark.slow
def test_on_a_dask_cluster_a_silent_worker_holds_its_tasks_no_longer_than_the_scheduler_s_worker_ttl(
        tmp_path, monkeypatch) -> None:
    """A worker stopped (SIGSTOP: a frozen machine, a partition) sends no heartbeat: once the scheduler's
    `worker-ttl` passes (docs/archives.md says what to set) its tasks go to the others. `--scheduler`
    connects to a cluster referee does not start, so the ttl is the scheduler's own, set here as a user would."""
    distributed = pytest.importorskip("dask.distributed")
    import dask

    path = archive(tmp_path / "records.jsonl", 300)
    assert run(str(path), "-o", f"{tmp_path / 'local'}/", "--part-bytes", "400000") == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    directory = tmp_path / "parts"
    with dask.config.set({"distributed.scheduler.worker-ttl": "5s"}), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster.scheduler_address) as client:
            pid = next(iter(client.run(os.getpid).values()))
            command = [str(path), "-o", f"{directory}/", "--part-bytes", "400000", "--scheduler", cluster.scheduler_address]
            thread, answer = in_a_thread(run, *command)
            deadline = time.monotonic() + 60
            while manifest_done(directory) < 2 and thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.005)
            os.kill(pid, signal.SIGSTOP)
            try:
                stopped_at = time.monotonic()
                thread.join(90)
                waited = time.monotonic() - stopped_at
            finally:
                with contextlib.suppress(ProcessLookupError):  # its nanny may have ended it meanwhile
                    os.kill(pid, signal.SIGCONT)
            # Held one to two worker-ttls (the scheduler checks once a ttl: 5-10 s), then the rest of the run
            # (12 s in all on 2 busy cores), not the 90 s the join would wait.
            assert answer["value"] == 1 and waited < 30, waited
            assert parts_of(directory) == parts_of(tmp_path / "local") and (directory / "_SUCCESS").exists()
