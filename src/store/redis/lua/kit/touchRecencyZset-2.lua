-- Records that `id` reported at `at` in the ZSet design (the design the rolling buckets
-- replace, kept to compare them; docs/background.md), trimmed to `max`.
-- KEYS[1] zset (score = at, member = id), KEYS[2] meta hash (id → meta)
-- ARGV[1] id, ARGV[2] at (epoch ms), ARGV[3] meta (JSON text or ''), ARGV[4] max ids kept, ARGV[5] expiry ms
-- returns 1 written, 0 ignored (a newer report of this id is stored)
--@include chunked.lua
local previous = redis.call('ZSCORE', KEYS[1], ARGV[1])
if previous and tonumber(previous) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if excess > 0 then
  -- Oldest first; equal scores leave in member order, which list() mirrors (ties: larger id first).
  local gone = redis.call('ZRANGE', KEYS[1], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
  chunked('HDEL', KEYS[2], gone)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
