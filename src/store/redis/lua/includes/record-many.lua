-- The `record-many` op (strategy buckets): `record` for several channels in one call. At 1 event/s per
-- channel a 500-outcome batch brings each channel one or two outcomes, and a call of its own cost the
-- channel ≈ 30 µs of Redis CPU before its first outcome (docs/benchmarks.md, callCost.ts).
--   KEYS     one prefix per channel (one slot on a cluster: the client groups them).
--   ARGV[11] one MessagePack array: for each key in order, the part recordSection reads (record.lua).
--   Returns for each channel what `record` returns.
-- Each channel's terminal counts are flushed before the next (their keys are built from `prefix`); the
-- tallies and appends, gathered under full key names, once at the end.
-- provides: (nothing)
-- requires: op, OP_ARGS, prefix, ledgerBitmapKeys, startLedgerChannel, startPendingChannel, startFailureLogChannel,
--           resetTallyCursor, anyPendingIn, sweepTimeouts, recordSection, flushTerminal, flushTallies,
--           flushAppends
if op == 'record-many' then
  local batch = cmsgpack.unpack(ARGV[OP_ARGS])
  local sweep = anyPendingIn(KEYS)
  -- Every channel's two ledger bitmaps in one MGET: a quiet channel reads both for its one outcome.
  local bitmapKeys = {}
  for c = 1, #KEYS do bitmapKeys[2 * c - 1], bitmapKeys[2 * c] = ledgerBitmapKeys(KEYS[c]) end
  local bitmaps = redis.call('MGET', unpack(bitmapKeys))
  local replies, i = {}, 1
  for c = 1, #KEYS do
    prefix = KEYS[c]
    startLedgerChannel(bitmaps[2 * c - 1] or '', bitmaps[2 * c] or '')
    startPendingChannel()
    startFailureLogChannel()
    resetTallyCursor()
    if sweep then sweepTimeouts() end
    replies[c], i = recordSection(batch, i)
    flushTerminal()
  end
  flushTallies()
  flushAppends()
  return replies
end
