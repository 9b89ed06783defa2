// The PostgreSQL kit authority on both SQL engines (embedded PGlite, a PostgreSQL server): one winner among
// concurrent grants, statements that may be resent with the same token, fences that keep rising after expired
// rows are pruned, and the public option that builds it from a URL or a client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PayPulseError } from '../../src/errors.js';
import { migrate } from '../../src/history/migrate.js';
import type { SqlClient } from '../../src/store/ports/sqlClient.js';
import { createPulse } from '../../src/index.js';
import { kitKeys } from '../../src/store/keys/kit.js';
import { createPostgresKitAuthority, type KitAuthority } from '../../src/store/postgres/kitAuthority.js';
import { backends } from '../history/databases.js';

const keys = kitKeys('authority');

describe.each(backends)('kit authority on $name', (backend) => {
  let db: SqlClient;
  let authority: KitAuthority;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await backend.open();
    db = opened.db;
    dispose = opened.dispose;
    await migrate(db);
    authority = createPostgresKitAuthority(db);
  });
  afterAll(async () => {
    await dispose();
  });

  it('grants a lock to one of many concurrent callers, and a mark to one', async () => {
    const lock = keys.lock('concurrent');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => authority.acquireLock(lock, `t${i}`, 5_000, Date.now())));
    expect(replies.filter((r) => r.acquired)).toHaveLength(1);
    const marks = await Promise.all(Array.from({ length: 20 }, (_, i) => authority.beginIdempotent(keys.idempotency('once'), `t${i}`, '', 5_000, Date.now())));
    expect(marks.filter((m) => m.state === 'acquired')).toHaveLength(1);
  });

  it('answers a statement resent with the same token as the first time', async () => {
    const key = keys.idempotency('resent');
    expect(await authority.beginIdempotent(key, 'a', '', 5_000, Date.now())).toEqual({ state: 'acquired' });
    expect(await authority.beginIdempotent(key, 'a', '', 5_000, Date.now())).toEqual({ state: 'acquired' });
    expect((await authority.beginIdempotent(key, 'b', '', 5_000, Date.now())).state).toBe('processing');
    expect(await authority.completeIdempotent(key, 'a', '', '"r"', 60_000)).toBe(true);
    expect(await authority.completeIdempotent(key, 'a', '', '"r"', 60_000)).toBe(true);
    expect(await authority.beginIdempotent(key, 'b', '', 5_000, Date.now())).toEqual({ state: 'done', result: '"r"' });
    const lock = keys.lock('resent');
    const first = await authority.acquireLock(lock, 'a', 5_000, Date.now());
    const again = await authority.acquireLock(lock, 'a', 5_000, Date.now());
    expect(first.acquired && again.acquired && again.fence > first.fence).toBe(true);
    expect((await authority.acquireLock(lock, 'b', 5_000, Date.now())).acquired).toBe(false);
    expect(await authority.extendLock(lock, 'a', 5_000)).toBe(true);
    expect(await authority.extendLock(lock, 'a', 5_000)).toBe(true);
  });

  it('keeps fences rising per resource after its expired row is pruned', async () => {
    const lock = keys.lock('pruned');
    const first = await authority.acquireLock(lock, 'a', 1, Date.now());
    await db.query(`UPDATE kit_locks SET expires_at = now() - interval '2 minutes' WHERE resource = $1`, [lock.lock]);
    await db.query(`DELETE FROM kit_locks WHERE expires_at < now() - interval '1 minute'`);
    expect(await db.query('SELECT 1 FROM kit_locks WHERE resource = $1', [lock.lock])).toEqual([]);
    const second = await authority.acquireLock(lock, 'b', 5_000, Date.now());
    expect(first.acquired && second.acquired && second.fence > first.fence).toBe(true);
    // Above every fence the Redis engine gave before the migration: max(previous + 1, now ms × 1000).
    expect(first.acquired && first.fence).toBeGreaterThan(Date.UTC(2026, 0, 1) * 1000);
  });

  it('is what createPulse({ kitDatabase: client }) takes its marks and locks from', async () => {
    const pulse = await createPulse({ clock: new ManualClock(Date.now()), kitDatabase: db, namespace: `authority${backend.name}` });
    try {
      let runs = 0;
      await pulse.idempotency.run('order-1', { processingMs: 5_000 }, () => runs++);
      const rows = await db.query<{ key: string }>(`SELECT key FROM kit_idempotency WHERE key LIKE '%order-1%'`);
      expect(rows).toHaveLength(1);
      expect(await pulse.idempotency.run('order-1', { processingMs: 5_000 }, () => runs++)).toMatchObject({ status: 'duplicate' });
      expect(runs).toBe(1);
    } finally {
      await pulse.close();
    }
  });
});

describe('the kitDatabase option', () => {
  it('refuses what is neither a PostgreSQL URL nor a SQL client, naming the option', async () => {
    await expect(createPulse({ kitDatabase: 'mysql://localhost/x' })).rejects.toThrow(PayPulseError);
    await expect(createPulse({ kitDatabase: 'mysql://localhost/x' })).rejects.toThrow(/kitDatabase/);
    await expect(createPulse({ kitDatabase: {} as SqlClient })).rejects.toThrow(/kitDatabase/);
  });
});
