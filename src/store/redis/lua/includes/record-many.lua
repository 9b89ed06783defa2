-- The `record-many` op (strategy buckets): `record` for several channels in one call. At 1 event/s per
-- channel a 500-outcome batch brings each channel one or two outcomes, and a call of its own cost the
-- channel ≈ 30 µs of Redis CPU before its first outcome (docs/benchmarks.md, callCost.ts).
--   KEYS     the first channel's prefix; ARGV[11…] the channels (header.lua's channelList), then one
--            MessagePack array: for each channel in order, the part recordSection reads (record.lua).
--   Returns for each channel what `record` returns.
-- Every read before any write (eachSlot); each channel's terminal counts are flushed before the next (their
-- keys are built from `prefix`); the tallies and appends, gathered under full key names, once at the end.
-- provides: (nothing)
-- requires: op, OP_ARGS, prefix, ledgerBitmapKeys, startLedgerChannel, startPendingChannel, startFailureLogChannel,
--           resetTallyCursor, anyPendingIn, sweepTimeouts, recordSection, flushTerminal, flushTallies,
--           flushAppends, channelList, eachSlot
if op == 'record-many' then
  local prefixes, sizes, batchArg = channelList(OP_ARGS)
  local batch = cmsgpack.unpack(ARGV[batchArg])
  local sweeps, bitmaps = {}, {}
  eachSlot(prefixes, sizes, function(slotPrefixes, offset)
    -- A quiet channel reads both its ledger bitmaps for its one outcome: one MGET for the slot's channels.
    local bitmapKeys = {}
    for c = 1, #slotPrefixes do bitmapKeys[2 * c - 1], bitmapKeys[2 * c] = ledgerBitmapKeys(slotPrefixes[c]) end
    local sweep, got = anyPendingIn(slotPrefixes), redis.call('MGET', unpack(bitmapKeys))
    for c = 1, #slotPrefixes do
      sweeps[offset + c], bitmaps[2 * (offset + c) - 1], bitmaps[2 * (offset + c)] = sweep, got[2 * c - 1], got[2 * c]
    end
  end)
  local replies, i = {}, 1
  for c = 1, #prefixes do
    prefix = prefixes[c]
    startLedgerChannel(bitmaps[2 * c - 1] or '', bitmaps[2 * c] or '')
    startPendingChannel()
    startFailureLogChannel()
    resetTallyCursor()
    if sweeps[c] then sweepTimeouts() end
    replies[c], i = recordSection(batch, i)
    flushTerminal()
  end
  flushTallies()
  flushAppends()
  return replies
end
