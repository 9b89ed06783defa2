// A full spill journal: every record call it refuses used to log an error line (1,210 in a hostile run) while
// /readyz kept saying the spill was durable. Now the refusal is logged once a minute with the count of lines
// held back, counted in a metric, and /readyz says the spill refuses outcomes. Redis is a port nothing
// listens on; the journal is a real folder with a small bound; /readyz and /metrics over a socket.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/redisServer.js';
import { capturingLogger, engines, makeApp, type TestApp } from '../server/harness.js';

describe('a full spill journal', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paypulse-spill-full-'));
  const { logger, lines } = capturingLogger();
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    const port = await freePort();
    t = await makeApp(engines[0]!, {
      pulse: { redis: `redis://127.0.0.1:${port}`, dataDir, spillMaxBytes: 4096, logger, recordTimeoutMs: 200 },
      config: { dataDir },
    });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const refusalLines = () => lines.filter((l) => /spill journal refused/.test(l.msg)) as { msg: string; suppressed?: number; outcomes?: number }[];
  const recordBatches = async (count: number, prefix: string) => {
    for (let i = 0; i < count; i++) {
      const batch = Array.from({ length: 20 }, (_, j) => ({ channel: 'upi', requestId: `${prefix}-${i}-${j}`, status: 'success' as const, at: t.clock.now() - 1_000 }));
      expect((await t.pulse.recordMany(batch)).buffered).toBe(20);
    }
  };

  it('logs the refusal once a minute, with how many lines it held back', async () => {
    await recordBatches(40, 'a');
    expect(t.pulse.health().spillRefusedOutcomes).toBeGreaterThan(0);
    expect(refusalLines()).toHaveLength(1);
    t.clock.advance(61_000);
    await recordBatches(3, 'b');
    const logged = refusalLines();
    expect(logged).toHaveLength(2);
    expect(logged[1]!.suppressed).toBeGreaterThan(0);
  });

  it('counts refused outcomes in a metric', async () => {
    // The background retry offers the memory buffer to the spill again while the store is down, so the
    // count may grow between reads: the metric lies between the counts read before and after it.
    const before = t.pulse.health().spillRefusedOutcomes;
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('paypulse_spill_refused_outcomes_total '));
    const metric = Number(line?.split(' ')[1]);
    expect(metric).toBeGreaterThanOrEqual(before);
    expect(metric).toBeLessThanOrEqual(t.pulse.health().spillRefusedOutcomes);
  });

  it('/readyz says the spill refuses outcomes, not that it is durable', async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: Record<string, { ok: boolean; detail?: string }>; buffering: string };
    expect(body.checks.spill).toMatchObject({ ok: false, detail: expect.stringMatching(/refus/) });
    expect(body.buffering).toMatch(/^refusing:/);
  });
});
