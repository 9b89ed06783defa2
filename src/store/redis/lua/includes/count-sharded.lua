-- Strategy `zset-sharded` (docs/storage.md): per series, one pair of sorted sets per minute
-- and hash shard, `m:<series>:<minute>:<shard>:all|succ`, member = `<id>@<at>`, score = at, each with a
-- TTL so nothing is trimmed by hand. A window sums ZCARD of its full minutes and ZCOUNT of the two
-- partial minutes at its edges. The `@at` keeps two lives of one id apart
-- (an id reused past the dedup horizon); the ledger knows `at` whenever a member must be removed.
-- provides: CLIENT_COUNTS, addClientCounts, countTerminal, readTerminal, readMinuteTerminal
-- requires: prefix, int, keepFrom, zsetShards, fieldHash, keepFor, retentionTtlSec, SUCCESS, addLastN, removeLastN
local function shardKey(series, minute, shard, which)
  return prefix .. 'm:' .. series .. ':' .. int(minute) .. ':' .. shard .. ':' .. which
end

local CLIENT_COUNTS = false -- its counts are sorted-set members, written one by one
-- The client sends no counts to this strategy (statsStore.ts): a batch with some is a bug, said loudly.
local function addClientCounts()
  error('client counts sent to a strategy that counts in the script')
end

-- Last-N before the retention check below: last-N keeps what its own rules say (flushLastN).
local function countTerminal(o, status, at, delta)
  if delta > 0 then addLastN(o, status, at) else removeLastN(o) end
  if at < keepFrom then return end
  local minute = math.floor(at / 60000)
  local shard = fieldHash(o.field) % zsetShards
  local member = o.id .. '@' .. int(at)
  for _, series in ipairs(o.series) do
    local all = shardKey(series, minute, shard, 'all')
    if delta > 0 then
      redis.call('ZADD', all, at, member)
      keepFor(all, retentionTtlSec)
      if status == SUCCESS then
        local succ = shardKey(series, minute, shard, 'succ')
        redis.call('ZADD', succ, at, member)
        keepFor(succ, retentionTtlSec)
      end
    else
      redis.call('ZREM', all, member)
      if status == SUCCESS then redis.call('ZREM', shardKey(series, minute, shard, 'succ'), member) end
    end
  end
end

local function countMinute(series, minute, fromMs, toMs)
  local whole = fromMs <= minute * 60000 and (minute + 1) * 60000 - 1 <= toMs
  local all, succ = 0, 0
  for shard = 0, zsetShards - 1 do
    local allKey, succKey = shardKey(series, minute, shard, 'all'), shardKey(series, minute, shard, 'succ')
    if whole then
      all = all + redis.call('ZCARD', allKey)
      succ = succ + redis.call('ZCARD', succKey)
    else
      all = all + redis.call('ZCOUNT', allKey, fromMs, toMs)
      succ = succ + redis.call('ZCOUNT', succKey, fromMs, toMs)
    end
  end
  return succ, all - succ
end

local function readTerminal(series, fromSec, toSec)
  local fromMs, toMs = fromSec * 1000, toSec * 1000 + 999
  local success, failure = 0, 0
  for minute = math.floor(fromMs / 60000), math.floor(toMs / 60000) do
    local s, f = countMinute(series, minute, fromMs, toMs)
    success, failure = success + s, failure + f
  end
  return success, failure
end

local function readMinuteTerminal(series, minute)
  return countMinute(series, minute, minute * 60000, (minute + 1) * 60000 - 1)
end
