-- Last-N for strategy `buckets`, without a per-outcome sorted set: the per-second counters (tally.lua)
-- already say how many successes and failures each second holds, so the newest n are whole seconds
-- (whole minutes where they fit) back from now, plus part of one boundary second. Only that second
-- needs the order of its outcomes, so each second of each series also keeps a detail string
-- `d:<series>:<second>` of 2-byte records (lastNRecord in layouts.ts), appended once per call:
-- ms · 4 + success · 2 + removed (an upgraded failure is taken out by a `removed` record). Newest first
-- means the later ms first, and at the same ms successes before failures: the order of the sorted-set
-- last-N's score at·2 + success (lastn-zset.lua).
-- count-buckets.lua writes the records as it counts each outcome; last-N has nothing more to note,
-- so this strategy has no addLastN/removeLastN/flushLastN (the sorted-set strategies' hooks).
-- provides: appendDetail, readLastN
-- requires: prefix, int, queueAppend, now, forgetBefore, minuteTally, TERMINAL_TALLY, SUCCESSES, FAILURES,
--           minuteSeconds, bucketKey
local function detailKey(series, sec)
  return prefix .. 'd:' .. series .. ':' .. int(sec)
end

-- Adds records (2 bytes each) to one second's detail, written at the end of the call (appends.lua).
local function appendDetail(series, sec, records)
  queueAppend(detailKey(series, sec), sec, records)
end

-- Successes and failures per ms of one second, from its detail string.
local function secondDetail(series, sec)
  local bytes = redis.call('GET', detailKey(series, sec)) or ''
  local success, failure = {}, {}
  for i = 1, #bytes - 1, 2 do
    local hi, lo = string.byte(bytes, i, i + 1)
    local record = hi * 256 + lo
    local ms, sign = math.floor(record / 4), record % 2 == 1 and -1 or 1
    local counts = record % 4 >= 2 and success or failure
    counts[ms] = (counts[ms] or 0) + sign
  end
  return success, failure
end

-- The newest `need` outcomes of one second with at in [fromMs, toMs]: successes, failures.
local function newestOfSecond(series, sec, fromMs, toMs, need)
  local success, failure = secondDetail(series, sec)
  local s, f = 0, 0
  for ms = toMs - sec * 1000, fromMs - sec * 1000, -1 do
    if need <= 0 then break end
    local took = math.min(success[ms] or 0, need)
    s, need = s + took, need - took
    took = math.min(failure[ms] or 0, need)
    f, need = f + took, need - took
  end
  return s, f
end

local function readLastN(series, n)
  local nowSec, fromSec = math.floor(now / 1000), math.floor(forgetBefore / 1000)
  -- The seconds at both ends are partial (now, and the horizon's edge): read from their detail.
  local success, failure = newestOfSecond(series, nowSec, nowSec * 1000, now, n)
  local need, sec = n - success - failure, nowSec - 1
  while need > 0 and sec > fromSec do
    local minute = math.floor(sec / 60)
    local first = minute * 60
    local whole = sec == first + 59 and first > fromSec and minuteTally(TERMINAL_TALLY, series, minute)
    local wholeS, wholeF = whole and whole[SUCCESSES], whole and whole[FAILURES]
    if whole and wholeS + wholeF <= need then
      success, failure, need = success + wholeS, failure + wholeF, need - wholeS - wholeF
      sec = first - 1
    else
      local h = minuteSeconds(bucketKey(TERMINAL_TALLY, series, minute))
      local s, f = h[SUCCESSES .. (sec - first)] or 0, h[FAILURES .. (sec - first)] or 0
      if s + f > need then s, f = newestOfSecond(series, sec, sec * 1000, sec * 1000 + 999, need) end
      success, failure, need = success + s, failure + f, need - s - f
      sec = sec - 1
    end
  end
  if need > 0 and sec == fromSec and fromSec < nowSec then
    local s, f = newestOfSecond(series, fromSec, forgetBefore, fromSec * 1000 + 999, need)
    success, failure = success + s, failure + f
  end
  return success, failure
end
