-- Records that `id` reported at `at` into the Current bucket (the Before / Current / Next
-- rolling buckets, docs/storage.md).
-- KEYS[1] bucket index, KEYS[2..11] ten bucket hashes (id → "<at>|<meta>")
-- ARGV[1] id, ARGV[2] at (epoch ms), ARGV[3] meta (JSON text or ''), ARGV[4] bucket capacity, ARGV[5] expiry ms
-- returns 1 written, 0 ignored (Current already holds a newer report of this id)
--@include kit-buckets.lua
local index = currentIndex()
local current = bucketKey(index)
local stored = redis.call('HGET', current, ARGV[1])
if stored then
  -- An older report (re-parsed data, clock drift) never overwrites a newer one.
  if tonumber(string.match(stored, '^(%d+)')) > tonumber(ARGV[2]) then return 0 end
elseif redis.call('HLEN', current) >= tonumber(ARGV[4]) then
  -- Current is full: it becomes Before, Next becomes Current, the old Before retires. In Lua this index
  -- advance is atomic, which a compare-and-set would otherwise have to ensure; UNLINK frees the big hash off the main thread.
  index = (index + 1) % slots
  redis.call('SET', KEYS[1], index, 'PX', ARGV[5])
  redis.call('UNLINK', bucketKey(index - 2))
  redis.call('UNLINK', bucketKey(index))
  current = bucketKey(index)
end
redis.call('HSET', current, ARGV[1], ARGV[2] .. '|' .. ARGV[3])
-- Expiry backstop: a bucket nobody wrote for `within + tolerance` holds nothing a query may return.
redis.call('PEXPIRE', current, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
