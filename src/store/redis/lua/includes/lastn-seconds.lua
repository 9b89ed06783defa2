-- Last-N for strategy `buckets`, without a per-outcome sorted set: the per-second counters (tally.lua)
-- already say how many successes and failures each second holds, so the newest n are whole seconds
-- (whole minutes where they fit) back from now, plus part of one boundary second. Only that second
-- needs the order of its outcomes, so each second of each series also keeps a detail string
-- `d:<series>:<second>` of 2-byte records, appended once per call: ms · 4 + success · 2 + removed
-- (an upgraded failure is taken out by a `removed` record). Newest first means the later ms first,
-- and at the same ms successes before failures: the order of seed 003's score at·2 + success.
local details, detailKeys = {}, {}

local function detailKey(series, sec)
  return prefix .. 'd:' .. series .. ':' .. int(sec)
end

-- The records of one series and second; outcomes of a call mostly share a few seconds, so the last
-- one found is kept rather than building its key again for every outcome.
local cachedSeries, cachedSec, cachedRecords
local function recordsOf(series, sec)
  if series == cachedSeries and sec == cachedSec then return cachedRecords end
  local key = detailKey(series, sec)
  local records = details[key]
  if not records then
    records = { sec = sec, n = 0 }
    details[key] = records
    detailKeys[#detailKeys + 1] = key
  end
  cachedSeries, cachedSec, cachedRecords = series, sec, records
  return records
end

local function noteDetail(o, status, at, removed)
  if at < forgetBefore then return end -- never among the newest: last-N reads from the horizon on
  local sec = idiv(at, 1000)
  local record = (at - sec * 1000) * 4 + (status == SUCCESS and 2 or 0) + removed
  local high, low = idiv(record, 256), record % 256
  local series = o.series
  for j = 1, #series do -- per outcome: no ipairs call
    local records = recordsOf(series[j], sec)
    local n = records.n
    records[n + 1], records[n + 2], records.n = high, low, n + 2
  end
end

local function addLastN(o, status, at)
  noteDetail(o, status, at, 0)
end

local function removeLastN(o, status, at)
  noteDetail(o, status, at, 1)
end

local function flushLastN()
  for _, key in ipairs(detailKeys) do
    local records, parts = details[key], {}
    for i = 1, records.n, 4000 do parts[#parts + 1] = string.char(unpack(records, i, math.min(i + 3999, records.n))) end
    redis.call('APPEND', key, table.concat(parts))
    -- Kept while its second is within the horizon.
    keepFor(key, math.ceil((records.sec * 1000 + 1000 + horizon - now) / 1000) + 60)
  end
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
    local whole = sec == first + 59 and first > fromSec and minuteTally('b', series, minute)
    if whole and whole.s + whole.f <= need then
      success, failure, need = success + whole.s, failure + whole.f, need - whole.s - whole.f
      sec = first - 1
    else
      local h = minuteSeconds(bucketKey('b', series, minute))
      local s, f = h['s' .. (sec - first)] or 0, h['f' .. (sec - first)] or 0
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
