-- A failed handler deletes its mark so a retry can run (docs/background.md, idempotency), but only its own processing mark.
-- KEYS[1] mark hash
-- ARGV[1] token
-- returns 1 deleted, 0 not ours or already done
if redis.call('HGET', KEYS[1], 'state') == 'processing' and redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
