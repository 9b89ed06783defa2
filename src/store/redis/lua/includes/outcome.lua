-- What every strategy shares: the state machine of one request, pending requests and their timeouts.
-- From the strategy: claim (look up, and for a new request write its state when CLAIM_SAVES_STATE),
-- lookup, saveState, markStarted, forget, countedSeries (ledger.lua or count-zset.lua); countTerminal, which counts
-- a terminal outcome in the windows and in last-N (count-*.lua); noteFailure and unnoteFailure
-- (failures-*.lua). Writes gathered over the call are sent at its end by the strategy's own
-- flushWrites (in its script file).
--
-- `o.countedByClient`: the client has counted this terminal outcome already, as if it were new
-- (strategies with CLIENT_COUNTS, see count-buckets-writes.lua). Every path that accepts the outcome keeps that
-- count; the duplicate path takes it back.
--
-- A later outcome may carry other dims than the request's first (a retry with another payment method under
-- the same id): what the first counted is taken back from the series it was counted in — a failure's from
-- countedSeries, a pending's from its sweep record — and the new outcome counts in its own series.
-- provides: apply, sweepTimeouts
-- requires: prefix, saveState, countTerminal, FAILURE, noteFailure, DUPLICATE, unnoteFailure, PENDING, tally,
--           PENDING_TALLY, STARTED, OPEN_PENDING, int, pendingTimeout, keepFor, retentionTtlSec, claim,
--           CLAIM_SAVES_STATE, ACCEPTED, markStarted, SUCCESS, CORRECTED, now, split, lookup, forget, fieldHash,
--           ledgerField, countedSeries, CHANNEL_ONLY
local pendKey      -- zset: request id → deadline (pending at + pendingTimeout)
local pendInfoKey  -- hash: request id → its ledger hash bits \t series…, for the timeout sweep
local pendFor      -- the channel prefix they belong to

-- Points the pending keys at `prefix`'s channel, when a step of the state machine first needs them: a call
-- over many quiet channels mostly needs none, and two keys built per channel cost as much as its outcome.
local function pendingKeys()
  if pendFor ~= prefix then pendFor, pendKey, pendInfoKey = prefix, prefix .. 'pend', prefix .. 'pinfo' end
end

-- `stateSaved`: the strategy's claim() has already written the request's state.
local function addTerminal(o, status, at, code, started, stateSaved)
  if not stateSaved then saveState(o, status, at, started) end
  if not o.countedByClient then countTerminal(o, status, at, 1) end
  if status == FAILURE then noteFailure(o.id, code, at) end
end

-- A terminal outcome that changes nothing: what the client counted for it is taken back.
local function duplicate(o)
  if o.countedByClient then countTerminal(o, o.status, o.at, -1) end
  return DUPLICATE
end

-- Takes back the request's failure at `at` from `series`, the ones it was counted in.
local function removeFailure(o, at, series)
  local own = o.series
  o.series = series
  countTerminal(o, FAILURE, at, -1)
  unnoteFailure(o, at)
  o.series = own
end

local function startPending(o, stateSaved)
  pendingKeys()
  if not stateSaved then saveState(o, PENDING, o.at, 1) end
  for _, series in ipairs(o.series) do
    tally(PENDING_TALLY, series, o.at, STARTED, 1)
    tally(PENDING_TALLY, series, o.at, OPEN_PENDING, 1)
  end
  -- Written at once, not queued: a later outcome of the same call must find the request pending.
  redis.call('ZADD', pendKey, int(o.at + pendingTimeout), o.id)
  keepFor(pendKey, retentionTtlSec)
  redis.call('HSET', pendInfoKey, o.id, fieldHash(o.field) .. '\t' .. table.concat(o.series, '\t'))
  keepFor(pendInfoKey, retentionTtlSec)
end

-- The series a pending request is counted in, from its sweep record (written with it, in startPending).
-- Without one, the channel's own: it counts every request.
local function pendingSeries(id)
  pendingKeys()
  local info = redis.call('HGET', pendInfoKey, id)
  if not info then return CHANNEL_ONLY end
  local parts = split(info, '\t')
  return { unpack(parts, 2) }
end

-- `series`: the ones the request's pending counted in.
local function resolvePending(o, pendingAt, series)
  pendingKeys()
  for _, one in ipairs(series) do tally(PENDING_TALLY, one, pendingAt, OPEN_PENDING, -1) end
  redis.call('ZREM', pendKey, o.id)
  redis.call('HDEL', pendInfoKey, o.id)
end

-- One outcome, in arrival order. A success upgrades a failure (corrected); nothing downgrades a success.
-- `written`: writeIfNew's answer (1 the request was unknown and its state is written now, 0 it is
-- known, nil the strategy writes nothing up front).
local function apply(o, written)
  local status, at, started, counted = claim(o, written)
  if status == 0 then
    if o.status == PENDING then startPending(o, CLAIM_SAVES_STATE) else addTerminal(o, o.status, o.at, o.code, 0, CLAIM_SAVES_STATE) end
    return ACCEPTED
  end
  if o.status == PENDING then
    if status == PENDING then return DUPLICATE end
    if markStarted(o, status, at, started, counted) then
      for _, series in ipairs(o.series) do tally(PENDING_TALLY, series, o.at, STARTED, 1) end
      return ACCEPTED
    end
    return DUPLICATE
  end
  if status == PENDING then
    resolvePending(o, at, pendingSeries(o.id))
    addTerminal(o, o.status, o.at, o.code, 1)
    return ACCEPTED
  end
  if status == FAILURE and o.status == SUCCESS then
    removeFailure(o, at, countedSeries(o, at, counted))
    addTerminal(o, SUCCESS, o.at, '', started)
    return CORRECTED
  end
  return duplicate(o)
end

-- Pending requests whose deadline has passed become failures `timeout` at their deadline. Runs at
-- the start of every call, reads included, because a channel that stopped answering sends nothing
-- else that would trigger it. Bounded per call so a long silence cannot block Redis.
local function sweepTimeouts()
  pendingKeys()
  local due = redis.call('ZRANGEBYSCORE', pendKey, '-inf', int(now), 'WITHSCORES', 'LIMIT', 0, 2000)
  for i = 1, #due, 2 do
    local id, deadline = due[i], tonumber(due[i + 1])
    local info = redis.call('HGET', pendInfoKey, id)
    local o = { id = id, field = '', series = {}, at = deadline, code = 'timeout' }
    local status, pendingAt = 0, 0
    if info then
      local parts = split(info, '\t')
      o.field = ledgerField(tonumber(parts[1]), id)
      for j = 2, #parts do o.series[#o.series + 1] = parts[j] end
      status, pendingAt = lookup(o)
    end
    if status == PENDING then
      resolvePending(o, pendingAt, o.series)
      addTerminal(o, FAILURE, deadline, 'timeout', 1)
    else
      -- Past the horizon (or left over): the request is forgotten, its next outcome starts afresh.
      redis.call('ZREM', pendKey, id)
      redis.call('HDEL', pendInfoKey, id)
      forget(o)
    end
  end
end
