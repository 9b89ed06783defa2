-- Reads of the per-second counters (tally-keys.lua names them): sums over windows, a minute's totals.
-- provides: minuteTotals, minuteSeconds, sumTally, minuteTally
-- requires: prefix, int, idiv, SUCCESSES, FAILURES, STARTED, OPEN_PENDING, PENDING_TALLY, PENDING_MARK, BLOCK_MINUTES,
--           childOf, secondFields, seriesKeyBase, blockKinds, bucketKey
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

-- A minute's fields, their values as Redis sent them (text): a read converts only the seconds it sums, where
-- converting all 122 cost ≈ 70,000 instructions a partial minute.
local function minuteSeconds(key)
  local h = secondsRead[key]
  if not h then
    h = {}
    local flat = redis.call('HGETALL', key)
    for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
    secondsRead[key] = h
  end
  return h
end

-- Keys a sum needs and the call has not read yet are checked with one EXISTS; if none exists (a series with
-- no pending requests, a channel quiet for the window) they are noted as empty and read with no call each.
-- Where some exist, each is read: EXISTS costs about what a read of a missing key does.
local NO_TOTALS = { [SUCCESSES] = 0, [FAILURES] = 0, [STARTED] = 0, [OPEN_PENDING] = 0 }
local NO_SECONDS = {}
local function noteAbsentKeys(keys)
  if redis.call('EXISTS', unpack(keys)) > 0 then return end
  for _, key in ipairs(keys) do
    totalsRead[key], secondsRead[key] = NO_TOTALS, NO_SECONDS
  end
end

-- Which blocks, whole minutes and partial minutes a sum over [fromSec, toSec] reads is the same for every
-- channel and series of a call (one `now`, the same windows): planned once, with each key's last part as
-- text, so a channel's keys cost one concatenation each. Building key strings was most of a read's time.
local plans = {}
local function planOf(fromSec, toSec)
  local byEnd = childOf(plans, fromSec)
  local plan = byEnd[toSec]
  if plan then return plan end
  plan = { blocks = {}, minutes = {}, partial = {} }
  local minute, toMinute = math.floor(fromSec / 60), math.floor(toSec / 60)
  while minute <= toMinute do
    local first = minute * 60
    if minute % BLOCK_MINUTES == 0 and fromSec <= first and first + BLOCK_MINUTES * 60 - 1 <= toSec then
      plan.blocks[#plan.blocks + 1] = int(idiv(minute, BLOCK_MINUTES))
      minute = minute + BLOCK_MINUTES
    else
      if fromSec <= first and first + 59 <= toSec then
        plan.minutes[#plan.minutes + 1] = int(minute)
      else
        plan.partial[#plan.partial + 1] = { int(minute), math.max(fromSec, first) - first, math.min(toSec, first + 59) - first }
      end
      minute = minute + 1
    end
  end
  byEnd[toSec] = plan
  return plan
end

local pendingMarked = {}
local function hasPendingCounts()
  local marked = pendingMarked[prefix]
  if marked == nil then
    marked = redis.call('EXISTS', prefix .. PENDING_MARK) == 1
    pendingMarked[prefix] = marked
  end
  return marked
end

-- Sums of `fieldA` and `fieldB` over the seconds [fromS, toS] (0–59) of one minute key: second by second, or
-- the minute's totals less the seconds outside, whichever adds fewer. The minute is read whole (HGETALL): a
-- listpack finds each field by a scan, so an HMGET of many seconds costs more than one pass over them all.
-- Memoised per call: every window ends in the current minute.
local partialSums = {}
local function minutePart(key, fieldA, fieldB, fromS, toS)
  local h = minuteSeconds(key)
  if h == NO_SECONDS then return 0, 0 end
  local memo = childOf(partialSums, key)
  local span = fromS * 60 + toS
  local sums = memo[span]
  if sums then return sums[1], sums[2] end
  local namesA, namesB, a, b = secondFields[fieldA], secondFields[fieldB], 0, 0
  local function add(s)
    a, b = a + (tonumber(h[namesA[s]]) or 0), b + (tonumber(h[namesB[s]]) or 0)
  end
  if toS - fromS < 30 then
    for s = fromS, toS do add(s) end
  else
    for s = 0, fromS - 1 do add(s) end
    for s = toS + 1, 59 do add(s) end
    a, b = (tonumber(h[fieldA]) or 0) - a, (tonumber(h[fieldB]) or 0) - b
  end
  memo[span] = { a, b }
  return a, b
end

-- Sums of `fieldA` and `fieldB` over whole seconds [fromSec, toSec]: whole blocks from their totals, other
-- whole minutes from theirs, the partial minutes at the edges second by second (the current minute is
-- always partial: it may hold outcomes from a few seconds in the future, within the skew tolerance).
local function sumTally(kind, series, fromSec, toSec, fieldA, fieldB)
  if kind == PENDING_TALLY and not hasPendingCounts() then return 0, 0 end
  local plan = planOf(fromSec, toSec)
  local minuteBase, blockBase = seriesKeyBase(kind, series), seriesKeyBase(blockKinds[kind], series)
  local whole, partial, unread = {}, {}, {}
  local function note(key)
    if not totalsRead[key] and not secondsRead[key] then unread[#unread + 1] = key end
    return key
  end
  for i, text in ipairs(plan.blocks) do whole[i] = note(blockBase .. text) end
  for _, text in ipairs(plan.minutes) do whole[#whole + 1] = note(minuteBase .. text) end
  for i, part in ipairs(plan.partial) do partial[i] = note(minuteBase .. part[1]) end
  if #unread > 0 then noteAbsentKeys(unread) end
  local a, b = 0, 0
  for _, key in ipairs(whole) do
    local t = minuteTotals(key)
    a, b = a + t[fieldA], b + t[fieldB]
  end
  for i, part in ipairs(plan.partial) do
    local pa, pb = minutePart(partial[i], fieldA, fieldB, part[2], part[3])
    a, b = a + pa, b + pb
  end
  return a, b
end

local function minuteTally(kind, series, minute)
  return minuteTotals(bucketKey(kind, series, minute))
end
