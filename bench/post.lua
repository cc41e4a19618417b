-- wrk script: POSTs the JSON body kept in the file named by the first script argument, and prints a
-- one-line JSON summary at the end (bench/run.py reads the line that starts with WRK_JSON).
--   wrk -t2 -c32 -d10s --latency -s bench/post.lua http://127.0.0.1:PORT/v1/games/iago/play -- bench/bodies/play.json

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

function init(args)
  local file = assert(io.open(args[1], "rb"))
  wrk.body = file:read("*a")
  file:close()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "connect_errors": %d, "read_errors": %d, '
      .. '"write_errors": %d, "status_errors": %d, "timeouts": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, '
      .. '"mean_us": %.1f, "max_us": %d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
