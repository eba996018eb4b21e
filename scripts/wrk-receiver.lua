-- wrk load on `subrecon notifications serve`, the same closed loop as `subrecon-bench receiver`
-- (which also reads the receiver's RSS and CPU); bounded by -d, loopback only.
--
--   subrecon notifications serve --port 8088 &
--   wrk -t2 -c32 -d60s --latency -s scripts/wrk-receiver.lua \
--       http://127.0.0.1:8088/apple/notifications -- notifications.jsonl
--
-- The file after `--` is JSON Lines, one {"signedPayload": "..."} body a line, posted in turn
-- (from a random body; after the file, `in-order` starts at the first: one thread, each once).
-- At the end: the answers by status (wrk itself only counts non-2xx together).

local bodies = {}
local next_body = 0
statuses = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local path = args[1]
  if path == nil then
    error("usage: wrk ... -s scripts/wrk-receiver.lua URL -- BODIES.jsonl")
  end
  for line in io.lines(path) do
    if #line > 0 then table.insert(bodies, line) end
  end
  if #bodies == 0 then error(path .. " holds no body") end
  if args[2] == "in-order" then
    -- One thread sending each body once, oldest first (subrecon-bench receiver --wrk).
    next_body = 0
  else
    -- Threads start at different bodies so they do not post the same one at the same moment.
    next_body = math.random(#bodies) - 1
  end
end

function request()
  next_body = next_body % #bodies + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, bodies[next_body])
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(total) do table.insert(parts, status .. ": " .. count) end
  table.sort(parts)
  io.write("answers: " .. table.concat(parts, ", ") .. "\n")
  io.write(string.format("requests %d in %d us\n", summary.requests, summary.duration))
  local errors = summary.errors
  io.write(string.format("errors connect %d read %d write %d timeout %d\n",
    errors.connect, errors.read, errors.write, errors.timeout))
  io.write(string.format("p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
