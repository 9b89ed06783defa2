-- The request ledger (strategies `buckets` and `zset-sharded`): what each request last did, for exact
-- dedup over the dedup horizon. Requests live in generations of `horizon + skew` ms by arrival time;
-- a request seen within the horizon is always in the current or the previous generation. Each
-- generation is split into `ledgerShards` small hashes by hash(id): small hashes keep Redis's listpack
-- encoding (≈ 35 B an entry, against ≈ 100 B in one big hash and ≈ 150 B in a sorted set).
-- Value: at * 8 + started * 4 + status, one integer (at most 14 digits, exact through Lua's %.14g).
--
-- Redis CPU per outcome is dominated by calls, so the common case — a request never seen — costs one
-- call: HSETNX both looks up and writes. A bitmap per generation (`lm:<gen>`, one bit per shard, read
-- once per call) says which shard keys exist, so a shard key gets its TTL once in its life and shard
-- keys of the previous generation that were never written are not looked up.
local genLength = horizon + skew
local genNow = math.floor(now / genLength)
-- A generation is read until the end of the next one.
local ledgerTtlSec = math.ceil(((genNow + 2) * genLength - now) / 1000) + 60
local CLAIM_WRITES = true
local anyPending -- only the zset strategy looks pendings up outside its ledger

local ledgerPrefixes = { [genNow] = prefix .. 'l:' .. int(genNow) .. ':', [genNow - 1] = prefix .. 'l:' .. int(genNow - 1) .. ':' }
local function ledgerKey(gen, shard)
  return ledgerPrefixes[gen] .. shard
end

local madeKeys = { [genNow] = prefix .. 'lm:' .. int(genNow), [genNow - 1] = prefix .. 'lm:' .. int(genNow - 1) }
local madeBits = {}
local madeNow, madeList = {}, {} -- shards this call made: as a set, and in order

local function shardMade(gen, shard)
  local bits = madeBits[gen]
  if bits == nil then
    bits = redis.call('GET', madeKeys[gen]) or ''
    madeBits[gen] = bits
  end
  local byte = string.byte(bits, math.floor(shard / 8) + 1) or 0
  return bit.band(byte, bit.rshift(128, shard % 8)) ~= 0 -- SETBIT numbers bits from the high end
end

-- Called after a write that may have created the key: its TTL is set once, when it is born.
local function noteShardWritten(shard, key)
  if madeNow[shard] or shardMade(genNow, shard) then return end
  madeNow[shard] = true
  madeList[#madeList + 1] = shard
  redis.call('EXPIRE', key, ledgerTtlSec)
end

-- The shards made by this call go into the bitmap with one SET, not one SETBIT each.
local function flushLedger()
  if #madeList == 0 then return end
  local bits = madeBits[genNow]
  local bytes = { string.byte(bits, 1, -1) }
  for i = #bytes + 1, math.ceil(ledgerShards / 8) do bytes[i] = 0 end
  for _, shard in ipairs(madeList) do
    local i = math.floor(shard / 8) + 1
    bytes[i] = bit.bor(bytes[i], bit.rshift(128, shard % 8))
  end
  local parts = {}
  for i = 1, #bytes, 4000 do parts[#parts + 1] = string.char(unpack(bytes, i, math.min(i + 3999, #bytes))) end
  -- Every call of a generation computes the same expiry, to the second: setting it again moves nothing.
  redis.call('SET', madeKeys[genNow], table.concat(parts), 'EX', ledgerTtlSec)
end

local function decode(raw)
  local v = tonumber(raw)
  return v % 4, math.floor(v / 8), math.floor(v / 4) % 2
end

-- Looks the request up; when it is unknown (or forgotten) writes `fresh` for it in the same step.
-- Returns status (0 = was unknown, `fresh` written), at, started, and the key holding the state.
local function claim(o, fresh)
  local shard = o.hash % ledgerShards
  if shardMade(genNow - 1, shard) then
    local oldKey = ledgerKey(genNow - 1, shard)
    local raw = redis.call('HGET', oldKey, o.id)
    if raw then
      local status, at, started = decode(raw)
      if at >= forgetBefore then return status, at, started, oldKey end
    end
  end
  local key = ledgerKey(genNow, shard)
  if redis.call('HSETNX', key, o.id, fresh) == 1 then
    noteShardWritten(shard, key)
    return 0, 0, 0, key
  end
  local status, at, started = decode(redis.call('HGET', key, o.id))
  if at >= forgetBefore then return status, at, started, key end
  redis.call('HSET', key, o.id, fresh)
  return 0, 0, 0, key
end

-- Reads a request's state without writing (the timeout sweep).
local function lookup(o)
  local shard = o.hash % ledgerShards
  for gen = genNow, genNow - 1, -1 do
    if gen == genNow or shardMade(gen, shard) then
      local key = ledgerKey(gen, shard)
      local raw = redis.call('HGET', key, o.id)
      if raw then
        local status, at, started = decode(raw)
        if at < forgetBefore then return 0, 0, 0, key end
        return status, at, started, key
      end
    end
  end
  return 0, 0, 0, nil
end

-- Writes a request's state into the current generation, moving it there from the previous one (so it
-- stays findable for a whole horizon from its newest `at`).
local function saveState(o, status, at, started, foundIn)
  local shard = o.hash % ledgerShards
  local key = ledgerKey(genNow, shard)
  if foundIn and foundIn ~= key then redis.call('HDEL', foundIn, o.id) end
  redis.call('HSET', key, o.id, at * 8 + started * 4 + status)
  noteShardWritten(shard, key)
end

-- A forgotten request's ledger entry is simply overwritten by its next life (claim checks the horizon).
local function forget() end

-- A pending outcome for a request already terminal: the request was sent, count it once.
local function markStarted(o, status, at, started, foundIn)
  if started == 1 then return false end
  saveState(o, status, at, 1, foundIn)
  return true
end
