// The kit's callback marks and locks on PostgreSQL, their one authority when a kit database is configured
// (migrations 004 and 005; docs/decisions/010-kit-authority.md). No other store is asked about a mark or a lock,
// at any degradation level, so there is no transition between stores to get wrong. What it promises:
//   - a handler runs once per key: a mark is taken by one statement whose ON CONFLICT grants it only when the
//     stored mark is absent, expired or the caller's own; a failed run deletes it, so a retry may run;
//   - at most one holder per lock at any moment: a grant needs the row free (released or expired by the
//     database's clock), and the row lock orders every grant, release and extension of a resource;
//   - fences strictly increase per resource: each is a `nextval` taken while the resource's advisory lock is
//     held, so of two grants the later one draws the later value, even after an expired row was pruned.
// Every statement may be sent again with the same token and leaves the same state (the caller's own mark or lock
// is granted, completed or extended again), so a statement cut off with its connection is retried a few times
// before the caller gets StoreUnavailableError: the kit then fails closed, never open.
import { StoreUnavailableError } from '../../errors.js';
import type { SqlClient } from '../ports/sqlClient.js';
import type { AcquireLockReply, BeginIdempotentReply, KitStore, LockKeys } from '../ports/kit.js';

export type KitAuthority = Pick<
  KitStore,
  'acquireLock' | 'releaseLock' | 'extendLock' | 'beginIdempotent' | 'completeIdempotent' | 'abandonIdempotent'
>;

const ms = (param: number) => `($${param}::float8 * interval '1 millisecond')`;
const remainingMs = `GREATEST(0, extract(epoch FROM expires_at - now()) * 1000)::float8`;
/** A race lost to a row that then expired or went: try again, a few times at most. */
const maxAttempts = 5;
/** Pauses before sending a failed statement again (a killed session reconnects in about this long). */
const resendAfterMs = [20, 100, 400];
/** Expired rows are pruned after this many grants, at most this many per table at a time: the tables stay bounded. */
const pruneEveryGrants = 256;
const pruneLimit = 1000;

async function resent<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= resendAfterMs.length) throw new StoreUnavailableError(err);
      await new Promise((resolve) => setTimeout(resolve, resendAfterMs[attempt]));
    }
  }
}

async function beginIdempotent(db: SqlClient, key: string, token: string, fingerprint: string, processingMs: number): Promise<BeginIdempotentReply> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const acquired = await db.query(
      `INSERT INTO kit_idempotency (key, state, owner, fingerprint, expires_at) VALUES ($1, 'processing', $2, $3, now() + ${ms(4)})
       ON CONFLICT (key) DO UPDATE
          SET state = 'processing', owner = EXCLUDED.owner, fingerprint = EXCLUDED.fingerprint, result = '', expires_at = EXCLUDED.expires_at
        WHERE kit_idempotency.expires_at <= now()
           OR (kit_idempotency.owner = EXCLUDED.owner AND kit_idempotency.state = 'processing')
       RETURNING 1`,
      [key, token, fingerprint, processingMs],
    );
    if (acquired.length > 0) return { state: 'acquired' };
    const [mark] = await db.query<{ state: string; fingerprint: string; result: string; ttl_ms: number }>(
      `SELECT state, fingerprint, result, ${remainingMs} AS ttl_ms FROM kit_idempotency WHERE key = $1 AND expires_at > now()`,
      [key],
    );
    if (!mark) continue;
    if (fingerprint !== '' && mark.fingerprint !== '' && mark.fingerprint !== fingerprint) return { state: 'mismatch' };
    if (mark.state === 'done') return { state: 'done', result: mark.result };
    return { state: 'processing', retryAfterMs: Math.max(1, Math.ceil(Number(mark.ttl_ms))) };
  }
  return { state: 'processing', retryAfterMs: 1 };
}

