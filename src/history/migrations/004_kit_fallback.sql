-- The kit's callback marks and locks on PostgreSQL, used while Redis is degraded (degradation level ≥ 1) so a
-- duplicate callback during a Redis outage still runs its handler once (docs/background.md: unique indexes are the last
-- guard). Keys are the kit's Redis key names, so both stores agree on what a mark or a lock is called.
-- Expiry uses the database's clock, as Redis uses its own for TTLs; expired rows are taken over in place.
CREATE TABLE IF NOT EXISTS kit_idempotency (
  key          text        PRIMARY KEY,
  state        text        NOT NULL CHECK (state IN ('processing', 'done')),
  owner        text        NOT NULL,
  fingerprint  text        NOT NULL,
  result       text        NOT NULL DEFAULT '',
  expires_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS kit_idempotency_expires_idx ON kit_idempotency (expires_at);

-- One row per lock resource. The row outlives the lease (owner NULL once released), so the fence keeps
-- increasing per resource: max(previous + 1, now ms × 1000), the rule the Redis and memory engines follow.
CREATE TABLE IF NOT EXISTS kit_locks (
  resource     text        PRIMARY KEY,
  owner        text,
  fence        bigint      NOT NULL,
  expires_at   timestamptz NOT NULL
);
