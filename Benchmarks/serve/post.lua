-- wrk script: POSTs the bodies of a file (one a line) in turn, to the path and with the
-- content type given as arguments: wrk -s post.lua URL -- BODIES PATH CONTENT-TYPE [DELAY_MS].
-- With DELAY_MS each connection waits that long before each request (a paced, not a
-- saturating, load). At the end it prints one JSON line with the figures. Requests are
-- formatted once, in init: wrk then does the same work per request as for get.lua, so that
-- the client's share of the two cores is the same for every endpoint.
local requests = {}
local index = 0
local path = "/"
local content_type = "application/json"
local pause = 0

function init(args)
  path = args[2]
  content_type = args[3]
  pause = tonumber(args[4] or "0")
  for line in io.lines(args[1]) do
    if #line > 0 then
      requests[#requests + 1] = wrk.format("POST", path, { ["Content-Type"] = content_type }, line)
    end
  end
  -- Threads start at different bodies.
  index = math.random(#requests)
end

function delay()
  return pause
end

function request()
  index = index % #requests + 1
  return requests[index]
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"p50_us":%d,"p99_us":%d,"p999_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
