-- Last-N in a sorted set (strategy `zset`, lastn-zset.lua): the call's outcomes queued, the sets trimmed.
-- provides: addLastN, removeLastN, flushLastN
-- requires: SUCCESS, queueZadd, removeMember, zadds, int, forgetBefore, lastNMax, keepFor, retentionTtlSec,
--           lastNKeys, lastNKey
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
