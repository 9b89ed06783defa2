-- Stores the handler's result as `done` for the long TTL (≈ 2× the reconciliation cycle, so a
-- late retry of a reconciled payment still finds it; docs/background.md).
-- KEYS[1] mark hash
-- ARGV[1] token, ARGV[2] fingerprint, ARGV[3] result (JSON text), ARGV[4] ttl ms
-- returns 1 stored; 0 not stored (another owner's mark, or a result is already there: the first one wins)
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'done' then return 0 end
if state == 'processing' and redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
-- Missing mark: our processing mark outlived its TTL, nobody took over; the result is still worth keeping.
redis.call('HSET', KEYS[1], 'state', 'done', 'owner', ARGV[1], 'fp', ARGV[2], 'result', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
