-- Takes a lock with SET NX PX and hands out the next fencing number (Kleppmann's fencing: a
-- holder paused past its TTL is refused by a store that saw a larger number; docs/background.md).
-- KEYS[1] lock key (value = holder token)
-- KEYS[2] fence counter of the resource
-- ARGV[1] token, ARGV[2] ttl ms, ARGV[3] caller's clock now (epoch ms), ARGV[4] fence counter ttl ms
-- returns {1, fence} when acquired (fence as a decimal string: it exceeds Lua's %.14g precision),
--         {0, pttl} when someone else holds the lock
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  -- max(previous + 1, now × 1000): strictly increasing while the counter lives, and above every earlier
  -- fence even if the counter is lost with a restarted server (the SQL guard `fence < $1` keeps working).
  local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
  local fence = math.max(previous + 1, tonumber(ARGV[3]) * 1000)
  local text = string.format('%.0f', fence)
  redis.call('SET', KEYS[2], text, 'PX', ARGV[4])
  return {1, text}
end
return {0, redis.call('PTTL', KEYS[1])}
