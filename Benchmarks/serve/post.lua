-- wrk script: POSTs the bodies of a file (one a line) in turn, to the path and with the
-- content type given as arguments: wrk -s post.lua URL -- BODIES PATH CONTENT-TYPE [DELAY_MS].
-- With DELAY_MS each connection waits that long before each request (a paced, not a
-- saturating, load). At the end it prints one JSON line with the figures.
local bodies = {}
local index = 0
local path = "/"
local content_type = "application/json"
local pause = 0

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then bodies[#bodies + 1] = line end
  end
  path = args[2]
  content_type = args[3]
  pause = tonumber(args[4] or "0")
  -- Threads start at different bodies.
  index = math.random(#bodies)
end

function delay()
  return pause
end

function request()
  index = index % #bodies + 1
  return wrk.format("POST", path, { ["Content-Type"] = content_type }, bodies[index])
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"p50_us":%d,"p99_us":%d,"p999_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
