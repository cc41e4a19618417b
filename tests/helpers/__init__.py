"""What the tests share (no test module imports another): a live gunicorn and raw-socket clients (live),
nginx in front of it (proxy), the app in process (inprocess), a browser (browser), the tests' seal keys
(keys), the pages' examples (pages), property-test inputs (properties), game records and their claims
(records, claims, example_archive), hand-built positions and boards (iago_shapes, isaac_shapes,
isaac_policies, hypnosia_boards, caesar_states) and schemathesis's hooks. Imported as
`from helpers.live import serve`: pytest puts tests/ on the path (pyproject.toml), bench/run.py too."""
