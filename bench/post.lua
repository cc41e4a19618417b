-- wrk script: POSTs the JSON body kept in the file named by the first script argument, and prints a
-- one-line JSON summary at the end (bench/run.py reads the line that starts with WRK_JSON).
--   wrk -t2 -c32 -d10s --latency -s bench/post.lua http://127.0.0.1:PORT/v1/games/iago/play -- bench/bodies/iago-play.json
-- An optional second argument is a pause in milliseconds before each request of a connection, to hold
-- a rate below the maximum.

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local pause = 0

function init(args)
  local file = assert(io.open(args[1], "rb"))
  wrk.body = file:read("*a")
  file:close()
  pause = tonumber(args[2] or "0")
  if pause > 0 then
    -- Defined only when pacing: wrk schedules every request through a timer once `delay` exists.
    delay = function() return pause end
  end
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
