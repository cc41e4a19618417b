"""Every example on the pages runs as written and answers what its page says (README.md and docs/*.md),
read from the markdown so that a page edit is tested: each page's Python
blocks in process, in page order in one namespace (as a reader follows the page), each line's claimed
answer checked (tests/helpers/pages.py); the curl commands as written against a live gunicorn at its port, their
answers held against the page's words; the CLI commands in a temporary directory. Every code block of the
pages is run here or says here where it is run instead, and why."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

import referee
from helpers.keys import SECRET_1
from helpers.pages import DOCS, PAGES, PROSE, README, Block, blocks, claim, matches, prose_after, run_python

#: Blocks run elsewhere or not at all, by a line of theirs, and why.
ELSEWHERE = {
    "make serve": "installs the project and serves: `make test` (this block's second line) is what CI runs",
    "make test        # everything": "`make test` and `make test-fast` are what CI runs",
    "openapi-python-client generate": "tests/contract/test_generated_client.py generates the client with these options",
    "from referee_client import Client": "needs the generated client: tests/contract/test_generated_client.py runs it",
    "openapi-generator-cli generate": "tests/contract/test_openapi_generator_client.py generates the client with Java",
    "import referee_og as og": "needs the generated client: tests/contract/test_openapi_generator_client.py runs it",
    "referee validate docs/archive/example.jsonl": "tests/archives/test_report.py makes the example's report so and compares",
    "docker build -t referee .": "needs Docker, which CI's image does not run",
    "pip install referee                # the engine": "the index has no release yet: tests/release/dist_checks.py (make "
                                                        "dist-test, part of make test) installs the built wheel in a "
                                                        "fresh environment without a toolchain and runs each use",
    "make dist && pip install dist/": "make dist-test (part of make test) builds and installs it, as above",
    "pip install 'referee[dask,archives,s3]'": "needs a cluster and real object storage: tests/archives/test_archives.py runs "
                                               "the same commands on an S3 server on loopback (moto) and local Dask "
                                               "clusters, a worker, the scheduler and the client killed, and --resume",
    "make dev                                                    # again": "the developer's loop: installs, then runs "
                                                                          "the tests this run is part of",
    "make test        # make lint, every Rust test": "`make test` and `make test-fast` are what CI runs",
    "make lock                   # after changing": "re-locks the dependencies from the index: tests/release/test_locks.py "
                                                   "holds the lock files against pyproject.toml",
}
#: How long a page's Python examples may run (they take seconds; one that never ends fails here).
PAGE_SECONDS = 60
#: The commands that start a line of a sh block (other lines continue the command before).
COMMANDS = ("curl", "printf", "referee")


def elsewhere(block: Block) -> bool:
    return any(line in block.text for line in ELSEWHERE)


#: The pages' placeholders, as a reader fills them in: `SECRET` in seal keys (see docs/operations.md).
PLACEHOLDERS = {"SECRET": SECRET_1}


def given() -> dict[str, Any]:
    """The names a page leaves to its reader's own data (`game.replay(moves)`, a player's secret)."""
    iago = referee.game("iago")
    items = [{"state": iago.new(), "move": "e4"}, {"state": iago.new(), "move": "e5"}]
    return {
        "moves": ["e4", "e6"],
        "array_bytes": orjson.dumps(items),
        "lines_bytes": b"".join(orjson.dumps(item) + b"\n" for item in items),
        "ndjson_bytes": b'{"game": "iago", "moves": ["e4", "e6"]}\n{"game": "caesar", "seed": 7, "moves": []}\n',
        "caesars_secret": "caesar's own secret",
        "pompeys_secret": "pompey's own secret",
    }


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """A sh block's commands, each with the `# ` lines after it (what it prints, as the page shows it)."""
    found: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("# ") and found:
            found[-1][1].append(line[2:])
        elif line.split(" ", 1)[0] in COMMANDS or not found:
            found.append((line, []))
        else:
            found[-1] = (found[-1][0] + "\n" + line, found[-1][1])
    return found


def shell(command: str, cwd: Path | None = None, port: int | None = None) -> subprocess.CompletedProcess[str]:
    """A command as written (the service's address made the live server's), run; it must succeed."""
    if port is not None:
        command = command.replace("localhost:8000", f"127.0.0.1:{port}")
    env = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, (command, done.stdout, done.stderr)
    return done


