-- Reads Current and Before of a recency set; the caller merges, sorts and limits in memory
-- (docs/storage.md, recency sets).
-- KEYS[1] bucket index, KEYS[2..11] ten bucket hashes
-- ARGV none
-- returns {currentFlat, beforeFlat}: each an HGETALL reply {id, "<at>|<meta>", …}
--@include kit-buckets.lua
local index = currentIndex()
return {redis.call('HGETALL', bucketKey(index)), redis.call('HGETALL', bucketKey(index - 1))}
