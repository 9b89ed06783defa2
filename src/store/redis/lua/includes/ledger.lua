-- The request ledger (strategies `buckets` and `zset-sharded`): what each request last did, for exact
-- dedup over the dedup horizon, in `ledgerShards` small hashes `l:<shard>` by hash(id), their keys
-- sent by the client with each outcome (`o.ledgerKey`, built in keys/stats.ts). Small hashes
-- keep Redis's listpack encoding (≈ 31 B an entry, against ≈ 100 B in one big hash and ≈ 150 B in a
-- sorted set). Value: the request's state, one integer below 2^31 (header.lua's packState; ledgerState
-- in layouts.ts).
--
-- The common case — a request never seen — costs one call: HSETNX both looks up and writes, made by
-- the record loop itself (writeIfNew). An entry whose `at` is past the horizon is forgotten, and the
-- next life of its id simply overwrites it. To keep the hashes small, a shard drops its forgotten
-- entries the first time it is written in each period of `horizon + skew`, and gets its TTL then: a
-- shard nobody writes for two periods holds only forgotten entries, and expires. A bitmap per period
-- (`lm:<period>`, one bit per shard, read once per call) says which shards were written in it.
--
-- A shard not written in the previous period needs no cleaning: its last write came a whole period
-- before this one began, so every entry's `at` (at most that write's `now` + skew) is before
-- `forgetBefore`; and its TTL ended a minute into this period, so it is gone, or nearly.
-- provides: CLAIM_SAVES_STATE, ledgerBitmapKeys, startLedgerChannel, writeIfNew, claim, lookup, saveState, forget, markStarted
-- requires: horizon, skew, now, prefix, int, idiv, forgetBefore, chunked, ledgerShards, stateAt, packState
local periodLength = horizon + skew
local periodNow = math.floor(now / periodLength)
local ledgerTtlSec = math.ceil(((periodNow + 2) * periodLength - now) / 1000) + 60
local CLAIM_SAVES_STATE = true -- writeIfNew has written a new request's state before claim()

local writtenKey, previousKey -- the channel's bitmaps of this period and the previous one
local writtenBits, previousBits -- their contents, read when first needed in the call
local writtenNow -- shards this call wrote first in the period

-- A channel's bitmap keys: this period's, and the previous one's (the same suffixes for every channel).
local periodSuffix, previousSuffix = 'lm:' .. int(periodNow), 'lm:' .. int(periodNow - 1)
local function ledgerBitmapKeys(channelPrefix)
  return channelPrefix .. periodSuffix, channelPrefix .. previousSuffix
end

-- Points the ledger at `prefix`'s channel: a call that records several channels starts each with this,
-- and passes the bitmaps it read for all of them at once ('' for a missing one; nil: read when needed).
local function startLedgerChannel(written, previous)
  writtenKey, previousKey = ledgerBitmapKeys(prefix)
  writtenBits, previousBits, writtenNow = written, previous, {}
end
startLedgerChannel()

-- SETBIT numbers bits from the high end of each byte.
local BIT_MASKS = { [0] = 128, 64, 32, 16, 8, 4, 2, 1 }
local byteAt, band = string.byte, bit.band -- asked once per outcome: locals, not global lookups

local function bitSet(bits, shard)
  local bitIndex = shard % 8
  return band(byteAt(bits, (shard - bitIndex) / 8 + 1) or 0, BIT_MASKS[bitIndex]) ~= 0
end

-- Whether the shard has been written in this period, by this call or before it.
local function shardWritten(shard)
  if writtenNow[shard] then return true end
  if writtenBits == nil then writtenBits = redis.call('GET', writtenKey) or '' end
  return bitSet(writtenBits, shard)
end

local function decode(raw)
  local v = tonumber(raw)
  return v % 4, stateAt(v), idiv(v, 4) % 2
end

-- Before the shard's first write of the period: drops its forgotten entries.
local function cleanShard(shard, key)
  writtenNow[shard] = true
  if previousBits == nil then previousBits = redis.call('GET', previousKey) or '' end
  if not bitSet(previousBits, shard) then return end
  local flat, gone = redis.call('HGETALL', key), {}
  for i = 1, #flat, 2 do
    if stateAt(tonumber(flat[i + 1])) < forgetBefore then gone[#gone + 1] = flat[i] end
  end
  if #gone > 0 and #gone == #flat / 2 then
    redis.call('DEL', key) -- all forgotten: one call, where HDEL would delete entry by entry
  elseif #gone > 0 then
    chunked('HDEL', key, gone)
  end
end

-- After the period's first write (the key exists now): its TTL, and its bit. A period's bitmap is
-- created whole, with its TTL: grown by SETBIT, Redis doubles a string's allocation as it grows, and
-- the bitmap took ≈ 4 KB a channel instead of ledgerShards / 8 bytes.
local function keepShard(shard, key)
  redis.call('EXPIRE', key, ledgerTtlSec)
  if writtenBits == '' then
    -- What the call read stays what it read: no shard was written before it (writtenNow has its own).
    writtenBits = string.rep('\0', math.ceil(ledgerShards / 8))
    redis.call('SET', writtenKey, writtenBits, 'EX', ledgerTtlSec)
  end
  redis.call('SETBIT', writtenKey, shard, 1)
end

-- One write (HSETNX or HSET) of a request's state, the shard's first of the period between its
-- cleaning and its TTL.
local function writeShard(shard, key, command, id, state)
  local first = not shardWritten(shard)
  if first then cleanShard(shard, key) end
  local reply = redis.call(command, key, id, state)
  if first then keepShard(shard, key) end
  return reply
end

-- The record loop's first step (ops.lua), before it builds the outcome: writes `newState` for the
-- request unless the shard knows it. HSETNX's answer: 1 when the request was unknown, 0 when known.
local function writeIfNew(shard, key, id, newState)
  return writeShard(shard, key, 'HSETNX', id, newState)
end

-- After writeIfNew: a known request's state, unless it is forgotten, which makes it unknown (and
-- `o.newState` is written over it). Returns status (0 = was unknown, its state written), at, started.
local function claim(o, written)
  local status, at, started = 0, 0, 0
  if written == 0 then
    local key = o.ledgerKey
    status, at, started = decode(redis.call('HGET', key, o.id))
    if at < forgetBefore then
      status, at, started = 0, 0, 0
      redis.call('HSET', key, o.id, o.newState)
    end
  end
  return status, at, started
end

-- Reads a request's state without writing (the timeout sweep).
local function lookup(o)
  local raw = redis.call('HGET', o.ledgerKey, o.id)
  if raw then
    local status, at, started = decode(raw)
    if at >= forgetBefore then return status, at, started end
  end
  return 0, 0, 0
end

local function saveState(o, status, at, started)
  writeShard(o.shard, o.ledgerKey, 'HSET', o.id, packState(at, started, status))
end

-- Nothing to forget: a forgotten request's ledger entry is simply overwritten by its next life (claim
-- checks the horizon). The zset strategy's forget clears a started mark.
local function forget() end

-- A pending outcome for a request already terminal: the request was sent, count it once.
local function markStarted(o, status, at, started)
  if started == 1 then return false end
  saveState(o, status, at, 1)
  return true
end
