-- First step of a callback: mark `processing` with a short TTL if nobody did yet.
-- KEYS[1] mark hash: state (processing|done), owner token, fp (request fingerprint), result, startedAt
-- ARGV[1] token, ARGV[2] fingerprint ('' none), ARGV[3] processing ttl ms, ARGV[4] caller's now (epoch ms)
-- returns {1} acquired (caller runs the handler)
--         {2, pttl} someone is processing
--         {3, result} done: the stored result (JSON text)
--         {-1} the key was used with a different fingerprint
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('HSET', KEYS[1], 'state', 'processing', 'owner', ARGV[1], 'fp', ARGV[2], 'startedAt', ARGV[4])
  -- A crashed handler leaves a mark that expires after the processing time, not after 48 h.
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {1}
end
local fp = redis.call('HGET', KEYS[1], 'fp')
if ARGV[2] ~= '' and fp and fp ~= '' and fp ~= ARGV[2] then
  return {-1}
end
if state == 'done' then
  return {3, redis.call('HGET', KEYS[1], 'result')}
end
return {2, redis.call('PTTL', KEYS[1])}
