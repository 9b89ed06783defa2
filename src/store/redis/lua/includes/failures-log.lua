-- Newest failures per channel (drill-down) for strategy `buckets`, without a sorted set: inserting
-- into one and trimming it cost ≈ 4 µs of Redis CPU per failure in the benchmark (cache misses in its
-- skip list), ≈ 0.2 µs per outcome at 5 % failures. Instead each second's failed requests are appended,
-- once per call (appends.lua), to that second's log `fl:<second>`, kept while the second is within the horizon:
--   `+<at>\t<id>\t<code>\n`  a failure;   `-<at>\t<id>\t\n`  that failure, upgraded to a success.
-- Reading walks back from now over the seconds whose failure counters (tally.lua, the channel's
-- series '') are not zero, so a quiet hour costs a few counter reads, not a read per second.
-- All failures within the horizon are kept (≈ 50 B each); `failuresMax` bounds the sorted sets only.
-- provides: noteFailure, unnoteFailure, readFailures, startFailureLogChannel
-- requires: prefix, int, idiv, queueAppend, now, forgetBefore, bucketKey, TERMINAL_TALLY, minuteTotals,
--           FAILURES, minuteSeconds
local function failLogKey(sec)
  return prefix .. 'fl:' .. int(sec)
end

-- A call's failures mostly share their second: its key is built once, not per failure.
local logSec, logKey

-- Forgets the cached key when the call moves to another channel.
local function startFailureLogChannel()
  logSec, logKey = nil, nil
end
local function logFailure(at, record)
  local sec = idiv(at, 1000)
  if sec ~= logSec then logSec, logKey = sec, failLogKey(sec) end
  queueAppend(logKey, sec, record)
end

local function noteFailure(id, code, at)
  logFailure(at, '+' .. int(at) .. '\t' .. id .. '\t' .. code .. '\n')
end

-- The request's failure at `at` was upgraded to a success.
local function unnoteFailure(o, at)
  logFailure(at, '-' .. int(at) .. '\t' .. o.id .. '\t\n')
end

-- The failures of one second still standing, with at in [fromMs, now]: newest first, and at the same
-- ms in the order ZREVRANGEBYSCORE gives equal scores (members `<id>\t<code>` in reverse).
local function secondFailures(sec, fromMs)
  local standing = {}
  for sign, at, id, code in string.gmatch(redis.call('GET', failLogKey(sec)) or '', '([+-])(%d+)\t([^\t]*)\t([^\n]*)\n') do
    standing[at .. '\t' .. id] = sign == '+' and { member = id .. '\t' .. code, at = tonumber(at) } or nil
  end
  local found = {}
  for _, f in pairs(standing) do
    if f.at >= fromMs and f.at <= now then found[#found + 1] = f end
  end
  table.sort(found, function(a, b)
    if a.at ~= b.at then return a.at > b.at end
    return a.member > b.member
  end)
  return found
end

-- Newest first, at most `limit`, within the horizon: `<id>\t<code>`, at, …
local function readFailures(fromMs, limit)
  local out = {}
  fromMs = math.max(fromMs, forgetBefore)
  local fromSec, nowSec = idiv(fromMs, 1000), idiv(now, 1000)
  for minute = idiv(nowSec, 60), idiv(fromSec, 60), -1 do
    local key = bucketKey(TERMINAL_TALLY, '', minute)
    if minuteTotals(key)[FAILURES] > 0 then
      local first, counters = minute * 60, minuteSeconds(key)
      for sec = math.min(nowSec, first + 59), math.max(fromSec, first), -1 do
        if (counters[FAILURES .. (sec - first)] or 0) > 0 then
          for _, f in ipairs(secondFailures(sec, fromMs)) do
            out[#out + 1] = f.member
            out[#out + 1] = f.at
            if #out == 2 * limit then return out end
          end
        end
      end
    end
  end
  return out
end
