// `npm run bench:faults` row "Redis restart with alerts and overrides live": two services in processes of their
// own on one Redis and one PostgreSQL, alerts evaluated every second and sent to a webhook receiver of ours.
// Traffic makes three channels fail (alerts fire) and keeps one healthy; that one gets a `force-open` override and
// a mute. One failing channel recovers; its alert still fires (its 5-minute window still holds the failures) when
// Redis is killed (SIGKILL) and started again empty on its port a few seconds later. Reported: alerts firing before and after, `resolved` notifications, alerts paged a second time,
// whether the override and the mute are back on both services and how many seconds that took, and alerts the
// history shows firing that no service shows any more ("firing forever"). Runs unchanged against older code:
// whatever it lacks shows in the table.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { formatTable } from '../support/report.js';
import { startServiceChild, stopServiceChild } from '../support/serviceChild.js';
import { defaultConfig, startService } from '../../src/server/index.js';
import { createTestDatabase } from '../../test/history/databases.js';
import { startRedis } from '../../test/support/redisServer.js';

const script = fileURLToPath(import.meta.url);
const failing = ['acq-a', 'acq-b', 'acq-c'];
const recovers = 'acq-c';
const overridden = 'acq-d';
const perChannelPerSecond = 100;
const afterRestartMs = 40_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serveChild(): Promise<void> {
  const service = await startService({
    ...defaultConfig,
    port: 0,
    redisUrl: process.env.BENCH_REDIS_URL,
    databaseUrl: process.env.BENCH_DATABASE_URL,
    namespace: 'benchstate',
    logLevel: 'warn',
    alerts: { evaluateEvery: '1s', silent: false, perDimensions: false, log: false, webhooks: [{ url: process.env.BENCH_HOOK_URL!, retries: 0 }] },
  });
  process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
}

interface Sent {
  id: string;
  transition: string;
}

async function startReceiver(): Promise<{ url: string; sent: Sent[]; close(): void }> {
  const sent: Sent[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const n = JSON.parse(body) as Sent;
      sent.push({ id: n.id, transition: n.transition });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, sent, close: () => server.close() };
}

/** Posts one second of traffic every 250 ms, to the services in turn; `recovered` says whether acq-c is healthy. */
function startTraffic(urls: string[], recovered: () => boolean): { stop(): Promise<void> } {
  let seq = 0;
  let stopped = false;
  const loop = (async () => {
    for (let turn = 0; !stopped; turn++) {
      const at = Date.now();
      const outcomes = [...failing, overridden].flatMap((channel) => Array.from({ length: perChannelPerSecond / 4 }, () => {
        const healthy = channel === overridden || (channel === recovers && recovered());
        const ok = Math.random() < (healthy ? 0.97 : 0.3);
        return { channel, requestId: `s${process.pid}-${++seq}`, status: ok ? 'success' : 'failure', at, ...(ok ? {} : { code: 'do_not_honor' }) };
      }));
      await fetch(`${urls[turn % urls.length]}/v1/outcomes`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcomes }), signal: AbortSignal.timeout(5_000),
      }).catch(() => undefined);
      await sleep(250);
    }
  })();
  return { stop: async () => { stopped = true; await loop; } };
}

async function getJson(url: string): Promise<Record<string, unknown> | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    return res.ok ? ((await res.json()) as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function firingIds(url: string): Promise<string[]> {
  const body = await getJson(`${url}/v1/alerts`);
  return ((body?.alerts as Array<{ id: string }> | undefined) ?? []).map((a) => a.id).sort();
}

async function overrideKept(url: string): Promise<boolean> {
  return (await getJson(`${url}/v1/channels/${overridden}/breaker`))?.mode === 'force-open';
}

async function muteKept(url: string): Promise<boolean> {
  return typeof (await getJson(`${url}/v1/channels/${overridden}/mute`))?.mutedUntil === 'number';
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(250);
  }
  return false;
}

/** Alert ids whose newest transition in history is not `resolved`, among those no service shows firing. */
async function firingForever(databaseUrl: string, live: Set<string>): Promise<number> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const rows = await sql<{ alert_id: string; transition: string }[]>`
      SELECT DISTINCT ON (alert_id) alert_id, transition FROM alert_transitions ORDER BY alert_id, at DESC, id DESC`;
    return rows.filter((r) => r.transition !== 'resolved' && !live.has(r.alert_id)).length;
  } finally {
    await sql.end();
  }
}

