-- Per-second counters in one hash per series and minute, `<tally>:<series>:<minute>`: fields
-- `<field><second>` and the minute's total `<field>`. 2 fields × 60 seconds + 2 totals = 122 fields, so
-- the hash stays a compact listpack. The minutes' totals are summed again per 10 minutes,
-- `<tally>10:<series>:<block>` (the totals only): a window reads each whole block from one key instead of
-- ten. A health snapshot reads every channel's hour-long window once a second, and the keys it reads are
-- most of its cost. The one-letter names are what Redis stores (short keys and fields keep the listpacks small).
-- This file names the keys and reads them; tally-writes.lua writes them (the reads-only scripts leave it out:
-- a script's top level, every closure of every include, runs again at each call).
-- `rev`, `wr` and `ng` are the marks a writer leaves for readers that keep what they read (tally-writes.lua).
-- provides: TERMINAL_TALLY, PENDING_TALLY, SUCCESSES, FAILURES, STARTED, OPEN_PENDING, bucketKey, minuteTotals,
--           minuteSeconds, sumTally, minuteTally, REV_KEY, secondFields, PENDING_MARK, WRITES_KEY, NEGATIVE_MARK,
--           childOf, seriesPart, blockKinds, BLOCK_MINUTES
-- requires: prefix, int, idiv
local TERMINAL_TALLY = 'b' -- fields SUCCESSES and FAILURES (strategy buckets)
local PENDING_TALLY = 'p'  -- fields STARTED and OPEN_PENDING (every strategy)
local SUCCESSES, FAILURES, STARTED, OPEN_PENDING = 's', 'f', 'p', 'o'
local BLOCK_MINUTES = 10
-- Set while the channel has pending counts within the retention: most channels never record a pending
-- outcome, and a read of their pending windows then builds no key.
local PENDING_MARK = 'pt'
local REV_KEY = 'rev'
local WRITES_KEY, NEGATIVE_MARK = 'wr', 'ng'

-- Every tally key is `<prefix><kind>:<series>:<minute or block>`: a sum builds the part before the number
-- once per series (sumTally), a read of one minute the whole key (bucketKey), a write its key from parts
-- shared by the call's channels (partsOf, tally-writes.lua).
local function seriesPart(kind, series)
  return kind .. ':' .. series .. ':'
end

local function seriesKeyBase(kind, series)
  return prefix .. seriesPart(kind, series)
end

local function bucketKey(kind, series, minute)
  return seriesKeyBase(kind, series) .. int(minute)
end

local blockKinds = { [TERMINAL_TALLY] = TERMINAL_TALLY .. BLOCK_MINUTES, [PENDING_TALLY] = PENDING_TALLY .. BLOCK_MINUTES }

-- Field names `<field><second>` for the seconds 0–59 of a minute, written out: a name built in the call
-- (`field .. second`) has Redis format the number with sprintf, ≈ 1,000 instructions, and a read of a
-- window's two partial minutes names ≈ 120 seconds (npm run bench:instructions, instructions/query).
local secondFields = {
  [SUCCESSES] = { [0] = 's0', 's1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10', 's11', 's12', 's13',
    's14', 's15', 's16', 's17', 's18', 's19', 's20', 's21', 's22', 's23', 's24', 's25', 's26', 's27', 's28', 's29',
    's30', 's31', 's32', 's33', 's34', 's35', 's36', 's37', 's38', 's39', 's40', 's41', 's42', 's43', 's44', 's45',
    's46', 's47', 's48', 's49', 's50', 's51', 's52', 's53', 's54', 's55', 's56', 's57', 's58', 's59' },
  [FAILURES] = { [0] = 'f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10', 'f11', 'f12', 'f13',
    'f14', 'f15', 'f16', 'f17', 'f18', 'f19', 'f20', 'f21', 'f22', 'f23', 'f24', 'f25', 'f26', 'f27', 'f28', 'f29',
    'f30', 'f31', 'f32', 'f33', 'f34', 'f35', 'f36', 'f37', 'f38', 'f39', 'f40', 'f41', 'f42', 'f43', 'f44', 'f45',
    'f46', 'f47', 'f48', 'f49', 'f50', 'f51', 'f52', 'f53', 'f54', 'f55', 'f56', 'f57', 'f58', 'f59' },
  [STARTED] = { [0] = 'p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10', 'p11', 'p12', 'p13', 'p14',
    'p15', 'p16', 'p17', 'p18', 'p19', 'p20', 'p21', 'p22', 'p23', 'p24', 'p25', 'p26', 'p27', 'p28', 'p29', 'p30',
    'p31', 'p32', 'p33', 'p34', 'p35', 'p36', 'p37', 'p38', 'p39', 'p40', 'p41', 'p42', 'p43', 'p44', 'p45', 'p46',
    'p47', 'p48', 'p49', 'p50', 'p51', 'p52', 'p53', 'p54', 'p55', 'p56', 'p57', 'p58', 'p59' },
  [OPEN_PENDING] = { [0] = 'o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8', 'o9', 'o10', 'o11', 'o12', 'o13',
    'o14', 'o15', 'o16', 'o17', 'o18', 'o19', 'o20', 'o21', 'o22', 'o23', 'o24', 'o25', 'o26', 'o27', 'o28', 'o29',
    'o30', 'o31', 'o32', 'o33', 'o34', 'o35', 'o36', 'o37', 'o38', 'o39', 'o40', 'o41', 'o42', 'o43', 'o44', 'o45',
    'o46', 'o47', 'o48', 'o49', 'o50', 'o51', 'o52', 'o53', 'o54', 'o55', 'o56', 'o57', 'o58', 'o59' },
}

local function childOf(t, name)
  local child = t[name]
  if not child then
    child = {}
    t[name] = child
  end
  return child
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
