-- Compare-and-expire: the watchdog renews only a lock it still holds (a lost lock renewed would
-- be held twice).
-- KEYS[1] lock key
-- ARGV[1] token, ARGV[2] new ttl ms
-- returns 1 extended, 0 not ours (expired, taken, or lost with a restarted server)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
