"""How schemathesis speaks the contract's two text bodies, for the repository's `schemathesis.toml`
(`schemathesis run openapi.yaml` from the repository root) and the contract tests alike.

- An NDJSON batch (`POST .../batch/ndjson`) is text in the contract: a string is sent as it is; any
  other generated value (negative data) as one JSON line an item.
- `GET /openapi.yaml`, the contract's one YAML answer, is typed as text (`type: string`, as generators read
  it: the document's bytes), so it is checked as the text it is, not as the object the YAML holds."""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from schemathesis.core.media_types import YAML_MEDIA_TYPES

NDJSON = "application/x-ndjson"


@schemathesis.serializer(NDJSON)
def ndjson(ctx: Any, value: Any) -> bytes:
    """json, not orjson: generated items may hold integers beyond 64 bits."""
    if isinstance(value, str):
        return value.encode()
    items = value if isinstance(value, list) else [value]
    return b"".join(json.dumps(item).encode() + b"\n" for item in items)


# Every YAML media type: schemathesis takes the first deserializer whose type is of the YAML family.
@schemathesis.deserializer(*YAML_MEDIA_TYPES)
def yaml_text(ctx: Any, response: Any) -> str:
    return response.content.decode(response.encoding or "utf-8")
