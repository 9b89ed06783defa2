-- Per-second counters in one hash per series and minute, `<tally>:<series>:<minute>`: fields
-- `<field><second>` and the minute's total `<field>`. 2 fields × 60 seconds + 2 totals = 122 fields, so
-- the hash stays a compact listpack. Increments of one call are summed in Lua first: a batch of
-- thousands of outcomes over a few seconds costs a handful of HINCRBY, not one per outcome.
-- The one-letter names are what Redis stores (short keys and fields keep the listpacks small).
-- provides: TERMINAL_TALLY, PENDING_TALLY, SUCCESSES, FAILURES, STARTED, OPEN_PENDING, bucketKey, tallySecond,
--           tally, flushTallies, minuteTotals, minuteSeconds, sumTally, minuteTally, resetTallyCursor
-- requires: prefix, int, keepFrom, idiv, keepFor, retentionTtlSec
local TERMINAL_TALLY = 'b' -- fields SUCCESSES and FAILURES (strategy buckets)
local PENDING_TALLY = 'p'  -- fields STARTED and OPEN_PENDING (every strategy)
local SUCCESSES, FAILURES, STARTED, OPEN_PENDING = 's', 'f', 'p', 'o'
local tallies, tallyKeys = {}, {}

local function bucketKey(kind, series, minute)
  return prefix .. kind .. ':' .. series .. ':' .. int(minute)
end

-- Field names `<field><second>`, built once per call and name.
local secondFields = setmetatable({}, { __index = function(t, field)
  local names = setmetatable({}, { __index = function(n, second)
    local name = field .. second
    n[second] = name
    return name
  end })
  t[field] = names
  return names
end })

-- Outcomes of one call mostly share a few seconds: the key and field names of the last second
-- are kept, instead of building the same strings again for every outcome.
local lastKind, lastSeries, lastSec, lastKey, lastOffset
local function tallySecond(kind, series, sec, field, delta)
  if sec ~= lastSec or kind ~= lastKind or series ~= lastSeries then
    local minute = math.floor(sec / 60)
    lastKind, lastSeries, lastSec = kind, series, sec
    lastKey, lastOffset = bucketKey(kind, series, minute), sec - minute * 60
    if not tallies[lastKey] then
      tallies[lastKey] = {}
      tallyKeys[#tallyKeys + 1] = lastKey
    end
  end
  local fields = tallies[lastKey]
  local f = secondFields[field][lastOffset]
  fields[f] = (fields[f] or 0) + delta
  fields[field] = (fields[field] or 0) + delta
end

-- The cursor above knows no channel: a call that records several channels resets it between them.
local function resetTallyCursor()
  lastSec = nil
end

local function tally(kind, series, atMs, field, delta)
  if atMs >= keepFrom then tallySecond(kind, series, idiv(atMs, 1000), field, delta) end
end

local function flushTallies()
  for _, key in ipairs(tallyKeys) do
    for field, delta in pairs(tallies[key]) do
      if delta ~= 0 then redis.call('HINCRBY', key, field, delta) end
    end
    keepFor(key, retentionTtlSec)
  end
end

local totalsRead, secondsRead = {}, {}
local function minuteTotals(key)
  local t = totalsRead[key]
  if not t then
    local r = redis.call('HMGET', key, SUCCESSES, FAILURES, STARTED, OPEN_PENDING)
    t = { [SUCCESSES] = tonumber(r[1]) or 0, [FAILURES] = tonumber(r[2]) or 0, [STARTED] = tonumber(r[3]) or 0,
      [OPEN_PENDING] = tonumber(r[4]) or 0 }
    totalsRead[key] = t
  end
  return t
end

local function minuteSeconds(key)
  local h = secondsRead[key]
  if not h then
    h = {}
    local flat = redis.call('HGETALL', key)
    for i = 1, #flat, 2 do h[flat[i]] = tonumber(flat[i + 1]) end
    secondsRead[key] = h
  end
  return h
end

-- Minute keys not read yet are checked with one EXISTS; if none exists (a series with no pending
-- requests, a channel quiet for the window) they are noted as empty and read with no call each.
-- Where some exist, each is read: EXISTS costs about what a read of a missing key does.
local NO_TOTALS = { [SUCCESSES] = 0, [FAILURES] = 0, [STARTED] = 0, [OPEN_PENDING] = 0 }
local NO_SECONDS = {}
local function noteAbsentKeys(keys)
  if redis.call('EXISTS', unpack(keys)) > 0 then return end
  for _, key in ipairs(keys) do
    totalsRead[key], secondsRead[key] = NO_TOTALS, NO_SECONDS
  end
end

-- A read builds each minute key once per call (prefix → kind → series → minute): building a key
-- string is most of a read's Lua time, and every window re-reads the minutes of the shorter ones.
local readKeys = {}
local function childOf(t, name)
  local child = t[name]
  if not child then
    child = {}
    t[name] = child
  end
  return child
end

local function readKey(kind, series, minute)
  local keys = childOf(childOf(childOf(readKeys, prefix), kind), series)
  local key = keys[minute]
  if not key then
    key = bucketKey(kind, series, minute)
    keys[minute] = key
  end
  return key
end

local function noteAbsentMinutes(kind, series, fromMinute, toMinute)
  local unread = {}
  for minute = fromMinute, toMinute do
    local key = readKey(kind, series, minute)
    if not totalsRead[key] and not secondsRead[key] then unread[#unread + 1] = key end
  end
  if #unread > 0 then noteAbsentKeys(unread) end
end

-- Sum of `field` over whole seconds [fromSec, toSec]: full minutes from their totals, the partial
-- minutes at the edges second by second (the current minute is always partial: it may hold
-- outcomes from a few seconds in the future, within the skew tolerance).
local function sumTally(kind, series, field, fromSec, toSec)
  local total = 0
  local fromMinute, toMinute = math.floor(fromSec / 60), math.floor(toSec / 60)
  noteAbsentMinutes(kind, series, fromMinute, toMinute)
  local names = secondFields[field]
  for minute = fromMinute, toMinute do
    local key = readKey(kind, series, minute)
    local first = minute * 60
    if fromSec <= first and first + 59 <= toSec then
      total = total + minuteTotals(key)[field]
    else
      local h = minuteSeconds(key)
      for s = math.max(fromSec, first) - first, math.min(toSec, first + 59) - first do
        total = total + (h[names[s]] or 0)
      end
    end
  end
  return total
end

local function minuteTally(kind, series, minute)
  return minuteTotals(bucketKey(kind, series, minute))
end
