"""The HTTP service: the app (`app.create_app`) and its routes (`api`, `moves`), bodies and budgets read
and held before the app (`body`, `budget`), gunicorn's worker and settings (`worker`, `gunicorn_conf`,
`settings`, `lifecycle`, `offload`), what is recorded (`observe`, `logs`, `metrics`), problems
(`problems`), envelopes (`schemas`), and the pages and playground (`pages`, `playground`). Run it with
`gunicorn -c python:referee.http.gunicorn_conf 'referee.http.app:create_app()'` (`make serve`)."""

__all__: list[str] = []  # its modules are imported by name