def json_claim(line: str) -> Any:
    """A claim about a JSON line, as the page writes it (`{"legal":true,...}`)."""
    return claim(re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", line))))


def fragments(words: str) -> list[tuple[str, Any]]:
    """The JSON members a page's words quote (`"code": "illegal-move"`), as (key, value)."""
    return [next(iter(json.loads("{" + quoted + "}").items())) for quoted in re.findall(r'`("[a-z_]+": [^`]+)`', words)]


def holds(answer: Any, key: str, value: Any) -> bool:
    """Whether `key` has `value` somewhere in a JSON answer."""
    if isinstance(answer, dict):
        return answer.get(key) == value or any(holds(inner, key, value) for inner in answer.values())
    return isinstance(answer, list) and any(holds(inner, key, value) for inner in answer)


@contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Stops the code inside after `seconds` with TimeoutError."""
    def stop(*_: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"REFEREE_WORKERS": "1"}


# ------------------------------------------------------------------ what is run

def test_every_block_of_the_pages_is_run_here_or_says_where() -> None:
    """Python blocks all run here (but those ELSEWHERE); each sh block is one a test below runs, or ELSEWHERE."""
    run_here = {block.text for block in [first_request(), ndjson_example(), suggest_example(), picture_commands(),
                                         *cli_blocks()]}
    for page in PAGES:
        for block in blocks(page):
            assert block.language in ("python", "sh", "", "json", "jsonl"), block.where()  # else data
            if block.language == "sh" and not elsewhere(block):
                assert block.text in run_here, f"{block.where()}: run it here or say in ELSEWHERE why not"
    for line in ELSEWHERE:
        assert any(line in block.text for page in PAGES for block in blocks(page)), f"no block holds {line!r}"


def test_claims_are_read_as_the_pages_mean_them() -> None:
    assert matches(claim("# ['b2', 'b3', ...]"), ["b2", "b3", "b4"])
    assert not matches(claim("# ['b2', 'b3', ...]"), ["b3", "b2"])
    assert matches(claim("# {'state', 'position'}"), {"state": 1, "position": 2})
    assert not matches(claim("# {'state', 'position'}"), {"state": 1})
    assert matches(claim("# {'status': 'finished', ...}, [1.0, -1.0]"), ({"status": "finished", "x": 1}, [1.0, -1.0]))
    assert not matches(claim("# {'status': 'finished', ...}, [1.0, -1.0]"), ({"status": "finished"}, [-1.0, 1.0]))
    assert matches(claim('# {..., "seal": "k2.…"}'), {"seal": "k2.abc", "board": []})
    assert matches(claim("# {'legal': False, 'reason': {'code': 'illegal-move', 'rule': ...}}"),
                   {"legal": False, "reason": {"code": "illegal-move", "rule": "occupied", "detail": "..."}})
    assert not matches(claim("# {'legal': False}"), {"legal": 0})
    for prose in ("# ~1 us a move", "# or game.load(state)", "# e.g. [1.0, -1.0]", "# the same for NDJSON"):
        assert claim(prose) is PROSE


# ------------------------------------------------------------------ Python, in process

def runnable(page: Path) -> list[Block]:
    """A page's Python blocks run here, their placeholders filled in."""
    found = [block for block in blocks(page, "python") if not elsewhere(block)]
    for placeholder, value in PLACEHOLDERS.items():
        found = [Block(block.page, block.line, block.language, block.text.replace(placeholder, value)) for block in found]
    return found


@pytest.mark.parametrize("page", [page for page in PAGES if runnable(page)], ids=lambda page: page.name)
def test_the_python_examples_run_and_answer_what_the_page_says(page: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "__example__", **given()}
    with bounded(PAGE_SECONDS):
        checked = sum(run_python(block, namespace) for block in runnable(page))
    assert checked, f"{page}: no line says what it answers"


# ------------------------------------------------------------------ curl, against a live server

def only(page: Path, text: str) -> Block:
    """The one sh block of a page that holds `text`."""
    (block,) = [block for block in blocks(page, "sh") if text in block.text]
    return block


def first_request() -> Block:
    return only(README, "curl")


def ndjson_example() -> Block:
    return only(DOCS / "api.md", "batch/ndjson")


def picture_commands() -> Block:
    return only(DOCS / "pictures.md", "render")


def suggest_example() -> Block:
    return only(DOCS / "api.md", "/suggest")


@pytest.mark.live
def test_the_first_request_answers_what_the_front_page_says(server) -> None:
    """The front page's two curl commands as written; the paragraph after them says what the second answers
    (its status and fields, in backticks) and what it answers with another `"move"` instead."""
    block = first_request()
    (new, _), (play, _) = commands(block)
    assert "state" in json.loads(shell(new, port=server.port).stdout)
    said = prose_after(block)
    refusal_words, played_words = re.split(r'with `"move": "[^"]+"`', said)
    other_move = re.search(r'with `"move": ("[^"]+")`', said).group(1)
    refused = json.loads(shell(play, port=server.port).stdout)
    assert refused["status"] == int(re.search(r"answers `(\d{3})`", refusal_words).group(1))
    for key, value in fragments(refusal_words):
        assert holds(refused, key, value), (key, value, refused)
    other = re.sub(r'"move": "[^"]+"', f'"move": {other_move}', play)
    played = json.loads(shell(other, port=server.port).stdout)
    assert "next state" in played_words and {"state", "position"} <= set(played), played
    assert "the scores" in played_words and set(played["outcome"]["scores"]) == {"black", "white"}
    assert fragments(played_words)
    for key, value in fragments(played_words):
        assert holds(played, key, value), (key, value, played)


@pytest.mark.live
def test_the_ndjson_example_answers_the_lines_the_page_shows(server) -> None:
    block = ndjson_example()
    ((command, shown),) = commands(block)
    lines = shell(command, port=server.port).stdout.splitlines()
    assert len(lines) == len(shown) and shown
    for line, expected in zip(lines, shown, strict=True):
        assert matches(json_claim(expected), json.loads(line)), (line, expected)


@pytest.mark.live
def test_the_suggest_example_answers_what_the_page_shows(server) -> None:
    """docs/api.md's `suggest`: the answer the page shows (but its time), a move the engine suggests for the
    same seed, the contract's example too."""
    ((command, shown),) = commands(suggest_example())
    answer = json.loads(shell(command, port=server.port).stdout)
    assert len(shown) == 1 and matches(json_claim(shown[0]), answer), (answer, shown)
    game = referee.game("iago")
    assert {**answer, "spent_ms": 0} == {**game.suggest(game.new(), level=3, seed=7), "spent_ms": 0}


@pytest.mark.live
def test_the_picture_commands_draw_the_picture(server, tmp_path: Path) -> None:
    """docs/pictures.md: `render` over HTTP and `referee render` each write board.svg, the picture of the state
    after the move with the legal moves marked, as `game.svg` draws it."""
    block = picture_commands()
    game = referee.game("iago")
    drawn = game.svg(game.new(), move="e6", legal=True)
    for command, _ in commands(block):
        shell(command, cwd=tmp_path, port=server.port)
        assert (tmp_path / "board.svg").read_text().strip() == drawn.strip(), command
        (tmp_path / "board.svg").unlink()


# ------------------------------------------------------------------ the CLI

def cli_blocks() -> list[Block]:
    """The sh blocks that run `referee` (the same block on two pages is run once)."""
    found = {block.text: block for page in PAGES for block in blocks(page, "sh")
             if block.text.startswith("referee ") and not elsewhere(block)}
    return list(found.values())


@pytest.mark.parametrize("block", cli_blocks(), ids=lambda block: block.where())
def test_the_cli_examples_run_as_written(block: Block, tmp_path: Path) -> None:
    """`referee match ... -o records.jsonl`: records with their result (README), which `referee validate`
    finds legal, every claim agreeing (bots.md)."""
    match, validate = (command for command, _ in commands(block))
    shell(match, cwd=tmp_path)
    games = int(re.search(r"--games (\d+)", match).group(1))
    records = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert len(records) == games and all(record["result"]["winner"] for record in records)
    summary = shell(validate, cwd=tmp_path).stderr.splitlines()[-1]
    assert f"{games} records: {games} legal" in summary and f"claims: {games} agree" in summary, summary
