-- Reads the newest entries of a ZSet-design recency set within a time range.
-- KEYS[1] zset, KEYS[2] meta hash
-- ARGV[1] from (epoch ms, inclusive), ARGV[2] to (inclusive), ARGV[3] limit
-- returns {id, at, meta, id, at, meta, …} newest first; equal `at` by member, larger first
--@include chunked.lua
local rows = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[3])
if #rows == 0 then return {} end
local ids = {}
for i = 1, #rows, 2 do ids[#ids + 1] = rows[i] end
local metas = chunked('HMGET', KEYS[2], ids)
local out = {}
for i = 1, #ids do
  out[#out + 1] = ids[i]
  out[#out + 1] = rows[2 * i]
  out[#out + 1] = metas[i] or ''
end
return out
