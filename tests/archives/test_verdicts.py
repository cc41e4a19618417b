"""Verdicts you can stake a result on: a resume never mixes two versions of a source, one run writes a
directory at a time, failures are one line with their own status, outputs are durable and `_SUCCESS` last.
Every run is the real command in a process of its own."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest


EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "archive" / "example.jsonl"
REFEREE = [sys.executable, "-m", "referee.cli", "validate", "--no-progress"]


def env() -> dict[str, str]:
    """The tests' environment (an S3 store's variables among them), no .pyc renamed into place while a test
    counts renames."""
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def lines() -> list[bytes]:
    return [line + b"\n" for line in EXAMPLE.read_bytes().splitlines() if line.strip()]


def referee(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*REFEREE, *args], capture_output=True, env=env(), timeout=timeout)


def sources(folder: Path) -> Path:
    """A glob's worth of sources: a file cut into several parts, two small files and a gzip file."""
    folder.mkdir()
    (folder / "big.jsonl").write_bytes(b"".join(lines() * 4))
    (folder / "small-1.jsonl").write_bytes(b"".join(lines()[:10]))
    (folder / "small-2.jsonl").write_bytes(b"".join(lines()[10:20]))
    (folder / "more.jsonl.gz").write_bytes(gzip.compress(b"".join(lines()[20:40])))
    return folder


def parts(directory: Path) -> bytes:
    manifest = json.loads((directory / "_manifest.json").read_bytes())
    return b"".join((directory / entry["part"]).read_bytes() for entry in manifest["parts"])


def interrupted(directory: Path, done: int) -> None:
    """The directory as a run killed after its first `done` parts leaves it."""
    manifest = json.loads((directory / "_manifest.json").read_bytes())
    for entry in manifest["parts"][done:]:
        entry["done"] = None
        (directory / entry["part"]).unlink()
    manifest.pop("counts")
    (directory / "_manifest.json").write_text(json.dumps(manifest))
    (directory / "_SUCCESS").unlink()


def edit_id(path: Path, at: float) -> None:
    """A same-size edit of the record `at` (a share of the file) into: the letter of an id changed."""
    data = bytearray(path.read_bytes())
    index = data.index(b'"id": "', int(len(data) * at)) + 7
    data[index] = ord("Z") if data[index] != ord("Z") else ord("Y")
    path.write_bytes(bytes(data))


