-- Strategy `buckets`: a terminal outcome counts in its second, as the second's success or failure
-- counter (tally.lua) and as a 2-byte record in the second's detail string, which orders the second's
-- outcomes for last-N (lastn-seconds.lua). This file reads the counts; count-buckets-writes.lua counts.
-- provides: readTerminal, readMinuteTerminal
-- requires: sumTally, minuteTally, TERMINAL_TALLY, SUCCESSES, FAILURES
local function readTerminal(series, fromSec, toSec)
  return sumTally(TERMINAL_TALLY, series, fromSec, toSec, SUCCESSES, FAILURES)
end

local function readMinuteTerminal(series, minute)
  local t = minuteTally(TERMINAL_TALLY, series, minute)
  return t[SUCCESSES], t[FAILURES]
end
