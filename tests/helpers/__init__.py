"""What the tests share (no test module imports another): a live gunicorn and raw-socket clients (live),
nginx in front of it (proxy), the app in process (inprocess), a browser (browser), the tests' seal keys
(keys), the pages' examples (pages), property-test inputs (properties), game records and their claims
(records, claims, example_archive), each game's test facts (games), hand-built positions and boards of
one game (<game>_shapes, <game>_boards, <game>_states, <game>_policies) and schemathesis's hooks. Imported as
`from helpers.live import serve`: pytest puts tests/ on the path (pyproject.toml), bench/run.py too."""
