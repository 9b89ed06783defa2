-- Shared by the recency buckets scripts. KEYS[1] is the bucket index; KEYS[2..] the bucket
-- slots used round-robin. Lua's % is a floored modulo, so index - 1 and index - 2 wrap to the last slots.
-- provides: slots, bucketKey, currentIndex
-- requires: (nothing)
local slots = #KEYS - 1
local function bucketKey(index)
  return KEYS[2 + index % slots]
end
local function currentIndex()
  return tonumber(redis.call('GET', KEYS[1]) or '0')
end
