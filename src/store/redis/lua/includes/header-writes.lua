-- What the scripts that write share besides header.lua: a request's ledger state and field, and the TTLs
-- of appended keys (a reads-only script leaves this out: its top level runs again at every call).
-- provides: numberText, stateAt, packState, fieldHash, ledgerField, idOfField, split, secondTtlSec, keepFor,
--           CHANNEL_ONLY, seriesSuffix, seriesOfSuffix
-- requires: now, idiv, int, horizon
-- A number passed to redis.call is written out by sprintf in Redis, ≈ 2,100 instructions a number (40 %
-- of a whole HINCRBY, callgrind); a call's deltas, TTLs and shard numbers repeat, so each one's text is
-- made once per call: numberText[n] for an integer n.
local numberText = setmetatable({}, { __index = function(t, n)
  local text = int(n)
  t[n] = text
  return text
end })

-- A ledger state is `at mod 2^28` · 8 + started · 4 + status (layouts.ts, ledgerState): below 2^31, so
-- Redis keeps it as a 4-byte integer instead of 8. Its `at` is the time with those low bits nearest to
-- now: exact within 37 hours either side, whatever the writers' clocks, and no state lives that long (a
-- ledger entry is dropped or expires within a few periods, at most 2 h 10 min each plus skew).
local STATE_SPAN = 268435456 -- 2^28
local stateRef = now + STATE_SPAN / 2
local function stateAt(state)
  return stateRef - (stateRef - idiv(state, 8)) % STATE_SPAN
end
local function packState(at, started, status)
  return (at % STATE_SPAN) * 8 + started * 4 + status
end

-- A ledger field: the request id's 24 hash bits (the low three bytes of its FNV-1a, high byte first),
-- then the id (ledgerField in layouts.ts). Its ledger shard and its zset shard are read from those bits.
local function fieldHash(field)
  local high, middle, low = string.byte(field, 1, 3)
  return (high * 256 + middle) * 256 + low
end
local function ledgerField(hash, id)
  return string.char(idiv(hash, 65536), idiv(hash, 256) % 256, hash % 256) .. id
end
-- The request id of a ledger field: what follows its three hash bytes.
local function idOfField(field)
  return string.sub(field, 4)
end

local function split(text, sep)
  local parts, start = {}, 1
  while true do
    local i = string.find(text, sep, start, true)
    if not i then
      parts[#parts + 1] = string.sub(text, start)
      return parts
    end
    parts[#parts + 1] = string.sub(text, start, i - 1)
    start = i + 1
  end
end

-- The series list of an outcome counted in its channel's series alone (no dims, no excused twin).
local CHANNEL_ONLY = { '' }

-- Where a failure was counted, kept beside its state (ledger.lua, count-zset.lua) so that a later success
-- takes it back from there whatever dims it carries: nothing for CHANNEL_ONLY, the most common list by far,
-- else a tab before each series.
local function seriesSuffix(series)
  if #series == 1 and series[1] == '' then return '' end
  return '\t' .. table.concat(series, '\t')
end

-- seriesSuffix's list back from the text after its first tab.
local function seriesOfSuffix(text)
  return split(text, '\t')
end

-- The TTL of a key holding one second's data, kept while the second is within the dedup horizon.
local function secondTtlSec(sec)
  return math.ceil((sec * 1000 + 1000 + horizon - now) / 1000) + 60
end

-- Keys whose TTL this call has set already: one EXPIRE per key per call, not per write.
local expiring = {}
local function keepFor(key, ttlSec)
  if not expiring[key] then
    expiring[key] = true
    redis.call('EXPIRE', key, numberText[ttlSec])
  end
end
