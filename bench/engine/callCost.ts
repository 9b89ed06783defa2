// `npx tsx bench/engine/callCost.ts`: where a quiet channel's Redis CPU goes. The `buckets` record
// script called with 1, 10 and 100 new outcomes a call (the outcomes one channel brings to a batch
// at 1, 10 and 100 events/s), beside an empty script and the script's cheapest read, so the fixed
// cost of a call is seen apart from the cost of an outcome; then recordMany, 400 channels a call.
// Redis CPU from INFO, per call.
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import { StatusCode, type StoredOutcome } from '../../src/store/ports/stats.js';
import { hashId } from '../../src/stats/hash.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { channelPrefix } from '../../src/store/keys/stats.js';
import { channelScriptArgs } from '../../src/store/redis/layouts.js';
import { redisStrategy } from '../../src/store/redis/strategies.js';
import { startRedis } from '../../test/support/redisServer.js';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable } from '../support/report.js';

const calls = 4000;
const now = Date.UTC(2026, 0, 1, 12);

function outcomes(count: number, call: number): StoredOutcome[] {
  return Array.from({ length: count }, (_, i) => {
    const requestId = `ord_${String(call * count + i).padStart(16, '0')}`;
    return { requestId, status: StatusCode.Success, at: now - 1000 + i, code: '', series: [''], hash: hashId(requestId) };
  });
}

async function cpuPerCall(admin: RedisConnection, work: (call: number) => Promise<unknown>): Promise<number> {
  const before = await sampleRedis(admin);
  for (let c = 0; c < calls; c += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => work(c + k)));
  const after = await sampleRedis(admin);
  return ((after.cpuSec - before.cpuSec) * 1e6) / calls;
}

const redis = await startRedis();
const admin = await RedisConnection.connect({ url: redis.url, commandTimeoutMs: 60_000 });
try {
  const settings = resolveSettings({ namespace: 'probe' });
  const store = new RedisStatsStore(admin, settings);
  const rows: string[][] = [];
  const empty = await cpuPerCall(admin, () => admin.command('', ['EVAL', 'return 1', '0']));
  rows.push(['EVAL `return 1`', empty.toFixed(1), '—']);
  // The sweep of a channel with nothing due: the writing includes' definitions, one empty ZRANGEBYSCORE and
  // the flush, the fixed cost a record call pays before its own work.
  const sweep = redisStrategy('buckets').scripts.sweep;
  const bare = await cpuPerCall(admin, (c) => admin.runScript(sweep, [channelPrefix(settings.namespace, `quiet-${c}`)], channelScriptArgs(now, settings)));
  rows.push(['buckets sweep, nothing due (a write call\'s fixed cost)', bare.toFixed(1), '—']);
  const read1m = await cpuPerCall(admin, (c) => store.readWindows(`quiet-${c}`, '', [60], now));
  rows.push(['buckets script, 1m window read of an empty channel', read1m.toFixed(1), '—']);
  const read = await cpuPerCall(admin, (c) => store.readWindows(`quiet-${c}`, '', [300], now, ));
  rows.push(['buckets script, 5m window read of an empty channel', read.toFixed(1), '—']);
  for (const perCall of [1, 10, 100]) {
    const us = await cpuPerCall(admin, (c) => store.recordBatch(`ch-${perCall}-${c % 400}`, outcomes(perCall, c), now, 60_000));
    rows.push([`buckets record, ${perCall} new outcome(s) a call, 400 channels`, us.toFixed(1), (us / perCall).toFixed(2)]);
  }
  // recordMany: 400 channels with `perChannel` new outcomes each in one call (a 500-outcome batch at
  // 1 event/s per channel), so what a channel costs inside a shared call shows apart from the call.
  for (const perChannel of [1, 10]) {
    const manyCalls = 100;
    const before = await sampleRedis(admin);
    for (let c = 0; c < manyCalls; c++) {
      const batches = Array.from({ length: 400 }, (_, k) => ({ channel: `many-${perChannel}-${k}`, outcomes: outcomes(perChannel, c * 400 + k) }));
      await store.recordBatches(batches, now, 60_000);
    }
    const after = await sampleRedis(admin);
    const us = ((after.cpuSec - before.cpuSec) * 1e6) / manyCalls;
    rows.push([`buckets recordMany, 400 channels × ${perChannel} new outcome(s)`, us.toFixed(1), (us / (400 * perChannel)).toFixed(2)]);
  }
  console.log(formatTable(['call', 'Redis CPU µs/call', 'µs/outcome'], rows));
} finally {
  await admin.close();
  await redis.stop();
}
