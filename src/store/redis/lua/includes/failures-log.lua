-- Newest failures per channel (drill-down) for strategy `buckets`, without a sorted set: inserting
-- into one and trimming it cost ≈ 4 µs of Redis CPU per failure in the benchmark (cache misses in its
-- skip list), ≈ 0.2 µs per outcome at 5 % failures. Instead failed requests are appended, once per call
-- (appends.lua), to a log kept while its time is within the horizon:
--   `+<at>\t<id>\t<code>\n`  a failure;   `-<at>\t<id>\t\n`  that failure, upgraded to a success.
-- A call's first QUIET_FAILURES failures of a second go to their minute's log `flm:<minute>`, the rest to
-- the second's own log `fl:<second>`: a key costs ≈ 100 B of its own, and at 1 event/s per channel a key per
-- second with a failure was 8 B of an event's ≈ 90 (docs/decisions/069); a busy second keeps a log of its
-- own, so a read of the newest failures never parses a whole busy minute. A second's records may be in
-- both logs, and a read takes both.
-- Reading walks back from now over the seconds whose failure counters (tally.lua, the channel's
-- series '') are not zero, so a quiet hour costs a few counter reads, not a read per second.
-- All failures within the horizon are kept (≈ 50 B each); `failuresMax` bounds the sorted sets only.
-- The logs are written by failures-log-writes.lua.
-- provides: readFailures
-- requires: idiv, now, forgetBefore, bucketKey, TERMINAL_TALLY, minuteTotals, FAILURES, minuteSeconds,
--           secondFields, failLogKey, minuteLogKey
local RECORD = '([+-])(%d+)\t([^\t]*)\t([^\n]*)\n'

-- A minute log's records, by second: read once a call.
local minuteLogs = {}
local function minuteLogBySecond(minute)
  local key = minuteLogKey(minute)
  local bySecond = minuteLogs[key]
  if not bySecond then
    bySecond = {}
    for sign, at, id, code in string.gmatch(redis.call('GET', key) or '', RECORD) do
      local sec = idiv(tonumber(at), 1000)
      local records = bySecond[sec]
      if not records then
        records = {}
        bySecond[sec] = records
      end
      records[#records + 1] = { sign, at, id, code }
    end
    minuteLogs[key] = bySecond
  end
  return bySecond
end

-- The failures of one second still standing, with at in [fromMs, now]: newest first, and at the same
-- ms in the order ZREVRANGEBYSCORE gives equal scores (members `<id>\t<code>` in reverse).
local function secondFailures(sec, fromMs)
  -- A failure and its upgrade may sit in different logs: each (at, id) stands while its `+` records
  -- outnumber its `-` records, whatever order the logs are read in.
  local net, failed = {}, {}
  local function add(sign, at, id, code)
    local request = at .. '\t' .. id
    if sign == '+' then
      net[request] = (net[request] or 0) + 1
      failed[request] = { member = id .. '\t' .. code, at = tonumber(at) }
    else
      net[request] = (net[request] or 0) - 1
    end
  end
  for sign, at, id, code in string.gmatch(redis.call('GET', failLogKey(sec)) or '', RECORD) do add(sign, at, id, code) end
  for _, r in ipairs(minuteLogBySecond(idiv(sec, 60))[sec] or {}) do add(r[1], r[2], r[3], r[4]) end
  local found = {}
  for request, f in pairs(failed) do
    if net[request] > 0 and f.at >= fromMs and f.at <= now then found[#found + 1] = f end
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
        if (tonumber(counters[secondFields[FAILURES][sec - first]]) or 0) > 0 then
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
