// GET /v1/stream over a real socket on both engines, and the event hub's replay rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../src/server/stream/eventHub.js';
import type { Rate } from '../../src/types.js';
import { engines, makeApp, outcome, type TestApp } from './harness.js';
import { openSse } from './sse.js';

describe('EventHub', () => {
  it('numbers events and replays the ones after a Last-Event-ID', () => {
    const hub = new EventHub({ maxEvents: 10 });
    for (let i = 0; i < 5; i++) hub.publish('rates', { i });
    const replay = hub.since(2);
    expect(replay.gap).toBe(false);
    expect(replay.events.map((e) => e.id)).toEqual([3, 4, 5]);
    expect(replay.events[0]!.frame.toString()).toBe('id: 3\nevent: rates\ndata: {"i":2}\n\n');
    expect(hub.since(5)).toEqual({ events: [], gap: false });
  });

  it('keeps a bounded buffer and reports a gap when the client missed more than it holds', () => {
    const hub = new EventHub({ maxEvents: 3 });
    for (let i = 0; i < 10; i++) hub.publish('alert', { i });
    expect(hub.bufferedEvents).toBe(3);
    expect(hub.since(8)).toMatchObject({ gap: false });
    const late = hub.since(2);
    expect(late.gap).toBe(true);
    expect(late.events.map((e) => e.id)).toEqual([8, 9, 10]);
    // An id from a previous process (larger than any published): replay everything, flagged.
    expect(hub.since(500)).toMatchObject({ gap: true });
  });

  it('bounds the buffer by bytes as well', () => {
    const hub = new EventHub({ maxEvents: 1_000, maxBytes: 1_000 });
    for (let i = 0; i < 50; i++) hub.publish('rates', { pad: 'x'.repeat(100) });
    expect(hub.bufferedEvents).toBeLessThan(10);
    expect(hub.bufferedEvents).toBeGreaterThan(0);
  });

  it('fans out to subscribers until they unsubscribe', () => {
    const hub = new EventHub();
    const seen: number[] = [];
    const off = hub.subscribe((e) => seen.push(e.id));
    hub.publish('breaker', {});
    off();
    hub.publish('breaker', {});
    expect(seen).toEqual([1]);
    expect(hub.subscribers).toBe(0);
  });

  it('reaches many subscribers a slice per turn, each with every event in order', async () => {
    const hub = new EventHub();
    const seen = Array.from({ length: 450 }, () => [] as number[]);
    const offs = seen.map((ids) => hub.subscribe((e) => ids.push(e.id)));
    hub.publish('rates', {});
    hub.publish('rates', {});
    // The first slice is written at once, the rest on later turns.
    expect(seen[0]).toEqual([1]);
    expect(seen[449]).toEqual([]);
    offs[449]!();
    for (let turn = 0; turn < 20; turn++) await new Promise((r) => setImmediate(r));
    expect(seen.slice(0, 449).every((ids) => ids.join() === '1,2')).toBe(true);
    // It unsubscribed before the fan-out reached it.
    expect(seen[449]).toEqual([]);
  });
});

describe.each(engines)('GET /v1/stream on $name', (engine) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    await engine.start();
    t = await makeApp(engine);
    await t.pulse.recordMany([
      outcome(t.clock, { channel: 'alipay' }),
      outcome(t.clock, { channel: 'alipay', status: 'failure' }),
      outcome(t.clock, { channel: 'paypal' }),
    ]);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
    await engine.stop();
  });

  it('sends rates of every channel × every window, with ids', async () => {
    const client = await openSse(`${base}/v1/stream`);
    try {
      expect(client.status).toBe(200);
      expect(client.headers['content-type']).toContain('text/event-stream');
      await t.app.paypulse.ticker.tick();
      const event = await client.next('rates');
      expect(Number(event.id)).toBeGreaterThan(0);
      const data = JSON.parse(event.data) as { asOf: number; rates: Rate[] };
      expect(data.asOf).toBe(t.clock.now());
      expect(data.rates.map((r) => `${r.channel}/${r.window}`).sort()).toEqual(
        ['alipay', 'paypal'].flatMap((c) => ['1m', '5m', '15m', '1h'].map((w) => `${c}/${w}`)).sort(),
      );
      const alipay5m = data.rates.find((r) => r.channel === 'alipay' && r.window === '5m');
      expect(alipay5m).toEqual(await t.pulse.rate('alipay', { window: '5m' }));
    } finally {
      client.close();
    }
  });

  it('publishes on its own timer, at least every second', async () => {
    const client = await openSse(`${base}/v1/stream`);
    try {
      // No tick() here: the interval (1 s by default) does it. The timeout is generous; nothing is timed.
      const first = await client.next('rates', 10_000);
      const second = await client.next('rates', 10_000);
      expect(Number(second.id)).toBeGreaterThan(Number(first.id));
    } finally {
      client.close();
    }
  });

  it('replays what a client missed when it reconnects with Last-Event-ID', async () => {
    const first = await openSse(`${base}/v1/stream`);
    await t.app.paypulse.ticker.tick();
    const seen = await first.next('rates');
    first.close();

    // While the client is away: new data and more events (including a non-rates one, as alerts will be).
    await t.pulse.record(outcome(t.clock, { channel: 'wechat' }));
    await t.app.paypulse.ticker.tick();
    t.app.paypulse.hub.publish('alert', { channel: 'alipay', level: 'warn' });
    const missedIds = [t.app.paypulse.hub.lastId - 1, t.app.paypulse.hub.lastId];

    const again = await openSse(`${base}/v1/stream`, { 'last-event-id': seen.id! });
    try {
      const replayed: number[] = [];
      while (replayed.length === 0 || replayed[replayed.length - 1]! < missedIds[1]!) {
        replayed.push(Number((await again.next()).id));
      }
      expect(replayed.filter((id) => id > Number(seen.id))).toEqual(expect.arrayContaining(missedIds));
      expect(replayed.every((id) => id > Number(seen.id))).toBe(true);
    } finally {
      again.close();
    }
  });

  it('tells a client that it missed more than the buffer holds', async () => {
    const client = await openSse(`${base}/v1/stream?lastEventId=999999`);
    try {
      const gap = await client.next('gap');
      expect(JSON.parse(gap.data)).toMatchObject({ lastEventId: 999999 });
    } finally {
      client.close();
    }
  });

  it('rejects a malformed Last-Event-ID', async () => {
    const res = await t.app.inject({ url: '/v1/stream', headers: { 'last-event-id': 'abc' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('PP_ERR_VALIDATION');
  });

  it('counts open stream clients in /metrics', async () => {
    const client = await openSse(`${base}/v1/stream`);
    try {
      await t.app.paypulse.ticker.tick();
      await client.next('rates');
      expect((await t.app.inject({ url: '/metrics' })).body).toMatch(/paypulse_stream_clients [1-9]/);
    } finally {
      client.close();
    }
  });

  it('ends open streams when the app closes, so shutdown does not hang', async () => {
    const other = await makeApp(engine, { history: t.history });
    const url = await other.app.listen({ port: 0, host: '127.0.0.1' });
    const client = await openSse(`${url}/v1/stream`);
    await other.close();
    await client.ended;
  });
});
