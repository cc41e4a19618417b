"""The app in process (Flask's test client): a JSON POST, and the checks every problem answer passes."""

from __future__ import annotations

import orjson

from referee.codes import CODES


def problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.data
    assert response.mimetype == "application/problem+json"
    body = response.json
    assert body["code"] == code and body["status"] == status
    assert body["type"] == f"urn:referee:problem:{code}"
    assert body["title"] == CODES[code][1] and body["detail"]
    assert body["request_id"] == response.headers["X-Request-ID"]
    assert "Traceback" not in response.get_data(as_text=True)
    return body


def post(client, path: str, body) -> object:
    return client.post(path, data=orjson.dumps(body), content_type="application/json")
