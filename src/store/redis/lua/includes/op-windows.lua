-- The `windows` operation, for every strategy: one series' counts over windows that end now.
--   ARGV[OP_ARGS] = series, ARGV[OP_ARGS + 1…] = window lengths in seconds.
--   Returns success, failure, started, pending for each window.
-- provides: appendWindows, windows
-- requires: OP_ARGS, now, readTerminal, sumTally, PENDING_TALLY, STARTED, OPEN_PENDING

-- A series' counts for windows from each of `fromSecs` to `toSec`, appended to `out`.
local function appendWindows(out, series, fromSecs, toSec)
  for _, fromSec in ipairs(fromSecs) do
    local success, failure = readTerminal(series, fromSec, toSec)
    out[#out + 1] = success
    out[#out + 1] = failure
    local started, open = sumTally(PENDING_TALLY, series, fromSec, toSec, STARTED, OPEN_PENDING)
    out[#out + 1] = started
    out[#out + 1] = open
  end
  return out
end

local function windows()
  local toSec, fromSecs = math.floor(now / 1000), {}
  for k = OP_ARGS + 1, #ARGV do fromSecs[#fromSecs + 1] = toSec - tonumber(ARGV[k]) + 1 end
  return appendWindows({}, ARGV[OP_ARGS], fromSecs, toSec)
end
