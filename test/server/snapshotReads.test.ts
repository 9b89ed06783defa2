// The health snapshot is the one source of GET /v1/channels, the stream's `rates` and the rate metrics:
// pages and summaries past a size, an honest `_other` aggregate, and /readyz saying when the snapshot lags.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createHealthSnapshots } from '../../src/stats/healthSnapshot.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import { registerHealthRoutes } from '../../src/server/routes/health.js';
import { defaultConfig } from '../../src/server/config.js';
import { engines, makeApp, t0, type TestApp } from './harness.js';
import { openSse } from './sse.js';

const memory = engines.find((e) => e.name === 'memory')!;
// Channel i has i % 10 failures in 10 outcomes: rates 1.0, 0.9 … 0.1 repeating.
const channelCount = 1_005;
const name = (i: number) => `ch${String(i).padStart(4, '0')}`;

describe('reads served from the health snapshot', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeApp(memory);
    const outcomes = Array.from({ length: channelCount }, (_, i) =>
      Array.from({ length: 10 }, (_, k) => ({ channel: name(i), requestId: `r${i}-${k}`, status: k < i % 10 ? ('failure' as const) : ('success' as const), at: t0 - 1_000 })),
    ).flat();
    await t.pulse.recordMany(outcomes);
    await t.pulse.snapshots.refresh();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  it('pages /v1/channels worst first past the page size, by name or by search on request', async () => {
    const first = (await t.app.inject({ url: '/v1/channels?sort=name&limit=3' })).json();
    expect(first.total).toBe(channelCount);
    expect(first.channels.map((c: { channel: string }) => c.channel)).toEqual([name(0), name(1), name(2)]);
    const worst = (await t.app.inject({ url: '/v1/channels?sort=worst&limit=2' })).json();
    expect(worst.channels.map((c: { channel: string; rates: Record<string, { rate: number }> }) => c.rates['5m']!.rate)).toEqual([0.1, 0.1]);
    const found = (await t.app.inject({ url: '/v1/channels?search=CH100&sort=name' })).json();
    expect(found.channels.map((c: { channel: string }) => c.channel)).toEqual([name(1000), name(1001), name(1002), name(1003), name(1004)]);
    const byDefault = (await t.app.inject({ url: '/v1/channels' })).json();
    expect(byDefault.channels).toHaveLength(defaultConfig.pageChannels);
    // Ten outcomes each, under minSamples: every channel has too few samples to grade.
    expect(byDefault.summary).toEqual({ channels: channelCount, critical: 0, major: 0, warn: 0, ok: 0, few: channelCount, none: 0 });
    expect(byDefault.nextOffset).toBe(defaultConfig.pageChannels);
    expect((await t.app.inject({ url: '/v1/channels?limit=1001' })).statusCode).toBe(400);
  });

  it('summarises the stream past its size: the worst channels only, and how many there are', async () => {
    const client = await openSse(`${base}/v1/stream`);
    try {
      await t.app.paypulse.ticker.tick();
      const data = JSON.parse((await client.next('rates')).data);
      expect(data).toMatchObject({ channels: channelCount, truncated: true });
      const shown = new Set(data.rates.map((r: { channel: string }) => r.channel));
      expect(shown.size).toBe(defaultConfig.streamPageChannels);
      expect(data.summary).toMatchObject({ channels: channelCount, few: channelCount });
      expect(data.rates.every((r: { window: string; rate: number }) => r.window !== '5m' || r.rate <= 0.2)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('sums the channels past the label limit into `_other` on /metrics', async () => {
    const text = (await t.app.inject({ url: '/metrics' })).body;
    const labelled = text.match(/^paypulse_window_outcomes\{channel="ch\d+",window="5m",status="success"\}/gm) ?? [];
    expect(labelled).toHaveLength(1_000);
    // The last five channels (ch1000–ch1004: 0–4 failures of 10 each) share the label.
    expect(text).toMatch(/^paypulse_window_outcomes\{channel="_other",window="5m",status="failure"\} 10$/m);
    expect(text).toMatch(/^paypulse_window_outcomes\{channel="_other",window="5m",status="success"\} 40$/m);
    expect(text).toMatch(/^paypulse_success_ratio\{channel="_other",window="5m"\} 0.8$/m);
  });
});

it('/readyz is 503 while the snapshot cannot finish within its interval', async () => {
  const clock = new ManualClock(t0);
  const store = new MemoryStatsStore(resolveSettings({}));
  // An interval no real refresh fits in: every snapshot overruns.
  const snapshots = createHealthSnapshots({ store, clock, windows: ['1m'], minSamples: 1, horizonMs: 3600_000, intervalMs: Number.MIN_VALUE });
  const app = Fastify();
  const pulse = { health: () => ({ store: 'memory', strategy: 'buckets', storeReachable: true, bufferedOutcomes: 0 }) as never, channels: async () => [] };
  registerHealthRoutes(app, { pulse, snapshots, history: { kind: 'pglite', ping: async () => undefined }, isShuttingDown: () => false });
  try {
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await snapshots.refresh();
    expect(snapshots.status().overrun).toBe(true);
    const res = await app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.snapshot).toMatchObject({ ok: false, kind: 'health snapshot' });
  } finally {
    await app.close();
  }
});
