-- Strategy buckets (the default): ledger hashes for dedup, per-second counters for windows.
-- KEYS[1] `<namespace>:{<channel>}:`; ARGV and replies: see includes/header.lua, includes/record.lua and
-- includes/ops.lua.
--@include header.lua
--@include header-writes.lua
--@include tally.lua
--@include tally-writes.lua
--@include chunked.lua
--@include appends.lua
--@include ledger.lua
--@include lastn-seconds.lua
--@include lastn-seconds-writes.lua
--@include count-buckets.lua
--@include count-buckets-writes.lua
--@include failures-log.lua
--@include failures-log-writes.lua
--@include pending-due.lua
--@include outcome.lua

-- The call's gathered writes. flushTerminal first: it writes its counters through the tallies.
local function flushWrites()
  flushTerminal()
  flushTallies()
  flushAppends()
end
--@include record.lua
--@include record-many.lua
-- A read first turns its channel's due timeouts into failures, and writes them.
sweepTimeouts()
flushWrites()
--@include windows-delta.lua
--@include ops.lua
