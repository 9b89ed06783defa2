// Durable spill: while Redis is down, outcomes are answered `buffered` only once they are in the journal of the
// data folder; a process SIGKILLed with outcomes spilled loses none of them: the next process writes them to
// the store when it answers. Real redis-server, real files, a real child process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { freePort, startRedis, type LocalRedis } from '../support/redisServer.js';
import { eventually } from '../kit/engines.js';
import { openSpillingEngine } from './spillingEngine.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'paypulse-data-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
let namespaces = 0;

describe('durable spill', () => {
  it('spills while Redis is down and writes the journal to the store when it is back', async () => {
    const port = await freePort();
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 9, 30));
    const { engine, close } = await openSpillingEngine({ redisUrl: `redis://127.0.0.1:${port}`, dataDir: tempDir(), namespace: `spill${process.pid}-${++namespaces}`, clock });
    cleanups.push(close);
    const at = clock.now() - 1_000;
    const result = await engine.recordMany(Array.from({ length: 300 }, (_, i) => ({ channel: 'upi', requestId: `s${i}`, status: i % 3 ? 'success' : 'failure', at })));
    expect(result).toMatchObject({ buffered: 300, dropped: 0 });
    expect(engine.health()).toMatchObject({ bufferedOutcomes: 0, spilledOutcomes: 300, storeReachable: false });

    let redis: LocalRedis | undefined;
    cleanups.push(async () => redis?.stop());
    redis = await startRedis([], { port });
    await eventually(() => engine.flushBuffer(), 10_000);
    expect(engine.health()).toMatchObject({ spilledOutcomes: 0 });
    expect(await engine.rate('upi', { window: '1m' })).toMatchObject({ total: 300, success: 200, failure: 100 });
  });

  it('loses nothing acknowledged when the process is SIGKILLed with outcomes spilled', async () => {
    const port = await freePort();
    const dataDir = tempDir();
    const namespace = `spillkill${process.pid}-${++namespaces}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./spillUntilKilled.ts', import.meta.url)), `redis://127.0.0.1:${port}`, dataDir, namespace],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let acknowledged = 0;
    let notSpilled = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.setEncoding('utf8').on('data', (text: string) => {
          for (const line of text.trim().split('\n')) {
            const [ack, buffered, dropped] = line.split(' ').map(Number);
            acknowledged = ack;
            if (buffered !== 50 || dropped !== 0) notSpilled++;
          }
          if (acknowledged >= 2_000) resolve();
        });
        child.once('exit', (code) => reject(new Error(`recorder exited early (${code})`)));
      });
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    }
    expect(notSpilled).toBe(0);

    const redis = await startRedis([], { port });
    cleanups.push(() => redis.stop());
    const { engine, close } = await openSpillingEngine({ redisUrl: redis.url, dataDir, namespace, clock: systemClock });
    cleanups.push(close);
    expect(engine.health().spilledOutcomes).toBeGreaterThanOrEqual(acknowledged);
    await eventually(() => engine.flushBuffer(), 20_000);
    const counted = (await engine.rate('alipay', { window: '1h' })).total;
    expect(counted).toBeGreaterThanOrEqual(acknowledged);
    expect(engine.health().spilledOutcomes).toBe(0);
  }, 60_000);
});
