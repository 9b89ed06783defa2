-- The request ledger (strategies `buckets` and `zset-sharded`): what each request last did, for exact
-- dedup over the dedup horizon, in `ledgerShards` small hashes `l:<shard>` by hash(id). Small hashes
-- keep Redis's listpack encoding (≈ 35 B an entry, against ≈ 100 B in one big hash and ≈ 150 B in a
-- sorted set). Value: at * 8 + started * 4 + status, one integer (at most 14 digits, exact as text).
--
-- Redis CPU per outcome is dominated by calls, so the common case — a request never seen — costs one
-- call: HSETNX both looks up and writes. An entry whose `at` is past the horizon is forgotten, and the
-- next life of its id simply overwrites it. To keep the hashes small, a shard drops its forgotten
-- entries the first time it is written in each period of `horizon + skew`, and gets its TTL then: a
-- shard nobody writes for two periods holds only forgotten entries, and expires. A bitmap per period
-- (`lm:<period>`, one bit per shard, read once per call) says which shards were written in it.
local periodLength = horizon + skew
local periodNow = math.floor(now / periodLength)
local ledgerTtlSec = math.ceil(((periodNow + 2) * periodLength - now) / 1000) + 60
local CLAIM_WRITES = true
local anyPending -- only the zset strategy looks pendings up outside its ledger

local ledgerPrefix = prefix .. 'l:'
local writtenKey = prefix .. 'lm:' .. int(periodNow)
local writtenBits -- the bitmap, read at the first write of the call
local writtenNow = {} -- shards this call wrote first in the period

-- SETBIT numbers bits from the high end of each byte.
local BIT_MASKS = { [0] = 128, 64, 32, 16, 8, 4, 2, 1 }

local function writtenBefore(shard)
  if writtenBits == nil then writtenBits = redis.call('GET', writtenKey) or '' end
  local byte = string.byte(writtenBits, idiv(shard, 8) + 1) or 0
  return bit.band(byte, BIT_MASKS[shard % 8]) ~= 0
end

-- `o.shardName`: the shard number as text, sent by the client (Lua writes numbers through sprintf).
local function shardKey(o)
  return ledgerPrefix .. o.shardName
end

local function decode(raw)
  local v = tonumber(raw)
  return v % 4, idiv(v, 8), idiv(v, 4) % 2
end

-- Before a write: the shard's first write of the period drops its forgotten entries first. Returns
-- whether this is that first write, after which the caller calls keepShard.
local function firstWrite(o, key)
  if writtenNow[o.shard] or writtenBefore(o.shard) then return false end
  writtenNow[o.shard] = true
  local flat, gone = redis.call('HGETALL', key), {}
  for i = 1, #flat, 2 do
    if idiv(tonumber(flat[i + 1]), 8) < forgetBefore then gone[#gone + 1] = flat[i] end
  end
  if #gone > 0 then chunked('HDEL', key, gone) end
  return true
end

-- After the period's first write (the key exists now): its TTL, and its bit.
local function keepShard(o, key)
  redis.call('EXPIRE', key, ledgerTtlSec)
  if redis.call('SETBIT', writtenKey, o.shard, 1) == 0 and writtenBits == '' then
    redis.call('EXPIRE', writtenKey, ledgerTtlSec)
  end
end

-- Looks the request up; when it is unknown (or forgotten) writes `fresh` for it in the same step.
-- Returns status (0 = was unknown, `fresh` written), at, started, and the key holding the state.
local function claim(o, fresh)
  local key = shardKey(o)
  local first = firstWrite(o, key)
  local status, at, started = 0, 0, 0
  if redis.call('HSETNX', key, o.id, fresh) == 0 then
    status, at, started = decode(redis.call('HGET', key, o.id))
    if at < forgetBefore then
      status, at, started = 0, 0, 0
      redis.call('HSET', key, o.id, fresh)
    end
  end
  if first then keepShard(o, key) end
  return status, at, started, key
end

-- Reads a request's state without writing (the timeout sweep).
local function lookup(o)
  local key = shardKey(o)
  local raw = redis.call('HGET', key, o.id)
  if raw then
    local status, at, started = decode(raw)
    if at >= forgetBefore then return status, at, started, key end
  end
  return 0, 0, 0, nil
end

local function saveState(o, status, at, started)
  local key = shardKey(o)
  local first = firstWrite(o, key)
  redis.call('HSET', key, o.id, at * 8 + started * 4 + status)
  if first then keepShard(o, key) end
end

-- A forgotten request's ledger entry is simply overwritten by its next life (claim checks the horizon).
local function forget() end

-- A pending outcome for a request already terminal: the request was sent, count it once.
local function markStarted(o, status, at, started)
  if started == 1 then return false end
  saveState(o, status, at, 1)
  return true
end
