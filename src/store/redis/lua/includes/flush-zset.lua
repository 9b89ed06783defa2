-- Strategy `zset`: the call's gathered writes, sent at its end (record, sweep). The trims after flushZadds:
-- they trim what it wrote.
-- provides: flushWrites
-- requires: flushTerminal, flushTallies, flushZadds, flushFailures, flushLastN
local function flushWrites()
  flushTerminal()
  flushTallies()
  flushZadds()
  flushFailures()
  flushLastN()
end
