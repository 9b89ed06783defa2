// `npm run bench:ledger`: what one ledger claim costs Redis, apart from the rest of a `buckets` call —
// the measurement behind docs/decisions/060-ledger-claims-one-command-a-request.md. Each probe is a small
// Lua script over the same batches as the engine benchmark (20 channels × 300,000 20-character ids,
// 250 per channel per call, one MessagePack argument): it unpacks the batch and builds each request's
// ledger key like ledger.lua, then does one thing per request. Redis CPU per request from `INFO`.
// On a Redis server of its own. Never part of `npm test`.
import { createHash } from 'node:crypto';
import { sampleRedis } from '../support/redisInfo.js';
import { formatTable } from '../support/report.js';
import { startRedis } from '../../test/support/redisServer.js';
import { hashId } from '../../src/stats/hash.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { packArray } from '../../src/store/redis/msgpack.js';
import { writeLatestResult } from '../support/results.js';

const channels = 20;
const perChannel = Number(process.env.BENCH_LEDGER_EVENTS ?? 300_000);
const perCall = 250;

// `%s` is the per-request step; `key` is the request's ledger key, `id` its id, `state` a ledger value
// of the real size (at·8 + started·4 + status).
const probeBody = `local batch = cmsgpack.unpack(ARGV[1])
local n = 0
for k = 1, #batch, 2 do
  local id, key, state = batch[k], KEYS[1] .. 'l:' .. batch[k + 1], '14150995200003'
  %s
end
return n`;

interface Probe {
  name: string;
  step: string;
  shards: number;
  /** Keeps the keys of the probe before (reads what a claim wrote). */
  keep?: boolean;
}

const probes: Probe[] = [
  { name: 'loop only: unpack, build the key', step: 'if key == nil then n = n + 1 end', shards: 16384 },
  { name: 'HSETNX on one hot key (the call)', step: "n = n + redis.call('HSETNX', KEYS[1] .. 'hot', 'f', '1')", shards: 16384 },
  { name: 'claim: HSETNX, 4,096 shards', step: "n = n + redis.call('HSETNX', key, id, state)", shards: 4096 },
  { name: 'claim: HSETNX, 16,384 shards', step: "n = n + redis.call('HSETNX', key, id, state)", shards: 16384 },
  { name: 'find the cold key: EXISTS', step: "n = n + redis.call('EXISTS', key)", shards: 16384, keep: true },
  { name: 'find the entry: HEXISTS', step: "n = n + redis.call('HEXISTS', key, id)", shards: 16384, keep: true },
];

async function runProbe(redis: RedisConnection, probe: Probe) {
  const source = probeBody.replace('%s', probe.step);
  const sha = createHash('sha1').update(source).digest('hex');
  await redis.command('', ['SCRIPT', 'LOAD', source]);
  if (!probe.keep) await redis.command('', ['FLUSHALL']);
  const before = await sampleRedis(redis);
  for (let start = 0; start < perChannel; start += perCall) {
    const calls: Promise<unknown>[] = [];
    for (let c = 0; c < channels; c++) {
      const values: string[] = [];
      for (let i = start; i < Math.min(start + perCall, perChannel); i++) {
        const id = `ord_${String(i).padStart(16, '0')}`;
        values.push(id, String(hashId(id) % probe.shards));
      }
      calls.push(redis.command('', ['EVALSHA', sha, 1, `bench:{channel-${c}}:`, packArray(values)]));
    }
    await Promise.all(calls);
  }
  const after = await sampleRedis(redis);
  const requests = channels * perChannel;
  return {
    probe: probe.name,
    redisCpuUsPerRequest: ((after.cpuSec - before.cpuSec) * 1e6) / requests,
    redisBytesPerRequest: (after.usedMemory - before.usedMemory) / requests,
  };
}

const server = await startRedis();
const redis = await RedisConnection.connect({ url: server.url, commandTimeoutMs: 30_000 });
const results = [];
try {
  for (const probe of probes) results.push(await runProbe(redis, probe));
} finally {
  await redis.close();
  await server.stop();
}
console.log(formatTable(
  ['probe', 'Redis CPU µs/request', 'Redis B/request'],
  results.map((r) => [r.probe, r.redisCpuUsPerRequest.toFixed(2), r.redisBytesPerRequest.toFixed(1)]),
));
const file = writeLatestResult('ledger', { channels, perChannel, perCall, results });
console.log(`\nwritten to ${file}`);
