-- Per-second counters in one hash per series and minute, `<tally>:<series>:<minute>`: fields
-- `<field><second>` and the minute's total `<field>`. 2 fields × 60 seconds + 2 totals = 122 fields, so
-- the hash stays a compact listpack. The minutes' totals are summed again per 10 minutes,
-- `<tally>10:<series>:<block>` (the totals only): a window reads each whole block from one key instead of
-- ten. A health snapshot reads every channel's hour-long window once a second, and the keys it reads are
-- most of its cost. The one-letter names are what Redis stores (short keys and fields keep the listpacks small).
-- This file names the keys and fields; tally.lua reads them, tally-writes.lua writes them (a script holds only
-- the halves its operation uses: a call runs its script's whole top level, every closure of every include).
-- `rev`, `wr` and `ng` are the marks a writer leaves for readers that keep what they read (tally-writes.lua).
-- provides: TERMINAL_TALLY, PENDING_TALLY, SUCCESSES, FAILURES, STARTED, OPEN_PENDING, bucketKey, seriesKeyBase,
--           REV_KEY, secondFields, PENDING_MARK, WRITES_KEY, NEGATIVE_MARK, childOf, seriesPart, blockKinds,
--           BLOCK_MINUTES
-- requires: prefix, int
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
