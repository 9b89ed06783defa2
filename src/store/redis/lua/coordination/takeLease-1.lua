-- One of at most `quota` leases, fleet-wide: a sorted set of holder → expiry (ms). Expired leases are freed
-- first, so a crashed holder's probe slot comes back after its ttl without anyone cleaning up.
-- KEYS[1] the lease set
-- ARGV[1] holder
-- ARGV[2] quota
-- ARGV[3] ttl ms
-- ARGV[4] now ms
-- returns {granted 1|0, live leases after the call}
local now = tonumber(ARGV[4])
local expiry = now + tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
local granted = 0
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  granted = 1
elseif held < tonumber(ARGV[2]) then
  granted = 1
  held = held + 1
end
if granted == 1 then
  redis.call('ZADD', KEYS[1], expiry, ARGV[1])
  -- The set lives as long as its newest lease.
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
end
return {granted, held}
