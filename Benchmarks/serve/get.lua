-- wrk script for GET endpoints: the same JSON line at the end as post.lua, the same optional
-- pacing, and the same per-request work in wrk (a request formatted in init, returned by
-- request()): wrk -s get.lua URL -- PATH [DELAY_MS].
local pause = 0
local prepared = nil

function init(args)
  prepared = wrk.format("GET", args[1])
  pause = tonumber(args[2] or "0")
end

function request()
  return prepared
end

function delay()
  return pause
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"p50_us":%d,"p99_us":%d,"p999_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
