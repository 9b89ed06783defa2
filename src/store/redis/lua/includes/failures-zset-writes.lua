-- Newest failures per channel as one sorted set (strategy `zset`, failures-zset.lua): noted, taken back, trimmed.
-- provides: noteFailure, unnoteFailure, flushFailures
-- requires: queueZadd, removeMember, zadds, int, forgetBefore, failuresMax, keepFor, retentionTtlSec, failKey
local function noteFailure(id, code, at)
  queueZadd(failKey, id .. '\t' .. code, at)
end

-- The request's failure at `at` was upgraded to a success: its member goes, written or still queued.
local function unnoteFailure(o, at)
  local prefixOfId = o.id .. '\t'
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', failKey, at, at)) do
    if string.sub(member, 1, #prefixOfId) == prefixOfId then removeMember(failKey, member) end
  end
  local entries = zadds[failKey]
  if entries then
    for member in pairs(entries) do
      if string.sub(member, 1, #prefixOfId) == prefixOfId then entries[member] = nil end
    end
  end
end

local function flushFailures()
  if zadds[failKey] then
    redis.call('ZREMRANGEBYSCORE', failKey, '-inf', '(' .. int(forgetBefore))
    redis.call('ZREMRANGEBYRANK', failKey, 0, -failuresMax - 1)
    keepFor(failKey, retentionTtlSec)
  end
end
