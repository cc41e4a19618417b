"""The HTTP baseline of bench/run.py: a Flask app that does nothing, served by gunicorn with the
Referee config. It reads the request body (as the real routes do) and answers a small JSON constant.

    REFEREE_BIND=127.0.0.1:8001 gunicorn -c python:referee.http.gunicorn_conf --pythonpath bench trivial_app:app
"""

from flask import Flask, Response, request

app = Flask(__name__)
ANSWER = b'{"legal":true}'


@app.post("/trivial")
def trivial() -> Response:
    request.get_data(cache=False)
    return Response(ANSWER, mimetype="application/json")


@app.get("/readyz")
def ready() -> Response:
    """The readiness probe the benchmark waits for before it sends anything (tests/helpers/live.py `serve`)."""
    return Response(ANSWER, mimetype="application/json")
