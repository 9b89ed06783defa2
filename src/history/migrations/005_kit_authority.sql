-- Lock fences from one sequence: taken under the resource's advisory lock (src/store/postgres/kitAuthority.ts),
-- so they strictly increase per resource even after an expired row is pruned. It starts at the current time in
-- microseconds, above every fence the Redis engine handed out before (max(previous + 1, now ms × 1000)), so
-- writes fenced by an earlier Redis lock never outrank a lock granted here.
CREATE SEQUENCE IF NOT EXISTS kit_lock_fences AS bigint;
SELECT setval('kit_lock_fences', GREATEST(
  (SELECT COALESCE(max(fence), 0) FROM kit_locks),
  (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
));
