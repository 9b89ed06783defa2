-- The request ledger (strategy `buckets`): what each request last did, for exact
-- dedup over the dedup horizon, in small hashes `lh:<shard>` whose number follows the channel's volume.
-- Small hashes keep Redis's listpack encoding (≈ 31 B an entry, against ≈ 100 B in one big hash and
-- ≈ 150 B in a sorted set), and a key costs ≈ 100 B of its own: a quiet channel keeps a few shards, a
-- busy one up to `ledgerShards`. Field: the id's 24 hash bits, then the id (ledgerField in layouts.ts);
-- value: the request's state, one integer below 2^31 (header.lua's packState), and for a failure counted
-- in more series than the channel's own, those series (header-writes.lua's seriesSuffix): a later success
-- takes the failure back from them, whatever dims it carries.
--
-- The shards grow by linear hashing: after `splits` splits there are 1 + 3·splits shards; a request's
-- shard is hash mod levelSize, or hash mod 4·levelSize when that first answer is below splitNext (it
-- was split already). A new request whose hash has its four top bits set (one in sixteen) has its
-- shard's length checked, and past LOAD entries a shard on average the next shards in order split in
-- four. Each entry carries the hash bits its future splits read, so a split moves entries by their
-- field alone.
--
-- The common case — a request never seen — costs one call: HSETNX both looks up and writes, made by
-- the record loop itself (writeIfNew). An entry whose `at` is past the horizon is forgotten, and the
-- next life of its id simply overwrites it. To keep the hashes small, a shard drops its forgotten
-- entries the first time it is written in each period of `horizon + skew`, and gets its TTL then: a
-- shard nobody writes for two periods holds only forgotten entries, and expires. A bitmap per period
-- (`lm:<period>`, one bit per shard, read once per call) says which shards were written in it. The
-- number of splits (`lsplits`) lives as long as the period's bitmap.
--
-- A shard not written in the previous period needs no cleaning: its last write came a whole period
-- before this one began, so every entry's `at` (at most that write's `now` + skew) is before
-- `forgetBefore`; and its TTL ended a minute into this period, so it is gone, or nearly.
-- provides: CLAIM_SAVES_STATE, ledgerStateKeys, startLedgerChannel, writeIfNew, claim, lookup, saveState, forget, markStarted,
--           ledgerSplits, countedSeries
-- requires: horizon, skew, now, prefix, int, numberText, idiv, forgetBefore, chunked, ledgerShards, stateAt, packState, fieldHash,
--           FAILURE, CHANNEL_ONLY, seriesSuffix, seriesOfSuffix
local CLAIM_SAVES_STATE = true -- writeIfNew has written a new request's state before claim()
-- Nothing to forget: a forgotten request's ledger entry is simply overwritten by its next life (claim
-- checks the horizon). The zset strategy's forget clears a started mark.
local function forget() end
-- The series a failure was counted in: claim() read them with its state.
local function countedSeries(_, _, counted)
  return counted or CHANNEL_ONLY
end
local periodLength = horizon + skew
local periodNow = math.floor(now / periodLength)
local ledgerTtlSec = math.ceil(((periodNow + 2) * periodLength - now) / 1000) + 60
local FAN_OUT = 4
-- Entries a shard on average: a claim scans a short listpack (≈ 16–40 entries where it lands), and
-- a key's own ≈ 100 B is shared by a few dozen requests.
local LOAD = 16
-- The new requests that check their shard: hashes with their 4 top bits set, above the 18 that address
-- 4^9 shards, so a field's first byte from 240 on. A check may split several shards: one in sixteen
-- keeps up with a channel's growth.
local CHECKED_FROM_BYTE = 240
local SPLITS_A_CHECK = 8
local MAX_SPLITS = (ledgerShards - 1) / (FAN_OUT - 1) -- ledgerShards is a power of FAN_OUT, at most 4^9

local writtenKey, previousKey, splitsKey -- the channel's bitmaps of this period and the previous one, its splits
local writtenBits, previousBits -- their contents, read when first needed in the call
local writtenNow -- shards this call wrote first in the period (true), or emptied by a split (false)
local splits, levelSize, splitNext -- the channel's shard layout, read when first needed in the call
local shardKeys -- shard → key, built once a call

-- A channel's ledger keys read before its writes: this period's bitmap, the previous one's, its splits.
local periodSuffix, previousSuffix = 'lm:' .. int(periodNow), 'lm:' .. int(periodNow - 1)
local function ledgerStateKeys(channelPrefix)
  return channelPrefix .. periodSuffix, channelPrefix .. previousSuffix, channelPrefix .. 'lsplits'
end

local function setSplits(count)
  splits = count
  local size = 1
  while count >= size and size < ledgerShards do
    count = count - size
    size = size * FAN_OUT
  end
  levelSize, splitNext = size, count
end

