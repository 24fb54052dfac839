-- wrk script of Benchmarks/serve: wrk -s load.lua URL -- BODIES PATH CONTENT-TYPE [DELAY_MS].
-- BODIES is a file of request bodies, one a line, POSTed in turn to PATH with CONTENT-TYPE;
-- `-` GETs PATH instead. With DELAY_MS each connection waits that long before each request (a
-- paced, not a saturating, load). Requests are formatted once, in init, so that wrk does the
-- same work per request for every endpoint (it shares the two cores with the server). At the
-- end it prints one JSON line with the figures.
local requests = {}
local index = 0
local pause = 0

function init(args)
  local path = args[2]
  pause = tonumber(args[4] or "0")
  if args[1] == "-" then
    requests[1] = wrk.format("GET", path)
  else
    for line in io.lines(args[1]) do
      if #line > 0 then
        requests[#requests + 1] = wrk.format("POST", path, { ["Content-Type"] = args[3] }, line)
      end
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
