-- The store's epoch: written once, at first use, and refreshed with every read so it outlives no data and
-- no data outlives it (every other key expires within the retention too). An emptied server has none, so the
-- next caller writes a new one and the history job knows the earlier minutes may be incomplete.
-- KEYS[1] the epoch key
-- ARGV[1] id to write when there is none
-- ARGV[2] now ms (the epoch's start when written)
-- ARGV[3] ttl ms (the retention of the live data)
-- returns `<id>:<startedAt ms>` of the epoch in force
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1] .. ':' .. ARGV[2]
  redis.call('SET', KEYS[1], epoch, 'PX', ARGV[3])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return epoch