-- Points the ledger at `prefix`'s channel: a call that records several channels starts each with this,
-- and passes what it read for all of them at once ('' or false for a missing key; nil: read when needed)
-- and the keys it read them from (nil: ledgerStateKeys').
local function startLedgerChannel(written, previous, splitCount, keyWritten, keyPrevious, keySplits)
  if keyWritten then
    writtenKey, previousKey, splitsKey = keyWritten, keyPrevious, keySplits
  else
    writtenKey, previousKey, splitsKey = ledgerStateKeys(prefix)
  end
  writtenBits, previousBits, writtenNow, shardKeys = written, previous, {}, {}
  splits = nil
  if splitCount ~= nil then setSplits(tonumber(splitCount) or 0) end
end
startLedgerChannel()

-- The channel's split count, read when the call first needs it.
local function readSplits()
  if splits == nil then setSplits(tonumber(redis.call('GET', splitsKey)) or 0) end
end

local function shardOf(hash)
  readSplits()
  local shard = hash % levelSize
  if shard < splitNext then shard = hash % (levelSize * FAN_OUT) end
  return shard
end

local function keyOf(shard)
  local key = shardKeys[shard]
  if key == nil then
    key = prefix .. 'lh:' .. shard
    shardKeys[shard] = key
  end
  return key
end

-- A request's shard and its key, from its field's hash bits.
local function shardOfField(field)
  local shard = shardOf(fieldHash(field))
  return shard, keyOf(shard)
end

-- SETBIT numbers bits from the high end of each byte.
local BIT_MASKS = { [0] = 128, 64, 32, 16, 8, 4, 2, 1 }
local byteAt, band = string.byte, bit.band -- asked once per outcome: locals, not global lookups

local function bitSet(bits, shard)
  local bitIndex = shard % 8
  return band(byteAt(bits, (shard - bitIndex) / 8 + 1) or 0, BIT_MASKS[bitIndex]) ~= 0
end

local function readWritten()
  if writtenBits == nil then writtenBits = redis.call('GET', writtenKey) or '' end
end

-- Whether the shard has been written in this period, by this call or before it.
local function shardWritten(shard)
  local known = writtenNow[shard]
  if known ~= nil then return known end
  readWritten()
  return bitSet(writtenBits, shard)
end

-- A value's state number: the whole value, or what comes before the tab of the series after it.
local function stateNumber(raw)
  return tonumber(raw) or tonumber(string.sub(raw, 1, string.find(raw, '\t', 1, true) - 1))
end

-- status, at, started, and the series a failure was counted in (nil: the channel's alone).
local function decode(raw)
  local v = tonumber(raw)
  if v then return v % 4, stateAt(v), idiv(v, 4) % 2, nil end
  local tab = string.find(raw, '\t', 1, true)
  v = tonumber(string.sub(raw, 1, tab - 1))
  return v % 4, stateAt(v), idiv(v, 4) % 2, seriesOfSuffix(string.sub(raw, tab + 1))
end

-- Before the shard's first write of the period: drops its forgotten entries.
local function cleanShard(shard, key)
  writtenNow[shard] = true
  if previousBits == nil then previousBits = redis.call('GET', previousKey) or '' end
  if not bitSet(previousBits, shard) then return end
  local flat, gone = redis.call('HGETALL', key), {}
  for i = 1, #flat, 2 do
    if stateAt(stateNumber(flat[i + 1])) < forgetBefore then gone[#gone + 1] = flat[i] end
  end
  if #gone > 0 and #gone == #flat / 2 then
    redis.call('DEL', key) -- all forgotten: one call, where HDEL would delete entry by entry
  elseif #gone > 0 then
    chunked('HDEL', key, gone)
  end
end

-- After the period's first write (the key exists now): its TTL, and its bit. The period's bitmap is
-- created with a byte per 8 shards the channel has, and its splits get the bitmap's TTL.
local function keepShard(shard, key)
  writtenNow[shard] = true
  redis.call('EXPIRE', key, numberText[ledgerTtlSec])
  readWritten()
  if writtenBits == '' then
    -- What the call read stays what it read: no shard was written before it (writtenNow has its own).
    writtenBits = string.rep('\0', math.ceil((1 + (FAN_OUT - 1) * splits) / 8))
    redis.call('SET', writtenKey, writtenBits, 'EX', numberText[ledgerTtlSec])
    redis.call('EXPIRE', splitsKey, numberText[ledgerTtlSec])
  end
  redis.call('SETBIT', writtenKey, numberText[shard], '1')
end

-- One write (HSETNX or HSET) of a request's state, the shard's first of the period between its
-- cleaning and its TTL.
local function writeShard(shard, key, command, field, state)
  local first = not shardWritten(shard)
  if first then cleanShard(shard, key) end
  local reply = redis.call(command, key, field, state)
  if first then keepShard(shard, key) end
  return reply
end

-- Splits shard splitNext in four: shard + j·levelSize takes the entries whose hash says j (1–3).
local function splitNextShard()
  local source = splitNext
  local sourceKey = keyOf(source)
  local flat, parts = redis.call('HGETALL', sourceKey), {}
  for j = 0, FAN_OUT - 1 do parts[j] = {} end
  for i = 1, #flat, 2 do
    local part = parts[idiv(fieldHash(flat[i]), levelSize) % FAN_OUT]
    part[#part + 1], part[#part + 2] = flat[i], flat[i + 1]
  end
  if #parts[0] == #flat then return end -- nothing moves
  for j = 1, FAN_OUT - 1 do
    if #parts[j] > 0 then
      local shard = source + j * levelSize
      local key = keyOf(shard)
      chunked('HSET', key, parts[j])
      keepShard(shard, key)
    end
  end
  -- What stays is written again (HDEL of the rest scans the listpack once per field), with a TTL of
  -- this period's; forgotten entries move with the rest, and their new shard's cleaning drops them.
  redis.call('DEL', sourceKey)
  if #parts[0] > 0 then
    chunked('HSET', sourceKey, parts[0])
    keepShard(source, sourceKey)
  else
    -- Gone, it is no longer written in the period: its next write gives it a TTL again. (The bitmap
    -- exists: a target's keepShard made it if no write had.)
    writtenNow[source] = false
    redis.call('SETBIT', writtenKey, numberText[source], '0')
  end
end

-- Linear hashing's load factor: past LOAD entries a shard on average, shard splitNext splits. A
-- checked shard's length over its share of the hash space (1/levelSize unsplit, a fourth of that
-- split or new) estimates the channel's entries.
local function growIfFull(shard, key)
  local share = (shard >= splitNext and shard < levelSize) and levelSize or levelSize * FAN_OUT
  local entries, before = redis.call('HLEN', key) * share, splits
  while entries > LOAD * (1 + (FAN_OUT - 1) * splits) and splits < MAX_SPLITS and splits - before < SPLITS_A_CHECK do
    splitNextShard()
    setSplits(splits + 1)
  end
  if splits > before then redis.call('SET', splitsKey, numberText[splits], 'EX', numberText[ledgerTtlSec]) end
end

-- The record loop's first step (record.lua), before it builds the outcome: writes `newState` for the
-- request unless the shard knows it. HSETNX's answer: 1 when the request was unknown, 0 when known.
-- A new request may split a shard, its own included: every later access finds its shard again.
-- The client sends the shard that its last reply's split count gives (`clientSplits`), and that shard's
-- key: while the channel has that many splits the client's shard is the script's, and is taken as it
-- is (a key built here cost ≈ 1 µs of Lua an outcome, docs/decisions/070; finding its shard from the
-- field's hash ≈ 3 % of an outcome's instructions at 2,000 events/s, npm run bench:instructions);
-- otherwise the script finds it.
-- It runs once per outcome: shardWritten and writeShard are written out here, a Lua call each saved.
local function writeIfNew(field, newState, shard, key, clientSplits)
  if splits == nil then readSplits() end
  if splits ~= clientSplits then shard, key = shardOfField(field) end
  local known = writtenNow[shard]
  if known == nil then
    if writtenBits == nil then readWritten() end
    known = bitSet(writtenBits, shard)
  end
  if not known then cleanShard(shard, key) end
  local written = redis.call('HSETNX', key, field, newState)
  if not known then keepShard(shard, key) end
  if written == 1 and byteAt(field, 1) >= CHECKED_FROM_BYTE and splits < MAX_SPLITS then growIfFull(shard, key) end
  return written
end

-- The channel's split count, returned with each record part: the client's next shards follow it.
local function ledgerSplits()
  return splits or 0
end

-- After writeIfNew: a known request's state, unless it is forgotten, which makes it unknown (and
-- `o.newState` is written over it). Returns status (0 = was unknown, its state written), at, started,
-- and the series a failure was counted in (nil: the channel's alone).
local function claim(o, written)
  local status, at, started, counted = 0, 0, 0, nil
  if written == 0 then
    local _, key = shardOfField(o.field)
    status, at, started, counted = decode(redis.call('HGET', key, o.field))
    if at < forgetBefore then
      status, at, started, counted = 0, 0, 0, nil
      redis.call('HSET', key, o.field, o.newState)
    end
  end
  return status, at, started, counted
end

-- Reads a request's state without writing (the timeout sweep).
local function lookup(o)
  local _, key = shardOfField(o.field)
  local raw = redis.call('HGET', key, o.field)
  if raw then
    local status, at, started = decode(raw)
    if at >= forgetBefore then return status, at, started end
  end
  return 0, 0, 0
end

-- `counted`: the series the request's outcome is counted in, when they are not `o.series` (a terminal
-- request marked started keeps its own).
local function saveState(o, status, at, started, counted)
  local shard, key = shardOfField(o.field)
  local state = packState(at, started, status)
  if status == FAILURE then state = state .. seriesSuffix(counted or o.series) end
  writeShard(shard, key, 'HSET', o.field, state)
end

-- A pending outcome for a request already terminal: the request was sent, count it once.
local function markStarted(o, status, at, started, counted)
  if started == 1 then return false end
  saveState(o, status, at, 1, counted or CHANNEL_ONLY)
  return true
end
