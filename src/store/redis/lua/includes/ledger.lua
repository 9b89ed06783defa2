-- The request ledger (strategies `buckets` and `zset-sharded`): what each request last did, for exact
-- dedup over the dedup horizon. Requests live in generations of `horizon + skew` ms by arrival time;
-- a request seen within the horizon is always in the current or the previous generation, so a lookup
-- reads at most two hashes. Each generation is split into `ledgerShards` small hashes by hash(id):
-- small hashes keep Redis's listpack encoding (≈ 30 B an entry against ≈ 130 B in a sorted set).
-- Value: at * 8 + started * 4 + status, one integer (listpack stores it in 9 bytes).
local genLength = horizon + skew
local genNow = math.floor(now / genLength)
-- A generation is read until the end of the next one.
local ledgerTtlSec = math.ceil(((genNow + 2) * genLength - now) / 1000) + 60

local function ledgerKey(gen, hash)
  return prefix .. 'l:' .. int(gen) .. ':' .. int(hash % ledgerShards)
end

-- Returns status (0 = unknown or forgotten), at, started, and the key it was found in.
local function lookup(o)
  local key = ledgerKey(genNow, o.hash)
  local raw = redis.call('HGET', key, o.id)
  if not raw then
    key = ledgerKey(genNow - 1, o.hash)
    raw = redis.call('HGET', key, o.id)
    if not raw then return 0, 0, 0, nil end
  end
  local v = tonumber(raw)
  local at = math.floor(v / 8)
  if at < forgetBefore then return 0, 0, 0, key end
  return v % 4, at, math.floor(v / 4) % 2, key
end

-- Writes a request's state into the current generation, moving it there if it was in the previous
-- one (so it stays findable for a whole horizon from its newest `at`).
local function saveState(o, status, at, started, foundIn)
  local key = ledgerKey(genNow, o.hash)
  if foundIn and foundIn ~= key then redis.call('HDEL', foundIn, o.id) end
  redis.call('HSET', key, o.id, int(at * 8 + started * 4 + status))
  keepFor(key, ledgerTtlSec)
end

-- A pending outcome for a request already terminal: the request was sent, count it once.
local function markStarted(o, status, at, started, foundIn)
  if started == 1 then return false end
  saveState(o, status, at, 1, foundIn)
  return true
end
