-- Strategy `buckets`, operation `recordMany`: `record` for several channels in one call. At 1 event/s per
-- channel a 500-outcome batch brings each channel one or two outcomes, and a call of its own cost the
-- channel ≈ 30 µs of Redis CPU before its first outcome (bench/engine/callCost.ts).
-- KEYS[1]    the first channel's prefix (includes/channels.lua)
-- ARGV[1–8]  now and the engine settings (includes/header.lua)
-- ARGV[9…]   the channels (includes/channels.lua), then one MessagePack array: for each channel in order,
--            the part recordSection reads (includes/record.lua)
-- returns    for each channel, one after the other, what `record` returns: its codes and split count
-- Every read before any write (eachSlot); each channel's terminal counts are flushed before the next (their
-- keys are built from `prefix`); the tallies and appends, gathered under full key names, once at the end.
--@include header.lua
--@include channels.lua
--@include header-writes.lua
--@include tally-keys.lua
--@include tally-writes.lua
--@include chunked.lua
--@include appends.lua
--@include ledger.lua
--@include log-keys.lua
--@include lastn-seconds-writes.lua
--@include count-buckets-writes.lua
--@include failures-log-writes.lua
--@include pending-due.lua
--@include outcome.lua
--@include flush-buckets.lua
--@include record.lua
local prefixes, sizes, batchArg = channelList(OP_ARGS)
local batch = cmsgpack.unpack(ARGV[batchArg])
local sweeps, ledgerReads, ledgerKeysOf = {}, {}, {}
eachSlot(prefixes, sizes, function(slotPrefixes, offset)
  -- A quiet channel reads its three ledger keys for its one outcome: one MGET for the slot's channels.
  local ledgerKeys = {}
  for c = 1, #slotPrefixes do
    ledgerKeys[3 * c - 2], ledgerKeys[3 * c - 1], ledgerKeys[3 * c] = ledgerStateKeys(slotPrefixes[c])
  end
  local sweep, got = anyPendingIn(slotPrefixes), redis.call('MGET', unpack(ledgerKeys))
  for c = 1, #slotPrefixes do
    sweeps[offset + c] = sweep
    for k = 0, 2 do
      ledgerReads[3 * (offset + c) - k], ledgerKeysOf[3 * (offset + c) - k] = got[3 * c - k], ledgerKeys[3 * c - k]
    end
  end
end)
local replies, i = {}, 1
for c = 1, #prefixes do
  prefix = prefixes[c]
  startLedgerChannel(ledgerReads[3 * c - 2] or '', ledgerReads[3 * c - 1] or '', ledgerReads[3 * c] or false,
    ledgerKeysOf[3 * c - 2], ledgerKeysOf[3 * c - 1], ledgerKeysOf[3 * c])
  startFailureLogChannel()
  resetTallyCursor()
  if sweeps[c] then sweepTimeouts() end
  replies[2 * c - 1], i = recordSection(batch, i)
  replies[2 * c] = ledgerSplits()
  flushTerminal()
end
flushTallies()
flushAppends()
return replies
