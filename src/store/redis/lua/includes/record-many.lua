-- The `record-many` op (strategy buckets): `record` for several channels in one call. At 1 event/s per
-- channel a 500-outcome batch brings each channel one or two outcomes, and a call of its own cost the
-- channel ≈ 30 µs of Redis CPU before its first outcome (docs/benchmarks.md, callCost.ts).
--   KEYS     the first channel's prefix: on a cluster the call goes to the node serving its slot.
--   ARGV[11] one MessagePack array: for each channel in order, the part recordSection reads (record.lua).
--   ARGV[12] S, the number of slots, then S channel counts, then the channels' prefixes in order, a
--            slot's together (one slot on a single server; on a cluster the slots of one node).
--   Returns for each channel what `record` returns.
-- Every read before any write: a command naming keys of several slots fails on a cluster, so each slot's
-- channels have their own EXISTS and MGET; and a channel whose slot this node no longer serves fails
-- the call there, with nothing written, for the client to send its channels again slot by slot.
-- Each channel's terminal counts are flushed before the next (their keys are built from `prefix`); the
-- tallies and appends, gathered under full key names, once at the end.
-- provides: (nothing)
-- requires: op, OP_ARGS, prefix, ledgerBitmapKeys, startLedgerChannel, startPendingChannel, startFailureLogChannel,
--           resetTallyCursor, anyPendingIn, sweepTimeouts, recordSection, flushTerminal, flushTallies,
--           flushAppends
if op == 'record-many' then
  local batch = cmsgpack.unpack(ARGV[OP_ARGS])
  local slotCount = tonumber(ARGV[OP_ARGS + 1])
  local prefixes = { unpack(ARGV, OP_ARGS + 2 + slotCount) }
  local sweeps, bitmaps, first = {}, {}, 1
  for s = 1, slotCount do
    local last = first + tonumber(ARGV[OP_ARGS + 1 + s]) - 1
    local slotPrefixes, bitmapKeys = {}, {}
    for c = first, last do
      slotPrefixes[#slotPrefixes + 1] = prefixes[c]
      bitmapKeys[2 * (c - first) + 1], bitmapKeys[2 * (c - first) + 2] = ledgerBitmapKeys(prefixes[c])
    end
    -- A quiet channel reads both its ledger bitmaps for its one outcome: one MGET for the slot's channels.
    local sweep, got = anyPendingIn(slotPrefixes), redis.call('MGET', unpack(bitmapKeys))
    for c = first, last do
      sweeps[c], bitmaps[2 * c - 1], bitmaps[2 * c] = sweep, got[2 * (c - first) + 1], got[2 * (c - first) + 2]
    end
    first = last + 1
  end
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
