-- The kit's callback marks and locks on PostgreSQL, their one authority when a kit database is configured
-- (src/store/postgres/kitAuthority.ts; docs/background.md: unique indexes are the last guard).
-- Keys are the kit's key names, the same the Redis and memory engines use.
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

-- One row per lock resource (owner NULL once released). Fences come from the sequence of migration 005, so an
-- expired row may be pruned without a later fence falling below it.
CREATE TABLE IF NOT EXISTS kit_locks (
  resource     text        PRIMARY KEY,
  owner        text,
  fence        bigint      NOT NULL,
  expires_at   timestamptz NOT NULL
);
