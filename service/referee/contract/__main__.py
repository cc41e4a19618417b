"""`python -m referee.contract [PATH]`: writes the HTTP contract to PATH, by default to the `openapi.yaml`
the service serves (in a checkout, a link to the repository's); `-` prints it."""

import sys
from pathlib import Path

from referee.contract import text

__all__: list[str] = []  # a command, not a module to import from

target = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).with_name("openapi.yaml"))
if target == "-":
    sys.stdout.write(text())
else:
    Path(target).write_text(text())
