// `npx tsx bench/engine/dimsFailureCost.ts`: what Redis keeps per failed request, with and without dims, on
// each strategy. A failure counted in dims series is remembered with those series so that a later success
// can take it back from them (docs/storage.md): this measures what that memory costs. Each row is a fresh
// redis-server and 20,000 failures (20-character ids, 500 a batch, within one virtual minute); memory is
// `used_memory` after the pulse's first read, before and after the batches.
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import type { Outcome, Strategy } from '../../src/types.js';
import { startRedis } from '../../test/support/redisServer.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable } from '../support/report.js';

const failures = 20_000;
const start = Date.UTC(2026, 0, 1, 12);
const strategies: Strategy[] = ['buckets', 'zset'];

async function bytesPerFailure(strategy: Strategy, dims: Record<string, string> | undefined): Promise<number> {
  const redis = await startRedis();
  const admin = await RedisConnection.connect({ url: redis.url });
  try {
    const clock = new ManualClock(start);
    const pulse = await createPulse({ redis: redis.url, strategy, dimensions: [['method']], clock, recordTimeoutMs: 10_000 });
    await pulse.rate('warm-up', { window: '1m' });
    const before = await sampleRedis(admin);
    for (let sent = 0; sent < failures; sent += 500) {
      const batch: Outcome[] = Array.from({ length: 500 }, (_, i) => ({
        channel: 'acquirer-a',
        requestId: `ord-${String(sent + i).padStart(16, '0')}`,
        status: 'failure',
        at: start - 60_000 + Math.floor(((sent + i) / failures) * 60_000),
        code: 'do_not_honor',
        ...(dims ? { dims } : {}),
      }));
      const result = await pulse.recordMany(batch);
      if (result.accepted !== batch.length) throw new Error(`accepted ${result.accepted} of ${batch.length}`);
    }
    const after = await sampleRedis(admin);
    await pulse.close();
    return (after.usedMemory - before.usedMemory) / failures;
  } finally {
    await admin.close();
    await redis.stop();
  }
}

const rows: string[][] = [];
for (const strategy of strategies) {
  const plain = await bytesPerFailure(strategy, undefined);
  const withDims = await bytesPerFailure(strategy, { method: 'card' });
  rows.push([strategy, plain.toFixed(1), withDims.toFixed(1), (withDims - plain).toFixed(1)]);
}
console.log(formatTable(['strategy', 'B per failure, no dims', 'B per failure, method=card', 'difference'], rows));
