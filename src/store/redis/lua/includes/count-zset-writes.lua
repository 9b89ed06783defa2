-- Strategy `zset`: claiming requests and counting them in the sets count-zset.lua reads.
-- provides: CLAIM_SAVES_STATE, CLIENT_COUNTS, addClientCounts, forget, lookup, writeIfNew, claim, saveState,
--           markStarted, countTerminal, flushTerminal, ledgerSplits, countedSeries
-- requires: prefix, horizon, pendingTimeout, forgetBefore, int, SUCCESS, FAILURE, PENDING, keepFor, addLastN,
--           removeLastN, keepFrom, retentionTtlSec, now, CHANNEL_ONLY, seriesSuffix, seriesOfSuffix, zkey
local channel = string.match(prefix, '{(.*)}')
local startedKey = prefix .. 'st'
-- A life can outlive its pending time by a timeout and a horizon (a success correcting a timeout late),
-- and is remembered a horizon after that: so long a started mark must stay.
local startedKeepMs = 2 * horizon + pendingTimeout
local startedTtlSec = math.ceil(startedKeepMs / 1000) + 60
local trimmedSeries = {}
local failureSeriesKey = prefix .. 'fs'
local failureSeriesTtlSec = math.ceil(horizon / 1000) + 60
local failureSeriesWritten = false

local CLAIM_SAVES_STATE = false -- the sets are written by countTerminal; claim() only looks up
local CLIENT_COUNTS = false
-- The client sends no counts to this strategy (statsStore.ts): a batch with some is a bug, said loudly.
local function addClientCounts()
  error('client counts sent to a strategy that counts in the script')
end
-- Most channels have no pending requests: then one check per call spares a lookup per outcome.
-- (A pending recorded later in this call is written at once and sets this flag, in saveState.)
local anyPending = redis.call('EXISTS', prefix .. 'pend') == 1

-- A forgotten request's started mark must not count for its next life.
local function forget(o)
  redis.call('ZREM', startedKey, o.id)
end

local function lookup(o)
  local member = channel .. ':' .. o.id
  local at = redis.call('ZSCORE', zkey('', 'all'), member)
  if at then
    at = tonumber(at)
    if at < forgetBefore then
      -- Past the dedup horizon the id starts afresh; its old outcome stays counted in its minute
      -- under a retired member name, as the other strategies keep it in their counters.
      local sets = redis.call('ZSCORE', zkey('', 'succ'), member) and { 'all', 'succ' } or { 'all' }
      for _, series in ipairs(o.series) do
        for _, which in ipairs(sets) do
          local key = zkey(series, which)
          if redis.call('ZREM', key, member) == 1 then redis.call('ZADD', key, at, member .. '~' .. int(at)) end
        end
      end
      forget(o)
      return 0, 0, nil
    end
    if redis.call('ZSCORE', zkey('', 'succ'), member) then return SUCCESS, at, nil end
    return FAILURE, at, nil
  end
  if not anyPending then return 0, 0, nil end
  local deadline = redis.call('ZSCORE', prefix .. 'pend', o.id)
  if deadline and tonumber(deadline) - pendingTimeout >= forgetBefore then
    return PENDING, tonumber(deadline) - pendingTimeout, 1
  end
  return 0, 0, nil
end

-- The sets are written by countTerminal, so claiming is looking up, and for a new life clearing a
-- started mark left by an earlier, forgotten life of the same id (only when the channel has any marks).
local anyStarted = redis.call('EXISTS', startedKey) == 1
local function writeIfNew() end -- the sets are written by countTerminal: claim() looks up
local function ledgerSplits() return 0 end -- no ledger, and the client sends no shard keys

local function claim(o)
  local status, at, started = lookup(o)
  if status == 0 and anyStarted then forget(o) end
  return status, at, started
end

-- Only the started mark, and a failure's series beyond the channel's, need storing: all/succ and the
-- pending set are the rest of the state.
local function saveState(o, status, at)
  if status == PENDING then
    redis.call('ZADD', startedKey, at, o.id)
    keepFor(startedKey, startedTtlSec)
    anyStarted = true
    anyPending = true -- startPending (outcome.lua) adds it to the pending set next
  elseif status == FAILURE then
    local suffix = seriesSuffix(o.series)
    if suffix ~= '' then
      redis.call('ZADD', failureSeriesKey, at, o.id .. suffix)
      failureSeriesWritten = true
    end
  end
end

-- The series the request's failure at `at` was counted in; asked when a success corrects it, which also
-- ends the record.
local function countedSeries(o, at)
  local prefixOfId = o.id .. '\t'
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', failureSeriesKey, at, at)) do
    if string.sub(member, 1, #prefixOfId) == prefixOfId then
      redis.call('ZREM', failureSeriesKey, member)
      return seriesOfSuffix(string.sub(member, #prefixOfId + 1))
    end
  end
  return CHANNEL_ONLY
end

local function markStarted(o)
  local added = redis.call('ZADD', startedKey, 'NX', o.at, o.id) == 1
  anyStarted = true
  keepFor(startedKey, startedTtlSec)
  return added
end

local function countTerminal(o, status, at, delta)
  local member = channel .. ':' .. o.id
  for _, series in ipairs(o.series) do
    local all = zkey(series, 'all')
    if delta > 0 then
      redis.call('ZADD', all, at, member)
      if status == SUCCESS then redis.call('ZADD', zkey(series, 'succ'), at, member) end
      trimmedSeries[series] = true
    else
      redis.call('ZREM', all, member)
    end
  end
  if delta > 0 then addLastN(o, status, at) else removeLastN(o) end
end

local function trimBelow(key, cutoff, ttlSec)
  local old = redis.call('ZCOUNT', key, '-inf', '(' .. int(cutoff))
  if old > 0 then redis.call('ZREMRANGEBYRANK', key, 0, math.min(old, 10000) - 1) end
  keepFor(key, ttlSec)
end

local function flushTerminal()
  for series in pairs(trimmedSeries) do
    trimBelow(zkey(series, 'all'), keepFrom, retentionTtlSec)
    trimBelow(zkey(series, 'succ'), keepFrom, retentionTtlSec)
  end
  if anyStarted then trimBelow(startedKey, now - startedKeepMs, startedTtlSec) end
  if failureSeriesWritten then trimBelow(failureSeriesKey, forgetBefore, failureSeriesTtlSec) end
end
