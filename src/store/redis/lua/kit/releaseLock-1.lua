-- Compare-and-delete: a holder whose lock expired and was taken never deletes the new one.
-- KEYS[1] lock key
-- ARGV[1] token
-- returns 1 deleted, 0 not ours (expired or taken)
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
