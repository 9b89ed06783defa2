-- Strategy `buckets`: the call's gathered writes, sent at its end (record, sweep). flushTerminal first: it
-- writes its counters through the tallies.
-- provides: flushWrites
-- requires: flushTerminal, flushTallies, flushAppends
local function flushWrites()
  flushTerminal()
  flushTallies()
  flushAppends()
end
