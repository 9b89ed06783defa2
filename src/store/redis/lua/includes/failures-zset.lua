-- Newest failures per channel (drill-down) as one sorted set, for strategies `zset` and `zset-sharded`:
-- `fail`, member `<id>\t<code>`, score = at; the newest `failuresMax` within the horizon are kept.
-- provides: noteFailure, unnoteFailure, flushFailures, readFailures
-- requires: prefix, queueZadd, removeMember, zadds, int, forgetBefore, failuresMax, keepFor, retentionTtlSec,
--           now
local failKey = prefix .. 'fail'

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

-- Newest first, at most `limit`: `<id>\t<code>`, at, …
local function readFailures(fromMs, limit)
  return redis.call('ZREVRANGEBYSCORE', failKey, int(now), int(fromMs), 'WITHSCORES', 'LIMIT', 0, limit)
end