def keeping_times(change):
    """A change that puts the file's times back as they were (ctime cannot be put back)."""
    def changed(folder: Path) -> None:
        stat = (folder / "big.jsonl").stat()
        change(folder)
        os.utime(folder / "big.jsonl", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return changed


def split_a_line(path: Path) -> None:
    data = path.read_bytes()
    middle = data.index(b'"moves"')
    path.write_bytes(data[:middle] + b"\n" + data[middle:])


def replaced(path: Path) -> None:
    """The file replaced by another of the same size (a new file moved over it)."""
    other = path.with_suffix(".new")
    other.write_bytes(b"".join(reversed(path.read_bytes().splitlines(keepends=True))))
    os.replace(other, path)


CHANGES = {
    "same-size edit in a finished part": lambda folder: edit_id(folder / "big.jsonl", 0.05),
    "edits in a finished and an unfinished part": lambda folder: (edit_id(folder / "big.jsonl", 0.05),
                                                                  edit_id(folder / "big.jsonl", 0.9)),
    "a line appended to small files of the glob": lambda folder: [
        (folder / name).open("ab").write(lines()[44]) for name in ("small-1.jsonl", "small-2.jsonl")],
    "a gzip member appended": lambda folder: (folder / "more.jsonl.gz").open("ab").write(gzip.compress(lines()[45])),
    "a small file replaced": lambda folder: replaced(folder / "small-2.jsonl"),
    "a line split in two": lambda folder: split_a_line(folder / "small-1.jsonl"),
    "a file cut into parts grew": lambda folder: (folder / "big.jsonl").open("ab").write(b"".join(lines()[:7])),
    "a file added to the glob": lambda folder: (folder / "small-3.jsonl").write_bytes(b"".join(lines()[30:33])),
    "a same-size edit, its times put back": keeping_times(lambda folder: edit_id(folder / "big.jsonl", 0.05)),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_resume_over_changed_sources_ends_as_a_run_of_the_sources_as_they_are(tmp_path, change) -> None:
    folder = sources(tmp_path / "archive")
    glob = f"{folder}/*.jsonl*"
    directory = tmp_path / "out"
    first = referee(glob, "-o", f"{directory}/", "--part-bytes", "4000")
    assert first.returncode == 1, first.stderr
    total = len(json.loads((directory / "_manifest.json").read_bytes())["parts"])
    interrupted(directory, total // 2)
    CHANGES[change](folder)
    resumed = referee(glob, "-o", f"{directory}/", "--part-bytes", "4000", "--resume")
    fresh = referee(glob, "-o", f"{tmp_path / 'fresh'}/", "--part-bytes", "4000")
    assert resumed.returncode == fresh.returncode == 1, resumed.stderr
    assert parts(directory) == parts(tmp_path / "fresh")  # neither the old sources' run nor a mix
    manifest, other = (json.loads((path / "_manifest.json").read_bytes()) for path in (directory, tmp_path / "fresh"))
    assert manifest["counts"] == other["counts"] and manifest["files"] == other["files"]
    assert b"since the run began" in resumed.stderr and (directory / "_SUCCESS").exists()
    named = {entry["part"] for entry in manifest["parts"]}
    assert {path.name for path in directory.iterdir()} == named | {"_manifest.json", "_SUCCESS"}


def test_a_resume_keeps_every_part_before_an_archive_s_growth(tmp_path) -> None:
    """An append-only log that grew: the parts it already had are kept, only the last ones judged again."""
    folder = sources(tmp_path / "archive")
    directory, log = tmp_path / "out", folder / "big.jsonl"
    assert referee(str(log), "-o", f"{directory}/", "--part-bytes", "4000").returncode == 1
    before = {entry["part"]: (directory / entry["part"]).stat().st_mtime_ns
              for entry in json.loads((directory / "_manifest.json").read_bytes())["parts"]}
    with log.open("ab") as file:
        file.write(b"".join(lines()[:30]))
    assert referee(str(log), "-o", f"{directory}/", "--part-bytes", "4000", "--resume").returncode == 1
    assert referee(str(log), "-o", f"{tmp_path / 'fresh'}/", "--part-bytes", "4000").returncode == 1
    assert parts(directory) == parts(tmp_path / "fresh")
    after = {name: (directory / name).stat().st_mtime_ns for name in before}
    kept = [name for name in before if after[name] == before[name]]
    assert kept == sorted(before)[:-1]  # every part but the one the growth begins in


@pytest.mark.parametrize("harm", ["truncated", "altered, same size"])
def test_a_resume_redoes_a_finished_part_that_is_not_as_written(tmp_path, harm) -> None:
    folder = sources(tmp_path / "archive")
    directory = tmp_path / "out"
    assert referee(f"{folder}/*", "-o", f"{directory}/", "--part-bytes", "4000").returncode == 1
    whole = parts(directory)
    part = directory / "part-00001.jsonl"
    data = part.read_bytes()
    part.write_bytes(data[:-10] if harm == "truncated" else data.replace(b'"legal"', b'"LEGAL"', 1))
    resumed = referee(f"{folder}/*", "-o", f"{directory}/", "--part-bytes", "4000", "--resume")
    assert resumed.returncode == 1 and b"part-00001.jsonl is not the part the manifest describes" in resumed.stderr
    assert parts(directory) == whole


def test_a_resume_with_other_kept_fields_is_refused_naming_them(tmp_path) -> None:
    folder = sources(tmp_path / "archive")
    directory = tmp_path / "out"
    assert referee(f"{folder}/*", "-o", f"{directory}/", "--keep", "date").returncode == 1
    interrupted(directory, 1)
    refused = referee(f"{folder}/*", "-o", f"{directory}/", "--keep", "players", "--resume")
    assert refused.returncode == 2 and refused.stderr.count(b"\n") == 1
    assert b"written with other options: keep ['date'] (now ['players'])" in refused.stderr


def test_partitions_cut_at_every_line_start_read_each_record_once(tmp_path) -> None:
    """A cut exactly at a line's start: that line is the next partition's, never read twice."""
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(lines()[:12]))
    whole = referee(str(path))
    assert whole.returncode == 1
    starts = [match.end() for match in re.finditer(rb"\n", path.read_bytes())][:-1]
    for cut in sorted({starts[0], starts[3], starts[7]} | {b - a for a, b in zip(starts, starts[1:])}):
        cutting = referee(str(path), "--part-bytes", str(cut))
        assert cutting.stdout == whole.stdout, cut


# --- One writer a directory -------------------------------------------------------------------------------

def lease(directory: Path, generation: int = 1, **holder) -> Path:
    directory.mkdir(exist_ok=True)
    path = directory / f"_lease.{generation}"
    path.write_text(json.dumps({"owner": "someone", "heartbeat": time.time(), **holder}))
    return path


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_a_second_run_on_a_directory_refuses_at_once_naming_the_holder(tmp_path) -> None:
    folder = sources(tmp_path / "archive")
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 60)  # a run of several seconds
    directory = tmp_path / "out"
    command = [*REFEREE, str(big), "-o", f"{directory}/", "--part-bytes", "20000", "--report", str(tmp_path / "r.html")]
    holder = subprocess.Popen(command, stderr=subprocess.PIPE, env=env())
    try:
        deadline = time.monotonic() + 60
        while not (directory / "_lease.1").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = referee(str(big), "-o", f"{directory}/", "--part-bytes", "20000", "--resume", timeout=30)
        assert second.returncode == 4 and second.stderr.count(b"\n") == 1, second.stderr
        assert f"process {holder.pid}".encode() in second.stderr and socket.gethostname().encode() in second.stderr
        assert holder.wait(300) == 1
    finally:
        holder.kill()
    assert (directory / "_SUCCESS").exists() and (tmp_path / "r.html").exists()
    assert not list(directory.glob("_lease*")) and not list(directory.glob(".*"))


@pytest.mark.parametrize("holder, taken", [
    ("this machine, its process gone", True),
    ("this machine, its process running", False),
    ("another machine, silent for long", True),
    ("another machine, heard from lately", False),
])
def test_a_lease_is_taken_over_only_when_its_holder_is_gone(tmp_path, holder, taken) -> None:
    folder = sources(tmp_path / "archive")
    directory = tmp_path / "out"
    from referee.archives.lease import machine

    here = {"host": socket.gethostname(), "machine": machine()}
    fields = {
        "this machine, its process gone": {**here, "pid": dead_pid()},
        "this machine, its process running": {**here, "pid": os.getpid()},
        "another machine, silent for long": {"host": "elsewhere", "pid": 1, "heartbeat": time.time() - 3600},
        "another machine, heard from lately": {"host": "elsewhere", "pid": 1},
    }[holder]
    lease(directory, 3, **fields)
    answer = referee(f"{folder}/*", "-o", f"{directory}/")
    if taken:
        assert answer.returncode == 1 and (directory / "_SUCCESS").exists(), answer.stderr
        assert not list(directory.glob("_lease*"))
    else:
        assert answer.returncode == 4 and b"is being written by another run" in answer.stderr
        assert not (directory / "_manifest.json").exists()


def test_an_attempt_of_a_run_that_lost_its_lease_cannot_move_its_part_into_place(tmp_path) -> None:
    """An orphaned task (its client killed, its directory taken over) finishes its part after the resume's."""
    from referee.archives.lease import Fence
    from referee.archives.outputs import whole_file
    from referee.archives.failures import Stop

    directory = tmp_path / "out"
    lease(directory, 1, owner="the-killed-run")
    lease(directory, 2, owner="the-resume")
    part = directory / "part-00000.jsonl"
    part.write_bytes(b"the resume's part\n")
    with pytest.raises(Stop, match="another run took it over"):
        with whole_file(str(part), owner="the-killed-run", fence=Fence(str(directory), 1, "the-killed-run")) as file:
            file.write(b"the orphan's part\n")
    assert part.read_bytes() == b"the resume's part\n" and not list(directory.glob(".*"))
    with whole_file(str(part), owner="the-resume", fence=Fence(str(directory), 2, "the-resume")) as file:
        file.write(b"the resume's part, again\n")
    assert part.read_bytes() == b"the resume's part, again\n"


# --- Durable outputs, `_SUCCESS` last -----------------------------------------------------------------------

RENAMES = "rename,renameat,renameat2"


def traced(args: list[str], *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(["strace", "-f", "-qq", *options, *REFEREE, *args], capture_output=True, env=env(), timeout=120)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace: `make test` installs it")
def test_every_output_is_fsynced_before_its_rename_and_its_directory_after(tmp_path) -> None:
    folder = sources(tmp_path / "archive")
    directory, log = tmp_path / "out", tmp_path / "trace"
    args = [f"{folder}/*", "-o", f"{directory}/", "--part-bytes", "4000", "--report", str(tmp_path / "r.html")]
    assert traced(args, "-y", "-e", f"trace=fsync,fdatasync,{RENAMES}", "-o", str(log)).returncode == 1
    calls = [line.split(None, 1)[1] for line in log.read_text().splitlines() if "(" in line]
    renames = [(index, re.findall(r'"([^"]+)"', call)) for index, call in enumerate(calls) if call.startswith("rename")]
    assert len(renames) >= 10
    for index, (source, target) in renames:
        synced = [call for call in calls[:index] if call.startswith(("fsync", "fdatasync")) and f"<{source}>" in call]
        assert synced, f"{source} renamed to {target} without an fsync"
        folder_of = os.path.dirname(target)
        after = calls[index + 1:index + 3]
        assert any(call.startswith("fsync") and f"<{folder_of}>" in call for call in after), target
    names = [os.path.basename(target) for _, (_, target) in renames]
    assert names[-3:] == ["_manifest.json", "r.html", "_SUCCESS"]  # the final manifest, the report, then _SUCCESS


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace: `make test` installs it")
def test_a_run_killed_at_each_rename_never_shows_success_early_and_resumes_whole(tmp_path) -> None:
    folder = sources(tmp_path / "archive")
    unbroken = tmp_path / "unbroken"
    common = [f"{folder}/*", "--part-bytes", "6000"]
    assert referee(*common, "-o", f"{unbroken}/", "--report", str(tmp_path / "u.html")).returncode == 1
    count = 0
    while True:
        count += 1
        directory, page = tmp_path / f"out-{count}", tmp_path / f"r-{count}.html"
        args = [*common, "-o", f"{directory}/", "--report", str(page)]
        killed = traced(args, "-e", f"trace={RENAMES}", "-e", f"inject={RENAMES}:signal=SIGKILL:when={count}")
        if killed.returncode == 1:  # fewer renames than `count`: every one was tried
            break
        if (directory / "_SUCCESS").exists():
            manifest = json.loads((directory / "_manifest.json").read_bytes())
            assert "counts" in manifest and page.exists(), f"_SUCCESS before the end, killed at rename {count}"
        assert referee(*args, "--resume").returncode == 1
        assert parts(directory) == parts(unbroken) and page.exists() and (directory / "_SUCCESS").exists()
        assert not list(directory.glob("_lease*")) and not list(directory.glob(".*"))
    assert count > 10


# --- Failures: one line, a status of their own ------------------------------------------------------------

@contextlib.contextmanager
def tmpfs(folder: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted on `folder` for the block (root, able to mount: else the test is skipped)."""
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=False).returncode:
        pytest.skip("mounting a tmpfs here needs root and the right to mount")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
def full_disk(tmp_path):
    """A file system of 256 KiB (a tmpfs): full after the first records."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    with tmpfs(tmp_path / "full", "size=256k") as mount:
        yield mount


@pytest.mark.parametrize("output", ["FILE", "DIR/"])
def test_a_full_disk_is_one_line_with_the_way_on(tmp_path, full_disk, output) -> None:
    folder = sources(tmp_path / "archive")
    target = f"{full_disk}/results.jsonl" if output == "FILE" else f"{full_disk}/parts/"
    answer = referee(f"{folder}/*", "-o", target, "--positions", "--part-bytes", "4000")
    assert answer.returncode == 3 and answer.stderr.count(b"\n") == 1, answer.stderr
    assert b"No space left on device" in answer.stderr and b"Traceback" not in answer.stderr
    assert (b"resume with: referee validate" if output == "DIR/" else b"run it again") in answer.stderr
    assert not Path(target.rstrip("/")).is_file() and not list(Path(full_disk).rglob(".*partial*"))


def test_a_source_not_there_is_named_with_its_url(tmp_path) -> None:
    answer = referee("memory://nothing.jsonl")
    assert answer.returncode == 2 and answer.stderr == b"referee: memory://nothing.jsonl: no such file\n"


def test_an_unexpected_fault_is_one_line_and_debug_shows_where(capsys, monkeypatch) -> None:
    import referee.archives
    from referee import cli

    def broken(*args):
        raise RuntimeError("a fault of referee's own\nwith a second line")

    monkeypatch.setattr(referee.archives, "validate", broken)
    assert cli.main(["validate", str(EXAMPLE)]) == 70
    said = capsys.readouterr().err
    assert said == "referee: internal error: RuntimeError: a fault of referee's own (--debug shows where; please report it)\n"
    assert cli.main(["--debug", "validate", str(EXAMPLE)]) == 70
    said = capsys.readouterr().err
    assert "Traceback" in said and "in broken" in said and said.endswith("please report it)\n")


def test_a_killed_run_s_lease_is_taken_over_at_once_by_its_resume(tmp_path) -> None:
    """A run killed (`kill -9`): its lease is stale at once (its process is gone), the resume takes it."""
    folder = sources(tmp_path / "archive")
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 30)
    directory = tmp_path / "out"
    process = subprocess.Popen([*REFEREE, str(big), "-o", f"{directory}/", "--part-bytes", "20000"], env=env(),
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (directory / "_lease.1").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    assert process.wait(30) == -signal.SIGKILL  # killed, not ended
    assert (directory / "_lease.1").exists() and not (directory / "_SUCCESS").exists()
    resumed = referee(str(big), "-o", f"{directory}/", "--part-bytes", "20000", "--resume")
    assert resumed.returncode == 1 and (directory / "_SUCCESS").exists(), resumed.stderr
    assert not list(directory.glob("_lease*"))


def started_writing(process: subprocess.Popen, output: Path) -> None:
    """Waits until a run has written its first results (its partial file holds some)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if any(path.stat().st_size for path in output.parent.glob(f".{output.name}.partial-*")):
            return
        time.sleep(0.01)
    raise AssertionError("the run wrote nothing")


@pytest.mark.parametrize("change", ["edited", "grew"])
def test_a_source_changed_while_the_run_reads_it(tmp_path, change) -> None:
    """Edited where the run had read it: its results would mix two versions, so none are given (exit 3).
    Grown: the run judges it as planned and says so."""
    folder = sources(tmp_path / "archive")
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 60)
    planned = big.read_bytes()
    output = tmp_path / "results.jsonl"
    process = subprocess.Popen([*REFEREE, str(big), "-o", str(output), "--positions", "--part-bytes", "20000",
                                "--jobs", "1"], env=env(), stderr=subprocess.PIPE)
    started_writing(process, output)
    if change == "edited":
        edit_id(big, 0.0)
    else:
        with big.open("ab") as file:
            file.write(b"".join(lines()[:5]))
    _, errors = process.communicate(timeout=300)
    if change == "edited":
        assert process.returncode == 3 and b"changed while the run read it" in errors, errors
        assert b"run it again" in errors and not output.exists()
    else:
        assert process.returncode == 1 and b"while the run read it; it was read as it was when the run began" in errors
        snapshot = tmp_path / "planned.jsonl"
        snapshot.write_bytes(planned)
        expected = referee(str(snapshot), "--positions")
        assert output.read_bytes() == expected.stdout


def test_a_run_of_a_stream_is_not_resumed(tmp_path) -> None:
    directory = tmp_path / "out"
    first = subprocess.run([*REFEREE, "-", "-o", f"{directory}/"], input=EXAMPLE.read_bytes(), capture_output=True,
                           env=env(), timeout=120)
    assert first.returncode == 1
    again = subprocess.run([*REFEREE, "-", "-o", f"{directory}/", "--resume"], input=b"".join(lines()[:3]),
                           capture_output=True, env=env(), timeout=120)
    assert again.returncode == 2 and b"is a stream" in again.stderr and again.stderr.count(b"\n") == 1


# --- The same on an S3 store --------------------------------------------------------------------------------

def uploaded(store, folder: Path, prefix: str) -> None:
    """The folder's files as objects under `prefix`, those changed or new put again (new ETags)."""
    for path in sorted(folder.iterdir()):
        key = f"{prefix}/{path.name}"
        if not store.exists(key) or store.cat(key) != path.read_bytes():
            store.pipe(key, path.read_bytes())
    store.invalidate_cache()


def s3_interrupted(store, directory: str, done: int) -> None:
    manifest = json.loads(store.cat(f"{directory}/_manifest.json"))
    for entry in manifest["parts"][done:]:
        entry["done"] = None
        store.rm(f"{directory}/{entry['part']}")
    manifest.pop("counts")
    store.pipe(f"{directory}/_manifest.json", json.dumps(manifest).encode())
    store.rm(f"{directory}/_SUCCESS")


def s3_parts(store, directory: str) -> bytes:
    manifest = json.loads(store.cat(f"{directory}/_manifest.json"))
    return b"".join(store.cat(f"{directory}/{entry['part']}") for entry in manifest["parts"])


@pytest.mark.slow
@pytest.mark.parametrize("change", [name for name in CHANGES if "times" not in name])
def test_on_s3_a_resume_over_changed_sources_ends_as_a_run_of_the_sources_as_they_are(tmp_path, s3, change) -> None:
    folder = sources(tmp_path / "archive")
    uploaded(s3, folder, "archives/src")
    glob, out, fresh = "s3://archives/src/*.jsonl*", "s3://archives/out/", "s3://archives/fresh/"
    assert referee(glob, "-o", out, "--part-bytes", "16000").returncode == 1
    total = len(json.loads(s3.cat("archives/out/_manifest.json"))["parts"])
    s3_interrupted(s3, "archives/out", total // 2)
    CHANGES[change](folder)
    uploaded(s3, folder, "archives/src")
    resumed = referee(glob, "-o", out, "--part-bytes", "16000", "--resume")
    assert resumed.returncode == referee(glob, "-o", fresh, "--part-bytes", "16000").returncode == 1, resumed.stderr
    s3.invalidate_cache()
    assert s3_parts(s3, "archives/out") == s3_parts(s3, "archives/fresh") and s3.exists("archives/out/_SUCCESS")
    assert not s3.glob("archives/out/_lease*") and b"since the run began" in resumed.stderr


@pytest.mark.slow
def test_on_s3_a_lease_is_created_only_if_absent_and_a_second_run_refuses(tmp_path, s3) -> None:
    folder = sources(tmp_path / "archive")
    uploaded(s3, folder, "archives/src")
    s3.pipe("archives/out/_lease.1", json.dumps({"owner": "x", "host": "elsewhere", "pid": 1,
                                                 "heartbeat": time.time()}).encode())
    refused = referee("s3://archives/src/*", "-o", "s3://archives/out/")
    assert refused.returncode == 4 and b"elsewhere process 1" in refused.stderr
    from referee.archives.lease import create

    with pytest.raises(FileExistsError):  # S3's conditional write: one creator wins
        create(s3, "archives/out/_lease.1", b"{}")
    s3.pipe("archives/out/_lease.1", json.dumps({"owner": "x", "host": "elsewhere", "pid": 1,
                                                 "heartbeat": time.time() - 3600}).encode())
    taken = referee("s3://archives/src/*", "-o", "s3://archives/out/")
    assert taken.returncode == 1 and s3.exists("archives/out/_SUCCESS"), taken.stderr


@pytest.mark.slow
def test_on_s3_a_store_that_goes_away_is_one_line_and_the_run_resumes_once_it_is_back(tmp_path, moto, s3) -> None:
    folder = sources(tmp_path / "archive")
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 40)
    uploaded(s3, folder, "archives/src")
    glob, out = "s3://archives/src/*.jsonl*", "s3://archives/out/"
    unbroken = referee(glob, "-o", "s3://archives/unbroken/", "--part-bytes", "100000")
    assert unbroken.returncode == 1, unbroken.stderr
    process = subprocess.Popen([*REFEREE, glob, "-o", out, "--part-bytes", "100000"], stderr=subprocess.PIPE, env=env())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        s3.invalidate_cache()
        with contextlib.suppress(OSError, ValueError):
            if sum(entry["done"] is not None for entry in json.loads(s3.cat("archives/out/_manifest.json"))["parts"]) >= 2:
                break
        time.sleep(0.1)
    moto.stop()  # the store unreachable
    try:
        _, errors = process.communicate(timeout=300)
    finally:
        process.kill()
        moto.start()  # and back
    assert process.returncode == 3 and errors.count(b"\n") == 1 and b"Traceback" not in errors, errors
    assert errors.startswith(b"referee: ") and b"resume with: referee validate" in errors
    s3.invalidate_cache()
    assert not s3.exists("archives/out/_SUCCESS")
    resumed = referee(glob, "-o", out, "--part-bytes", "100000", "--resume")
    assert resumed.returncode == 1, resumed.stderr
    s3.invalidate_cache()
    assert s3_parts(s3, "archives/out") == s3_parts(s3, "archives/unbroken") and s3.exists("archives/out/_SUCCESS")


# --- More failures, each a row of docs/archives.md's table --------------------------------------------------

def referee_after(prelude: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command in a process of its own, `prelude` (Python) run first: a package made unimportable,
    a period shortened."""
    call = f"{prelude}\nimport sys\nfrom referee.cli import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", call, "validate", "--no-progress", *args], capture_output=True,
                          env=env(), timeout=timeout)


def test_an_http_source_without_fsspec_s_http_packages_is_one_line_naming_the_url(tmp_path) -> None:
    url = "http://127.0.0.1:9/records.jsonl"
    answer = referee_after("import sys; sys.modules['aiohttp'] = None  # not installed", url, "-o", str(tmp_path / "r"))
    assert answer.returncode == 2 and answer.stderr.count(b"\n") == 1, answer.stderr
    assert answer.stderr.startswith(f"referee: {url}: ".encode()) and b"aiohttp" in answer.stderr
    assert b"Traceback" not in answer.stderr and not list(tmp_path.iterdir())


@pytest.fixture
def read_only(tmp_path):
    """A directory no one may write in, root included (the tests run as root, whom 0555 does not stop):
    a read-only tmpfs as root, else a directory of mode 0555."""
    folder = tmp_path / "read-only"
    if os.geteuid() != 0:
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    with tmpfs(folder, "ro,size=64k") as mounted:
        yield mounted


@pytest.mark.parametrize("output", ["FILE", "DIR/"])
def test_no_permission_on_the_output_is_one_line_naming_it(tmp_path, read_only, output) -> None:
    target = f"{read_only}/results.jsonl" if output == "FILE" else f"{read_only}/parts/"
    answer = referee(str(EXAMPLE), "-o", target)
    assert answer.returncode == 3 and answer.stderr.count(b"\n") == 1, answer.stderr
    assert answer.stderr.startswith(f"referee: cannot write {target}: ".encode()) and b"Traceback" not in answer.stderr
    assert re.search(rb"Read-only file system|Permission denied", answer.stderr), answer.stderr
    assert (b"resume with: referee validate" if output == "DIR/" else b"run it again") in answer.stderr
    assert not list(read_only.iterdir())


def test_a_source_changed_while_a_run_into_a_directory_reads_it_gives_no_success(tmp_path) -> None:
    """An edit in a part already written: the run ends without `_SUCCESS` (exit 3), and its resume is a run of
    the source as it is."""
    folder = sources(tmp_path / "archive")
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 60)
    directory = tmp_path / "out"
    command = [str(big), "-o", f"{directory}/", "--positions", "--part-bytes", "20000"]
    process = subprocess.Popen([*REFEREE, *command, "--jobs", "1"], env=env(), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not (directory / "part-00001.jsonl").exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    edit_id(big, 0.0)  # in part-00000, already judged
    _, errors = process.communicate(timeout=300)
    assert process.returncode == 3 and errors.count(b"\n") == 1, errors
    assert b"big.jsonl changed while the run read it" in errors and b"resume with: referee validate" in errors
    assert not (directory / "_SUCCESS").exists()
    assert referee(*command, "--resume").returncode == 1
    assert referee(str(big), "-o", f"{tmp_path / 'fresh'}/", "--positions", "--part-bytes", "20000").returncode == 1
    assert parts(directory) == parts(tmp_path / "fresh") and (directory / "_SUCCESS").exists()


def test_a_manifest_that_is_no_manifest_is_one_line_naming_it(tmp_path) -> None:
    directory = tmp_path / "out"
    directory.mkdir()
    (directory / "_manifest.json").write_bytes(b"\x00garbage, not JSON")
    answer = referee(str(EXAMPLE), "-o", f"{directory}/", "--resume")
    assert answer.returncode == 2 and answer.stderr.count(b"\n") == 1, answer.stderr
    assert answer.stderr.startswith(f"referee: {directory}/_manifest.json is no manifest".encode())
    assert (directory / "_manifest.json").read_bytes() == b"\x00garbage, not JSON"  # left as it was
    assert sorted(path.name for path in directory.iterdir()) == ["_manifest.json"]


@pytest.mark.parametrize("output", ["-", "/dev/stdout"])
def test_a_closed_pipe_ends_the_run_quietly_with_status_141(tmp_path, output) -> None:
    """`referee validate ... | head -c 10`: more results than a pipe holds (1.5 MB), its reader gone after 10
    bytes. A write cut short by the reader's going once passed for a complete run (exit 1)."""
    folder = sources(tmp_path / "archive")
    process = subprocess.Popen([*REFEREE, str(folder / "big.jsonl"), "--positions", "-o", output],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    assert len(process.stdout.read(10)) == 10
    process.stdout.close()
    errors = process.stderr.read()
    assert process.wait(120) == 141 and errors == b"", errors


# --- The lease's heartbeat ----------------------------------------------------------------------------------

#: The heartbeat every 0.1 s and a lease stale after 2 s (a run stops writing 1 s after its last renewal),
#: for a test, not 5 s and 60 s.
SHORT_LEASE = "import referee.archives.lease as lease; lease.HEARTBEAT, lease.STALE = 0.1, 2.0"
#: Shorter still (a run stops 0.2 s after its last renewal: a small share of a run on any machine), and a
#: store that refuses every renewal of a lease (its first writing goes through: `create`, not `rewrite`).
NO_RENEWAL = ("import referee.archives.lease as lease; lease.HEARTBEAT, lease.STALE = 0.05, 0.4\n"
              "def refused(*args): raise OSError(5, 'Input/output error')\n"
              "lease.rewrite = refused")


def long_run(folder: Path, directory: Path) -> list[str]:
    """A run of a few seconds into `directory`, a part each few hundredths of a second."""
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 60)
    return [str(big), "-o", f"{directory}/", "--part-bytes", "80000", "--jobs", "1"]


def test_a_live_run_s_lease_is_renewed_at_each_heartbeat(tmp_path) -> None:
    directory = tmp_path / "out"
    command = long_run(sources(tmp_path / "archive"), directory)
    call = f"{SHORT_LEASE}\nimport sys\nfrom referee.cli import main\nsys.exit(main(sys.argv[1:]))"
    process = subprocess.Popen([sys.executable, "-c", call, "validate", "--no-progress", *command], env=env(),
                               stderr=subprocess.PIPE)
    heartbeats = set()
    while process.poll() is None:
        with contextlib.suppress(OSError, ValueError):  # not there yet, or gone once the run ended
            heartbeats.add(json.loads((directory / "_lease.1").read_bytes())["heartbeat"])
        time.sleep(0.02)
    assert process.returncode == 1, process.stderr.read()
    assert len(heartbeats) >= 5, heartbeats  # rewritten as the run went on, not only when it began


def test_a_run_whose_lease_cannot_be_renewed_stops_writing(tmp_path) -> None:
    """Renewals refused (a store unreachable for the lease, a stalled machine): past half the time after which
    another run may take the directory over, the run writes no more parts and says so in one line."""
    directory = tmp_path / "out"
    command = long_run(sources(tmp_path / "archive"), directory)
    started = time.monotonic()
    answer = referee_after(NO_RENEWAL, *command)
    took = time.monotonic() - started
    assert answer.returncode == 3 and answer.stderr.count(b"\n") == 1, answer.stderr
    assert answer.stderr.startswith(f"referee: {directory}/: this run's lease could not be renewed for 0.2 s".encode())
    assert b"resume with: referee validate" in answer.stderr
    written = len(list(directory.glob("part-*")))
    assert not (directory / "_SUCCESS").exists() and not list(directory.glob("_lease*"))
    assert referee(*command, "--resume").returncode == 1 and (directory / "_SUCCESS").exists()
    total = len(list(directory.glob("part-*")))
    assert written < total / 2, (written, total, took)  # stopped soon after the limit, not at the end


# --- An orphaned task on a Dask cluster ---------------------------------------------------------------------

def held_back(gate: str, marks: str) -> None:
    """Installed in each Dask worker: the first task of a run of the lease's first generation waits, before it
    writes anything, until `gate` exists (its client killed and the directory taken over meanwhile), then goes
    on as any task; `marks` says which part it was (`held`) and whether it moved it into place."""
    from referee.archives import work
    from referee.archives.failures import Stop

    original = work.run_partition

    def run_partition(part, options, target):
        if target is None or getattr(target.fence, "generation", None) != 1:
            return original(part, options, target)
        try:
            os.close(os.open(f"{marks}/held", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        except FileExistsError:  # another task was held back already
            return original(part, options, target)
        Path(f"{marks}/held").write_text(target.path)
        deadline = time.monotonic() + 60
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            done = original(part, options, target)
        except Stop:
            Path(f"{marks}/refused").touch()
            raise
        Path(f"{marks}/moved").touch()
        return done

    work.run_partition = run_partition


def waited_for(*paths: Path, seconds: float = 60) -> bool:
    """Whether one of `paths` came to exist within `seconds`."""
    deadline = time.monotonic() + seconds
    while not any(path.exists() for path in paths) and time.monotonic() < deadline:
        time.sleep(0.02)
    return any(path.exists() for path in paths)


@pytest.mark.slow
def test_on_a_dask_cluster_an_orphaned_task_cannot_replace_the_part_of_the_resume(tmp_path, monkeypatch) -> None:
    """A client killed while its task runs on a worker; `--resume` takes the directory over and writes every
    part; the orphan, going on, writes its part after the resume's and is refused by the fence."""
    distributed = pytest.importorskip("dask.distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # `held_back` sent whole: workers cannot import tests
    folder = sources(tmp_path / "archive")
    big = folder / "big.jsonl"
    big.write_bytes(big.read_bytes() * 10)
    directory, marks, gate = tmp_path / "out", tmp_path / "marks", tmp_path / "gate"
    marks.mkdir()
    assert referee(str(big), "-o", f"{tmp_path / 'local'}/", "--part-bytes", "100000").returncode == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster.scheduler_address) as client:
            client.run(held_back, str(gate), str(marks))
        command = [str(big), "-o", f"{directory}/", "--part-bytes", "100000", "--scheduler", cluster.scheduler_address]
        client_run = subprocess.Popen([*REFEREE, *command], env=env(), stderr=subprocess.DEVNULL)
        try:
            assert waited_for(marks / "held"), "no task was held back"
        finally:
            client_run.kill()  # its held task goes on, an orphan
        client_run.wait()
        resumed = referee(*command, "--resume")
        assert resumed.returncode == 1 and (directory / "_SUCCESS").exists(), resumed.stderr
        part = Path((marks / "held").read_text())
        written = part.stat()
        gate.touch()
        assert waited_for(marks / "refused", marks / "moved", seconds=30)
        assert (marks / "refused").exists() and not (marks / "moved").exists()
    assert (part.stat().st_ino, part.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    assert parts(directory) == parts(tmp_path / "local") and not list(directory.glob(".*"))