async function acquireLock(db: SqlClient, keys: LockKeys, token: string, ttlMs: number): Promise<AcquireLockReply> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    // The advisory lock is taken (scanning `serial`) before nextval is drawn, and held to commit.
    const [won] = await db.query<{ fence: string }>(
      `WITH serial AS (SELECT pg_advisory_xact_lock(hashtextextended($1, 0)))
       INSERT INTO kit_locks (resource, owner, fence, expires_at)
       SELECT $1, $2, nextval('kit_lock_fences'), now() + ${ms(3)} FROM serial
       ON CONFLICT (resource) DO UPDATE
          SET owner = EXCLUDED.owner, fence = EXCLUDED.fence, expires_at = EXCLUDED.expires_at
        WHERE kit_locks.owner IS NULL OR kit_locks.expires_at <= now() OR kit_locks.owner = EXCLUDED.owner
       RETURNING fence::text AS fence`,
      [keys.lock, token, ttlMs],
    );
    if (won) return { acquired: true, fence: Number(won.fence) };
    const [held] = await db.query<{ ttl_ms: number }>(
      `SELECT ${remainingMs} AS ttl_ms FROM kit_locks WHERE resource = $1 AND owner IS NOT NULL AND expires_at > now()`,
      [keys.lock],
    );
    if (held) return { acquired: false, retryAfterMs: Math.max(1, Math.ceil(Number(held.ttl_ms))) };
  }
  return { acquired: false, retryAfterMs: 1 };
}

/** Deletes a bounded number of rows that expired a while ago: an expired row is no mark and no lock. */
async function pruneExpired(db: SqlClient): Promise<void> {
  for (const [table, column] of [['kit_idempotency', 'key'], ['kit_locks', 'resource']] as const) {
    await db.query(
      `DELETE FROM ${table} WHERE ${column} IN (
         SELECT ${column} FROM ${table} WHERE expires_at < now() - interval '1 minute' LIMIT ${pruneLimit})`,
    );
  }
}

export function createPostgresKitAuthority(db: SqlClient): KitAuthority {
  let grants = 0;
  const granted = () => {
    if (++grants % pruneEveryGrants === 0) void pruneExpired(db).catch(() => undefined);
  };
  return {
    async beginIdempotent(key, token, fingerprint, processingMs) {
      const reply = await resent(() => beginIdempotent(db, key, token, fingerprint, processingMs));
      if (reply.state === 'acquired') granted();
      return reply;
    },
    async completeIdempotent(key, token, fingerprint, result, ttlMs) {
      const rows = await resent(() => db.query(
        `INSERT INTO kit_idempotency (key, state, owner, fingerprint, result, expires_at) VALUES ($1, 'done', $2, $3, $4, now() + ${ms(5)})
         ON CONFLICT (key) DO UPDATE
            SET state = 'done', owner = EXCLUDED.owner, fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result, expires_at = EXCLUDED.expires_at
          WHERE kit_idempotency.expires_at <= now() OR kit_idempotency.owner = EXCLUDED.owner
         RETURNING 1`,
        [key, token, fingerprint, result, ttlMs],
      ));
      return rows.length > 0;
    },
    async abandonIdempotent(key, token) {
      const rows = await resent(() => db.query(
        `DELETE FROM kit_idempotency WHERE key = $1 AND state = 'processing' AND owner = $2 AND expires_at > now() RETURNING 1`,
        [key, token],
      ));
      return rows.length > 0;
    },
    async acquireLock(keys, token, ttlMs) {
      const reply = await resent(() => acquireLock(db, keys, token, ttlMs));
      if (reply.acquired) granted();
      return reply;
    },
    async releaseLock(keys, token) {
      const rows = await resent(() => db.query(
        `UPDATE kit_locks SET owner = NULL, expires_at = now() WHERE resource = $1 AND owner = $2 AND expires_at > now() RETURNING 1`,
        [keys.lock, token],
      ));
      return rows.length > 0;
    },
    async extendLock(keys, token, ttlMs) {
      const rows = await resent(() => db.query(
        `UPDATE kit_locks SET expires_at = now() + ${ms(3)} WHERE resource = $1 AND owner = $2 AND expires_at > now() RETURNING 1`,
        [keys.lock, token, ttlMs],
      ));
      return rows.length > 0;
    },
  };
}
