// The trim rule under random schedules on a real redis-server: whatever groups exist, whatever each has read
// and acknowledged, trimAcknowledged never removes an entry some group has not acknowledged (pending, or not
// yet delivered), and it removes only entries below its bound.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimAcknowledged } from '../../src/ingest/stream/streamTrim.js';
import { compareIds } from '../../src/ingest/stream/streamReplies.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { startRedis, type LocalRedis } from '../support/redisServer.js';

let redis: LocalRedis;
let connection: RedisConnection;
beforeAll(async () => {
  redis = await startRedis();
  connection = await RedisConnection.connect({ url: redis.url, connectTimeoutMs: 10_000 });
});
afterAll(async () => {
  await connection?.close();
  await redis?.stop();
});

const groupPlan = fc.record({
  /** Entries this group reads (from the start). */
  read: fc.nat({ max: 40 }),
  /** Of those, which it acknowledges. */
  acked: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
});

let run = 0;
describe('trimAcknowledged', () => {
  it('never removes an entry a group has not acknowledged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.array(groupPlan, { minLength: 0, maxLength: 3 }), async (entries, groups) => {
        const key = `trim:${run++}`;
        const ids: string[] = [];
        for (let i = 0; i < entries; i++) ids.push(String(await connection.command(key, ['XADD', key, '*', 'i', i])));
        const needed = new Set<string>();
        for (const [g, plan] of groups.entries()) {
          const name = `g${g}`;
          await connection.command(key, ['XGROUP', 'CREATE', key, name, '0']);
          const read = Math.min(plan.read, entries);
          if (read > 0) await connection.command(key, ['XREADGROUP', 'GROUP', name, 'c', 'COUNT', read, 'STREAMS', key, '>']);
          for (let i = 0; i < entries; i++) {
            if (i < read && plan.acked[i]) await connection.command(key, ['XACK', key, name, ids[i]!]);
            else needed.add(ids[i]!);
          }
        }
        const report = await trimAcknowledged(connection, key, 'g0');
        const left = new Set(((await connection.command(key, ['XRANGE', key, '-', '+'])) as [string, unknown][]).map(([id]) => id));
        for (const id of needed) expect(left.has(id), `unacknowledged ${id} trimmed`).toBe(true);
        if (groups.length === 0) expect(left.size).toBe(entries);
        for (const id of ids) if (!left.has(id)) expect(report.minId !== null && compareIds(id, report.minId) < 0).toBe(true);
        await connection.command(key, ['DEL', key]);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
