// `npx tsx bench/engine/seriesMarkCost.ts [-- --label after]`: what the record path costs with dims traffic,
// the shape the store's per-channel series marks ride on (RedisStatsStore.touchChannels). Each point is a
// fresh redis-server and one createPulse with `dimensions: [['method']]`, 40,000 outcomes over four methods,
// 500 a batch, on a ManualClock that spans 120 virtual seconds (twelve mark intervals). Reported per event:
// the commands Redis ran, its script calls, its CPU (INFO, moves ±15 % on a shared machine) and the client's
// CPU in the record calls. Run it on two versions of the code and compare the columns.
import { parseArgs } from 'node:util';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import type { Outcome } from '../../src/types.js';
import { startRedis } from '../../test/support/redisServer.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable } from '../support/report.js';

const { values } = parseArgs({ options: { label: { type: 'string', default: 'this code' }, events: { type: 'string', default: '40000' } } });
const events = Number(values.events);
const spanMs = 120_000;
const batchSize = 500;
const methods = ['card', 'bank', 'wallet', 'pix'];
const points = [{ channels: 400 }, { channels: 40 }, { channels: 1 }];
const start = Date.UTC(2026, 0, 1, 12);

async function measure(channels: number): Promise<string[]> {
  const redis = await startRedis();
  const admin = await RedisConnection.connect({ url: redis.url });
  try {
    const clock = new ManualClock(start);
    const pulse = await createPulse({ redis: redis.url, dimensions: [['method']], clock, namespace: 'bench', recordTimeoutMs: 30_000 });
    await pulse.rate('warm-up', { window: '1m' });
    const before = await sampleRedis(admin);
    const cpuBefore = process.cpuUsage();
    for (let sent = 0; sent < events; sent += batchSize) {
      const batch: Outcome[] = Array.from({ length: batchSize }, (_, i) => {
        const n = sent + i;
        return { channel: `ch-${n % channels}`, requestId: `r-${n}`, status: n % 20 === 0 ? 'failure' : 'success', at: clock.now(), dims: { method: methods[Math.floor(n / channels) % methods.length]! } };
      });
      await pulse.recordMany(batch);
      clock.advance(Math.round((spanMs * batchSize) / events));
    }
    const cpu = process.cpuUsage(cpuBefore);
    const after = await sampleRedis(admin);
    await pulse.close();
    const per = (n: number) => n / events;
    return [
      `${channels}`,
      per(after.commands - before.commands - 1).toFixed(4),
      per(after.evalCalls - before.evalCalls).toFixed(4),
      ((per(after.cpuSec - before.cpuSec)) * 1e6).toFixed(2),
      ((cpu.user + cpu.system) / events).toFixed(2),
    ];
  } finally {
    await admin.close();
    await redis.stop();
  }
}

const rows: string[][] = [];
for (const p of points) rows.push(await measure(p.channels));
console.log(`${values.label}: ${events} events with dims, ${batchSize} a batch, over ${spanMs / 1000} virtual seconds`);
console.log(formatTable(['channels', 'Redis commands/event', 'script calls/event', 'Redis CPU µs/event', 'client CPU µs/event'], rows));
