-- Versioned compare-and-set: of many instances that read version v, exactly one writes v + 1.
-- KEYS[1] the state hash: v = version, s = the caller's value
-- ARGV[1] expected version (0: nothing stored)
-- ARGV[2] new value
-- ARGV[3] ttl ms
-- returns {1, new version} when written; {0, stored version, stored value} otherwise (version 0: absent)
local stored = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
local expected = tonumber(ARGV[1])
if stored ~= expected then
  if stored == 0 then return {0, 0} end
  return {0, stored, redis.call('HGET', KEYS[1], 's')}
end
redis.call('HSET', KEYS[1], 'v', expected + 1, 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, expected + 1}
