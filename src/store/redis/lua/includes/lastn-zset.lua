-- Last-N in a sorted set (strategy `zset`): one sorted set per series, member = request id, score = at·2 + 1
-- for a success, at·2 for a failure, the newest `lastNMax` kept. One ZREVRANGEBYSCORE gives the newest n and
-- their statuses. This file reads them; lastn-zset-writes.lua writes them.
-- provides: lastNKeys, lastNKey, readLastN
-- requires: prefix, int, forgetBefore, now
local lastNKeys = {}
local function lastNKey(series)
  local key = lastNKeys[series]
  if not key then
    key = prefix .. 'n:' .. series
    lastNKeys[series] = key
  end
  return key
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
