-- Last-N for strategy `buckets`, without a per-outcome sorted set: the per-second counters (tally.lua)
-- already say how many successes and failures each second holds, so the newest n are whole seconds
-- (whole minutes where they fit) back from now, plus part of one boundary second. Only that second
-- needs the order of its outcomes, so each second of each series also keeps a detail string
-- `d:<series>:<second>` of 2-byte records (lastNRecord in layouts.ts), appended once per call:
-- ms · 4 + success · 2 + removed (an upgraded failure is taken out by a `removed` record). Newest first
-- means the later ms first, and at the same ms successes before failures: the order of the sorted-set
-- last-N's score at·2 + success (lastn-zset.lua).
-- count-buckets-writes.lua makes the records as it counts each outcome and lastn-seconds-writes.lua appends
-- them; last-N has nothing more to note, so this strategy has no addLastN/removeLastN/flushLastN (the
-- sorted-set strategies' hooks).
-- provides: readLastN
-- requires: now, forgetBefore, minuteTally, TERMINAL_TALLY, SUCCESSES, FAILURES, minuteSeconds, bucketKey,
--           secondFields, idiv, detailKey, minuteDetailKey
local function countRecord(success, failure, record)
  local ms, sign = math.floor(record / 4), record % 2 == 1 and -1 or 1
  local counts = record % 4 >= 2 and success or failure
  counts[ms] = (counts[ms] or 0) + sign
end

-- A call reads each minute's detail once: last-N reads up to three seconds of a minute.
local minuteDetails = {}
local function minuteDetail(series, minute)
  local key = minuteDetailKey(series, minute)
  local bytes = minuteDetails[key]
  if not bytes then
    bytes = redis.call('GET', key) or ''
    minuteDetails[key] = bytes
  end
  return bytes
end

-- Successes and failures per ms of one second, from its detail string and its minute's.
local function secondDetail(series, sec)
  local bytes = redis.call('GET', detailKey(series, sec)) or ''
  local success, failure = {}, {}
  for i = 1, #bytes - 1, 2 do
    local hi, lo = string.byte(bytes, i, i + 1)
    countRecord(success, failure, hi * 256 + lo)
  end
  local minute = idiv(sec, 60)
  local inMinute, tagged = sec - minute * 60, minuteDetail(series, minute)
  for i = 1, #tagged - 2, 3 do
    local s, hi, lo = string.byte(tagged, i, i + 2)
    if s == inMinute then countRecord(success, failure, hi * 256 + lo) end
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
      local offset = sec - first
      local s, f = tonumber(h[secondFields[SUCCESSES][offset]]) or 0, tonumber(h[secondFields[FAILURES][offset]]) or 0
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
