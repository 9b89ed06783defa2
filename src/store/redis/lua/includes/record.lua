-- The `record` operation: ARGV[OP_ARGS] is one channel's part of a batch, a MessagePack array (statsStore.ts).
-- Returns one character per outcome (0 accepted, 1 duplicate, 2 corrected), then the channel's ledger split
-- count. recordSection reads a channel's part (of this operation, and of each channel of `recordMany`)
-- from `batch` at position `i`: G series groups, each `count, series…`; C client counts (CLIENT_COUNTS
-- strategies, else 0), each `group, second, successes, failures, records` (count-buckets-writes.lua); N; the
-- ledger split count the client's shards follow (ledger.lua's writeIfNew); then per outcome (layouts.ts
-- names them): newState = at·8 + started·4 + status as text, the request's ledger state if it is new; its
-- ledger field, 3 hash bytes then the id (layouts.ts's ledgerField); the client's ledger shard and that
-- shard's key (layouts.ts's ledgerShard); its status (1 pending 2 failure 3 success), then its code ('' if
-- none) and its series group (1-based). Most outcomes are successes without a code in the first group:
-- status PLAIN_SUCCESS says so, and their code and group are left out (two values fewer for cmsgpack
-- to unpack and intern, ≈ 3 % of an outcome's instructions at 2,000 events/s). Returns the codes and
-- the position after the part.
-- A failure's ledger state gets its series appended here when they are more than the channel's own
-- (ledger.lua), once per group and call.
-- The request id is not sent apart: it is the ledger field after its hash bytes (header-writes.lua's
-- ledgerField), taken only where an outcome needs it; one more string per outcome in the batch cost
-- Redis ≈ 2.5 % of an outcome's instructions at 2,000 events/s (npm run bench:instructions).
-- provides: recordSection, record
-- requires: addClientCounts, writeIfNew, CLIENT_COUNTS, PENDING, FAILURE, SUCCESS, noteFailure, ACCEPTED, apply, stateAt,
--           idOfField, OP_ARGS, sweepTimeouts, flushWrites, ledgerSplits, seriesSuffix
local function recordSection(batch, i)
  -- Values per client count and per outcome: recordBatch in layouts.ts.
  local CLIENT_COUNT_VALUES, OUTCOME_VALUES, PLAIN_VALUES = 5, 7, 5
  local PLAIN_SUCCESS = 0
  local groups = {}
  local groupCount = batch[i]
  i = i + 1
  for g = 1, groupCount do
    local count, list = batch[i], {}
    for j = 1, count do list[j] = batch[i + j] end
    groups[g] = list
    i = i + count + 1
  end
  for _ = 1, batch[i] do
    addClientCounts(groups[batch[i + 1]], batch[i + 2], batch[i + 3], batch[i + 4], batch[i + 5])
    i = i + CLIENT_COUNT_VALUES
  end
  local count, clientSplits, k = batch[i + 1], batch[i + 2], i + 3
  -- One table reused for every outcome that takes the general path (allocating one per outcome costs
  -- more than its fields); the codes other than ACCEPTED kept apart, as most parts accept every outcome.
  local others, o, suffixes = nil, nil, nil
  for n = 1, count do
    local newState, field, clientShard, clientKey, status = batch[k], batch[k + 1], batch[k + 2], batch[k + 3], batch[k + 4]
    local code, group = '', 1
    if status == PLAIN_SUCCESS then
      status, k = SUCCESS, k + PLAIN_VALUES
    else
      code, group = batch[k + 5], batch[k + 6]
      k = k + OUTCOME_VALUES
    end
    local state = newState
    if status == FAILURE then
      suffixes = suffixes or {}
      local suffix = suffixes[group]
      if suffix == nil then
        suffix = seriesSuffix(groups[group])
        suffixes[group] = suffix
      end
      if suffix ~= '' then state = newState .. suffix end
    end
    local written = writeIfNew(field, state, clientShard, clientKey, clientSplits)
    if written == 1 and CLIENT_COUNTS and status ~= PENDING then
      -- Most outcomes: a request never seen, ending now, and counted by the client already. What
      -- apply() would do, without building the outcome or making its calls: ≈ 0.25 µs of Redis
      -- CPU less per outcome (docs/decisions/070).
      if status == FAILURE then noteFailure(idOfField(field), code, stateAt(tonumber(newState))) end
    else
      o = o or {}
      o.id, o.code, o.newState, o.status, o.at = idOfField(field), code, state, status, stateAt(tonumber(newState))
      o.field, o.series = field, groups[group]
      o.countedByClient = CLIENT_COUNTS and status ~= PENDING
      local result = apply(o, written)
      if result ~= ACCEPTED then
        others = others or {}
        others[n] = result
      end
    end
  end
  if not others then return string.rep(ACCEPTED, count), k end
  local codes = {}
  for j = 1, count do codes[j] = others[j] or ACCEPTED end
  return table.concat(codes), k
end

-- The `record` operation: the channel's due timeouts first, then its part of the batch.
local function record()
  sweepTimeouts()
  local codes = recordSection(cmsgpack.unpack(ARGV[OP_ARGS]), 1)
  flushWrites()
  return { codes, ledgerSplits() }
end
