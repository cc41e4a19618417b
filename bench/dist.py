"""The `dist` section: what `make dist` built (dist/), as a user downloads and imports it.

For each wheel: its size (the download) and unpacked (on disk); for the wheel of this platform, the time
`python -X importtime -c "import referee"` says `import referee` takes, the cumulative time of its `referee`
line, with the wheel's own files first on the path (unpacked into a temporary directory; its dependencies,
orjson and tqdm, from the running environment): the first run (bytecode compiled), then the median of
`IMPORT_RUNS` more, each a fresh interpreter. Targets: a wheel of at most 5 MB and `import referee` within
100 ms warm, so that a CLI run or a worker's start is not dominated by loading the package."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

from report import number, progress, table, verdict

__all__ = ["bench_dist", "import_milliseconds"]

DIST = Path(__file__).resolve().parent.parent / "dist"
IMPORT_RUNS = 9
WHEEL_TARGET_BYTES = 5 * 1000 * 1000
IMPORT_TARGET_MS = 100.0
REFEREE_LINE = re.compile(r"^import time:\s+\d+ \|\s+(\d+) \| referee$", re.MULTILINE)


def import_milliseconds(path: Path) -> float:
    """`import referee`'s cumulative time (ms) in a fresh interpreter with `path` first on sys.path."""
    env = os.environ | {"PYTHONPATH": str(path)}
    shown = subprocess.run([sys.executable, "-X", "importtime", "-c", "import referee"], env=env, check=True,
                           capture_output=True, text=True).stderr
    found = REFEREE_LINE.search(shown)
    assert found, shown[-2000:]
    return int(found[1]) / 1000


def this_platform(wheel: Path) -> bool:
    return wheel.name.endswith(f"_{sysconfig.get_platform().split('-')[-1]}.whl") and "manylinux" in wheel.name


def bench_dist() -> str:
    wheels = sorted(DIST.glob("*.whl"))
    if not wheels:
        return "## dist\n\nNo wheel in dist/: run `make dist` first."
    rows, imports = [], []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
        size = wheel.stat().st_size
        rows.append([wheel.name, number(size / 1e6, 2), number(unpacked / 1e6, 2),
                     verdict("≤ 5 MB", size <= WHEEL_TARGET_BYTES)])
        if this_platform(wheel):
            progress(f"dist: import referee from {wheel.name}")
            with tempfile.TemporaryDirectory(prefix="referee-wheel-") as unpacked_dir:
                with zipfile.ZipFile(wheel) as archive:
                    archive.extractall(unpacked_dir)
                first = import_milliseconds(Path(unpacked_dir))
                warm = statistics.median(import_milliseconds(Path(unpacked_dir)) for _ in range(IMPORT_RUNS))
            imports.append([wheel.name, number(first, 1), number(warm, 1),
                            verdict("≤ 100 ms warm", warm <= IMPORT_TARGET_MS)])
    parts = ["## dist", table(["wheel", "MB", "MB unpacked", "target"], rows)]
    if imports:
        parts.append(table(["wheel", "import referee, first (ms)", f"median of {IMPORT_RUNS} (ms)", "target"],
                           imports))
    return "\n\n".join(parts)
