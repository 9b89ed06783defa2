// A client reconnecting with `Last-Event-ID: 0` used to get the whole replay buffer each time (5.9 MB), and
// nothing limited how often it came back (919 reconnects in 10 s sent 5 GB). A replay now holds at most
// `streamReplayMaxBytes` (the newest events, after a `gap` event), and one client address may open at most
// `streamOpensPerMinute` streams: past it 429 with Retry-After. Over a real socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, type TestApp } from './harness.js';
import { openSse, type SseEvent } from './sse.js';

const replayMaxBytes = 16 * 1024;
const opensPerMinute = 4;

describe('stream replay bounds', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeApp(engines[0]!, { config: { streamReplayMaxBytes: replayMaxBytes, streamOpensPerMinute: opensPerMinute } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t?.close());

  it('a replay from Last-Event-ID 0 holds the newest events within the byte bound, after a gap event', async () => {
    const hub = t.app.paypulse.hub;
    const padding = 'x'.repeat(4000);
    let last = 0;
    for (let i = 0; i < 40; i++) last = hub.publish('probe', { i, padding }).id;
    const client = await openSse(`${base}/v1/stream`, { 'last-event-id': '0' });
    try {
      expect(client.status).toBe(200);
      const gap = await client.next('gap');
      const replayed: SseEvent[] = [];
      for (;;) {
        const event = await client.next('probe');
        replayed.push(event);
        if (Number(event.id) === last) break;
      }
      const bytes = replayed.reduce((n, e) => n + Buffer.byteLength(e.data) + 40, 0);
      expect(bytes).toBeLessThanOrEqual(replayMaxBytes);
      expect(replayed.length).toBeGreaterThan(0);
      expect(replayed.length).toBeLessThan(40);
      expect(JSON.parse(gap.data)).toEqual({ lastEventId: 0, oldestId: Number(replayed[0]!.id) });
    } finally {
      client.close();
    }
  });

  it('past the opens a minute allows, one address gets 429 with Retry-After until the minute refills', async () => {
    t.clock.advance(60_000);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < opensPerMinute + 1; i++) {
      const controller = new AbortController();
      const res = await fetch(`${base}/v1/stream`, { headers: { 'last-event-id': '0' }, signal: controller.signal });
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get('retry-after');
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PP_ERR_STREAM_RECONNECTS');
      }
      controller.abort();
    }
    expect(statuses).toEqual([...Array(opensPerMinute).fill(200), 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    t.clock.advance(60_000);
    const again = new AbortController();
    expect((await fetch(`${base}/v1/stream`, { signal: again.signal })).status).toBe(200);
    again.abort();
  });
});
