-- Newest failures per channel (drill-down) as one sorted set, for strategy `zset`: `fail`, member
-- `<id>\t<code>`, score = at; the newest `failuresMax` within the horizon are kept. This file reads them;
-- failures-zset-writes.lua writes them.
-- provides: failKey, readFailures
-- requires: prefix, int, now
local failKey = prefix .. 'fail'

-- Newest first, at most `limit`: `<id>\t<code>`, at, …
local function readFailures(fromMs, limit)
  return redis.call('ZREVRANGEBYSCORE', failKey, int(now), int(fromMs), 'WITHSCORES', 'LIMIT', 0, limit)
end
