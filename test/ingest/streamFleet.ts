// The fleet scenario of stream ingestion, shared by its test (small) and its benchmark (the size):
// two `paypulse serve` processes in one consumer group, a gateway XADDing outcomes at a steady rate with a few
// invalid entries planted, and one instance SIGKILLed and started again midway. Then every outcome must be
// counted exactly once by the service, nothing left pending, and the dead letters be exactly the planted ones.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupInfos } from '../../src/ingest/stream/streamReplies.js';
import type { RedisReply } from '../../src/store/redis/connection.js';
import { deadLetterStreamKey, outcomeStreamKey } from '../../src/store/keys/ingestStream.js';
import { runCli, type CliProcess } from '../cli/cliProcess.js';
import { createTestDatabase } from '../history/databases.js';
import { startRedis } from '../support/redisServer.js';
import { connectGateway, entryFields, pendingCount, streamEntries, waitUntil } from './streamGateway.js';

export interface FleetScenario {
  outcomes: number;
  perSecond: number;
  /** Invalid entries planted among the outcomes (not counted in `outcomes`). */
  invalid: number;
  /** When instance A is killed, and when it is started again, as fractions of the writing time. */
  killAt: number;
  restartAt: number;
  /** Longest wait for the fleet to settle after the last XADD. */
  settleTimeoutMs: number;
}

export interface FleetReport {
  written: number;
  /** Sum over channels of the service's 1h totals. */
  counted: number;
  pending: number;
  lag: number | null;
  streamLength: number;
  deadLetterIds: string[];
  plantedIds: string[];
  writeSeconds: number;
  /** From the first XADD to the last entry counted. */
  ingestSeconds: number;
}

const channels = ['alipay', 'wechatpay', 'stripe-card', 'adyen-card'];

/** The fleet shares a PostgreSQL database as in production (and starts in half the time embedded PGlite takes). */
function startInstance(configPath: string, redisUrl: string, databaseUrl: string, namespace: string): CliProcess {
  return runCli(['serve', '--config', configPath], { REDIS_URL: redisUrl, DATABASE_URL: databaseUrl, PAYPULSE_NAMESPACE: namespace, PORT: '0', PAYPULSE_LOG_LEVEL: 'info' });
}

async function urlOf(instance: CliProcess): Promise<string> {
  await instance.waitFor(/"url":"http:\/\/[^"]+"/, 60_000);
  return /"url":"(http:\/\/[^"]+)"/.exec(instance.stdout)![1]!;
}

async function countedBy(url: string): Promise<number> {
  let total = 0;
  for (const channel of channels) {
    const rate = (await (await fetch(`${url}/v1/channels/${channel}/rate?window=1h`)).json()) as { total: number };
    total += rate.total;
  }
  return total;
}

export async function runFleetScenario(s: FleetScenario, progress?: (line: string) => void): Promise<FleetReport> {
  const redis = await startRedis();
  const database = await createTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-fleet-'));
  const namespace = `f${randomBytes(3).toString('hex')}`;
  const key = outcomeStreamKey(namespace, 0);
  const configPath = join(dir, 'paypulse.json');
  // A short claim idle time, so the killed instance's entries are taken over within the test.
  writeFileSync(configPath, JSON.stringify({ stream: { blockMs: 200, claimIdleMs: 2_000, claimIntervalMs: 500, trimIntervalMs: 500 } }));
  const instances: CliProcess[] = [];
  const gateway = await connectGateway(redis.url);
  try {
    instances.push(startInstance(configPath, redis.url, database.url, namespace), startInstance(configPath, redis.url, database.url, namespace));
    const [urlA, urlB] = await Promise.all(instances.map(urlOf));
    progress?.('two instances serving');
    const total = s.outcomes + s.invalid;
    const plantEvery = s.invalid > 0 ? Math.floor(total / s.invalid) : Infinity;
    const plantedIds: string[] = [];
    const tickMs = 10;
    const perTick = Math.max(1, Math.round((s.perSecond * tickMs) / 1000));
    const started = Date.now();
    const writeMs = (total / s.perSecond) * 1000;
    let killed = false;
    let restarted = false;
    let written = 0;
    for (let sent = 0; sent < total; ) {
      const elapsed = Date.now() - started;
      if (!killed && elapsed >= writeMs * s.killAt) {
        killed = true;
        await instances[0]!.stop(); // SIGKILL: no graceful close, its batch in hand unacknowledged
        progress?.(`instance A killed after ${sent} entries`);
      }
      if (killed && !restarted && elapsed >= writeMs * s.restartAt) {
        restarted = true;
        instances[0] = startInstance(configPath, redis.url, database.url, namespace);
      }
      const due = Math.min(total, Math.floor((elapsed / 1000) * s.perSecond) + perTick);
      const sends: Promise<unknown>[] = [];
      for (; sent < due; sent++) {
        const planted = sent % plantEvery === plantEvery - 1 && plantedIds.length < s.invalid;
        const requestId = planted ? `bad-${sent}` : `ok-${sent}`;
        if (planted) plantedIds.push(requestId);
        else written++;
        const outcome = { channel: channels[sent % channels.length], requestId, status: planted ? 'unknown' : sent % 10 === 0 ? 'failure' : 'success', at: Date.now() };
        sends.push(gateway.sendCommand(['XADD', key, '*', ...entryFields(outcome)]));
      }
      await Promise.all(sends);
      await new Promise((r) => setTimeout(r, tickMs));
    }
    const writeSeconds = (Date.now() - started) / 1000;
    progress?.(`written ${total} in ${writeSeconds.toFixed(1)} s`);
    const urlNow = restarted ? await urlOf(instances[0]!) : urlA!;
    await waitUntil(async () => (await countedBy(urlB!)) >= written && (await pendingCount(gateway, key, 'paypulse')) === 0, s.settleTimeoutMs, 'every outcome counted and acknowledged');
    const ingestSeconds = (Date.now() - started) / 1000;
    // Let a second's worth of upkeep pass: a double count or a late dead letter would show now.
    await new Promise((r) => setTimeout(r, 1_500));
    const group = groupInfos((await gateway.sendCommand(['XINFO', 'GROUPS', key])) as RedisReply).find((g) => g.name === 'paypulse');
    const deadLetters = await streamEntries(gateway, deadLetterStreamKey(namespace, 0));
    return {
      written,
      counted: Math.max(await countedBy(urlB!), await countedBy(urlNow)),
      pending: await pendingCount(gateway, key, 'paypulse'),
      lag: group?.lag ?? null,
      streamLength: Number(await gateway.sendCommand(['XLEN', key])),
      deadLetterIds: deadLetters.map((d) => d.fields.requestId!).sort(),
      plantedIds: plantedIds.sort(),
      writeSeconds,
      ingestSeconds,
    };
  } finally {
    await gateway.close();
    for (const instance of instances) await instance.stop();
    await redis.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
