-- Strategy zset-sharded: ledger hashes for dedup, per-minute hash-sharded sorted sets for windows.
-- KEYS[1] `<namespace>:{<channel>}:`; ARGV and replies: see includes/header.lua, includes/record.lua and
-- includes/ops.lua.
--@include header.lua
--@include header-writes.lua
--@include tally.lua
--@include tally-writes.lua
--@include chunked.lua
--@include ledger.lua
--@include zadds.lua
--@include lastn-zset.lua
--@include count-sharded.lua
--@include failures-zset.lua
--@include pending-due.lua
--@include outcome.lua

-- The call's gathered writes. The trims after flushZadds: they trim what it wrote.
local function flushWrites()
  flushTallies()
  flushZadds()
  flushFailures()
  flushLastN()
end
--@include record.lua
-- A read first turns its channel's due timeouts into failures, and writes them.
sweepTimeouts()
flushWrites()
--@include ops.lua