export interface OperatorStateRow {
  firingBefore: number;
  firingAfter: number;
  resolvedSent: number;
  reFired: number;
  overrideKept: string;
  muteKept: string;
  restoredAfterSec: number | null;
  firingForever: number;
}

export async function operatorStateRestart(): Promise<OperatorStateRow> {
  const redis = await startRedis();
  const database = await createTestDatabase();
  const receiver = await startReceiver();
  const env = { BENCH_REDIS_URL: redis.url, BENCH_DATABASE_URL: database.url, BENCH_HOOK_URL: receiver.url };
  const services = [await startServiceChild(script, env), await startServiceChild(script, env)];
  const urls = services.map((s) => s.url);
  let recovered = false;
  const traffic = startTraffic(urls, () => recovered);
  try {
    const expected = failing.map((c) => `rate/@${c}`).sort().join();
    if (!(await waitFor(async () => (await Promise.all(urls.map(firingIds))).every((ids) => ids.join() === expected), 60_000))) {
      throw new Error('the three alerts did not fire within 60 s');
    }
    const put = (url: string, body: unknown) => fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await put(`${urls[0]}/v1/channels/${overridden}/breaker`, { mode: 'force-open' });
    await put(`${urls[1]}/v1/channels/${overridden}/mute`, { until: new Date(Date.now() + 3600_000).toISOString() });
    recovered = true;
    await sleep(3_000);
    const firingBefore = (await firingIds(urls[0]!)).length;

    await redis.restart();
    const restartedAt = Date.now();
    const restoredOnAll = async () => (await Promise.all(urls.map(async (u) => (await overrideKept(u)) && (await muteKept(u))))).every(Boolean);
    const restored = await waitFor(restoredOnAll, afterRestartMs);
    const restoredAfterSec = restored ? Number(((Date.now() - restartedAt) / 1000).toFixed(1)) : null;
    await sleep(Math.max(0, restartedAt + afterRestartMs - Date.now()));

    const live = new Set((await Promise.all(urls.map(firingIds))).flat());
    const firingOf = (id: string) => receiver.sent.filter((n) => n.id === id && n.transition === 'firing').length;
    return {
      firingBefore,
      firingAfter: (await firingIds(urls[0]!)).length,
      resolvedSent: receiver.sent.filter((n) => n.transition === 'resolved').length,
      reFired: failing.reduce((t, c) => t + Math.max(0, firingOf(`rate/@${c}`) - 1), 0),
      overrideKept: (await Promise.all(urls.map(overrideKept))).every(Boolean) ? 'yes' : 'no',
      muteKept: (await Promise.all(urls.map(muteKept))).every(Boolean) ? 'yes' : 'no',
      restoredAfterSec,
      firingForever: await firingForever(database.url, live),
    };
  } finally {
    await traffic.stop();
    for (const s of services) await stopServiceChild(s.child);
    receiver.close();
    await redis.stop();
    await database.drop();
  }
}

export function operatorStateTable(row: OperatorStateRow): string {
  return formatTable(
    ['fault', 'alerts firing before', 'after', 'resolved sent', 're-fired', 'override kept', 'mute kept', 'restored after s', 'firing forever in history'],
    [['Redis restart with alerts and overrides live', String(row.firingBefore), String(row.firingAfter), String(row.resolvedSent), String(row.reFired),
      row.overrideKept, row.muteKept, String(row.restoredAfterSec ?? '—'), String(row.firingForever)]],
  );
}

/** Runs the scenario alone (`tsx bench/faults/operatorState.ts`) and keeps its result beside the others. */
async function main(): Promise<void> {
  const row = await operatorStateRestart();
  const load = spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();
  process.stdout.write(`${operatorStateTable(row)}\n\nload: ${load}\n`);
  writeFileSync(fileURLToPath(new URL('./results/operator-state.json', import.meta.url)), `${JSON.stringify({ load, row }, null, 2)}\n`);
}

if (process.argv[1] === script) {
  if (process.argv.includes('--serve')) await serveChild();
  else await main();
}
