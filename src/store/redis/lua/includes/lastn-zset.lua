-- Last-N in a sorted set (strategies `zset` and `zset-sharded`): one sorted set per series,
-- member = request id, score = at·2 + 1 for a success, at·2 for a failure, the newest `lastNMax` kept.
-- One ZREVRANGEBYSCORE gives the newest n and their statuses.
-- provides: addLastN, removeLastN, flushLastN, readLastN
-- requires: prefix, SUCCESS, queueZadd, removeMember, zadds, int, forgetBefore, lastNMax, keepFor,
--           retentionTtlSec, now
local lastNKeys = {}
local function lastNKey(series)
  local key = lastNKeys[series]
  if not key then
    key = prefix .. 'n:' .. series
    lastNKeys[series] = key
  end
  return key
end

local function addLastN(o, status, at)
  local score = at * 2 + (status == SUCCESS and 1 or 0)
  for _, series in ipairs(o.series) do queueZadd(lastNKey(series), o.id, score) end
end

local function removeLastN(o)
  for _, series in ipairs(o.series) do removeMember(lastNKey(series), o.id) end
end

local function flushLastN()
  for _, key in pairs(lastNKeys) do
    if zadds[key] then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. int(forgetBefore * 2))
      redis.call('ZREMRANGEBYRANK', key, 0, -lastNMax - 1)
      keepFor(key, retentionTtlSec)
    end
  end
end

local function readLastN(series, n)
  local newest = redis.call('ZREVRANGEBYSCORE', lastNKey(series), int(now * 2 + 1), int(forgetBefore * 2),
    'WITHSCORES', 'LIMIT', 0, n)
  local success, failure = 0, 0
  for i = 2, #newest, 2 do
    if tonumber(newest[i]) % 2 == 1 then success = success + 1 else failure = failure + 1 end
  end
  return success, failure
end
