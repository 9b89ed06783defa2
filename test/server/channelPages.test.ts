// GET /v1/channels and the stream's `rates` past the page size: the worst channels first (by state, then
// rate, then name), pages by offset with a bounded limit, a case-blind name search, and a summary by state
// that covers what the page leaves out. Below the size a client sees exactly the answer it always had.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/server/config.js';
import type { Outcome } from '../../src/types.js';
import { engines, makeApp, t0, type TestApp } from './harness.js';
import { openSse } from './sse.js';

const memory = engines.find((e) => e.name === 'memory')!;
const name = (i: number) => `ch${String(i).padStart(3, '0')}`;
// Channel i fails i % 60 of its 100 outcomes: rates 1.00 … 0.41, five channels at each rate.
const failuresOf = (i: number) => i % 60;
const graded = 300;

function outcomesOf(channel: string, total: number, failures: number, status?: 'pending'): Outcome[] {
  return Array.from({ length: total }, (_, k) => ({
    channel,
    requestId: `${channel}-${k}`,
    status: status ?? (k < failures ? 'failure' : 'success'),
    at: t0 - 1_000,
  }));
}

type Entry = { channel: string; rates: Record<string, { rate: number | null }> };
const names = (body: { channels: Entry[] }) => body.channels.map((c) => c.channel);

describe('channel pages past the page size', () => {
  let t: TestApp;
  let base: string;
  // What worst-first means here, worked out from the data: most failures first, equal ones by name.
  const expectedWorst = Array.from({ length: graded }, (_, i) => i)
    .sort((a, b) => failuresOf(b) - failuresOf(a) || a - b)
    .map(name);

  beforeAll(async () => {
    t = await makeApp(memory);
    const outcomes = Array.from({ length: graded }, (_, i) => outcomesOf(name(i), 100, failuresOf(i))).flat();
    // Too few samples to grade, and sent but never answered: both rank after every graded channel.
    outcomes.push(...outcomesOf('few-x', 5, 5), ...outcomesOf('idle-x', 3, 0, 'pending'));
    await t.pulse.recordMany(outcomes);
    await t.pulse.snapshots.refresh();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  it('answers the worst 200 first by default, with a summary of every channel and the next offset', async () => {
    const res = await t.app.inject({ url: '/v1/channels' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(names(body)).toEqual(expectedWorst.slice(0, 200));
    expect(body.channels[0].rates['1m'].rate).toBe(0.41);
    expect(body).toMatchObject({ total: 302, offset: 0, nextOffset: 200 });
    // 51–59 failures critical (< 50 %), 21–50 major (< 80 %), 6–20 warn (< 95 %), 0–5 ok; five channels each.
    expect(body.summary).toEqual({ channels: 302, critical: 45, major: 150, warn: 75, ok: 30, few: 1, none: 1 });
  });

  it('pages on from nextOffset to the end, the ungraded channels last', async () => {
    const body = (await t.app.inject({ url: '/v1/channels?offset=200' })).json();
    expect(names(body)).toEqual([...expectedWorst.slice(200), 'few-x', 'idle-x']);
    expect(body.nextOffset).toBeUndefined();
    expect(body.summary.channels).toBe(302);
    const byName = (await t.app.inject({ url: '/v1/channels?sort=name&limit=2&offset=1' })).json();
    expect(names(byName)).toEqual([name(1), name(2)]);
    expect(byName.nextOffset).toBe(3);
  });

  it('finds a healthy channel the first page leaves out, whatever the case of the search', async () => {
    expect(expectedWorst.slice(0, 200)).not.toContain(name(120));
    const body = (await t.app.inject({ url: '/v1/channels?search=CH12' })).json();
    expect(body.total).toBe(10); // ch120–ch129
    expect(names(body)).toContain(name(120));
    expect(body.channels.find((c: Entry) => c.channel === name(120)).rates['5m'].rate).toBe(1);
    expect(body.summary.channels).toBe(302);
  });

  it.each([
    ['limit=0', 'querystring.limit'],
    ['limit=1001', 'querystring.limit'],
    ['limit=ten', 'querystring.limit'],
    ['offset=-1', 'querystring.offset'],
    ['offset=1000001', 'querystring.offset'],
    ['sort=best', 'querystring.sort'],
    ['search=a%20b', 'querystring.search'],
    [`search=${'x'.repeat(65)}`, 'querystring.search'],
    ['page=2', 'querystring.page'],
  ])('GET /v1/channels?%s → 400 naming %s', async (query, field) => {
    const res = await t.app.inject({ url: `/v1/channels?${query}` });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('PP_ERR_VALIDATION');
    expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('streams the worst stream page (smaller than the REST page) and the summary, not every channel', async () => {
    const client = await openSse(`${base}/v1/stream`);
    try {
      await t.app.paypulse.ticker.tick();
      const data = JSON.parse((await client.next('rates')).data);
      const shown = [...new Set(data.rates.map((r: { channel: string }) => r.channel))];
      expect(shown).toEqual(expectedWorst.slice(0, defaultConfig.streamPageChannels));
      expect(defaultConfig.streamPageChannels).toBeLessThan(defaultConfig.pageChannels);
      expect(data).toMatchObject({ channels: 302, truncated: true, summary: { channels: 302, critical: 45, few: 1, none: 1 } });
    } finally {
      client.close();
    }
  });
});

describe('channel pages below the page size', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeApp(memory);
    await t.pulse.recordMany([...outcomesOf('bank-x', 100, 40), ...outcomesOf('alipay', 100, 0), ...outcomesOf('card', 100, 10)]);
    await t.pulse.snapshots.refresh();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  it('answers every channel by name with the fields it always had, and no summary', async () => {
    const body = (await t.app.inject({ url: '/v1/channels' })).json();
    expect(Object.keys(body).sort()).toEqual(['asOf', 'channels', 'offset', 'thresholds', 'total', 'windows']);
    expect(names(body)).toEqual(['alipay', 'bank-x', 'card']);
    expect(body).toMatchObject({ total: 3, offset: 0 });
    // A page that leaves channels out says what it does not show.
    const one = (await t.app.inject({ url: '/v1/channels?sort=worst&limit=1' })).json();
    expect(names(one)).toEqual(['bank-x']);
    expect(one).toMatchObject({ nextOffset: 1, summary: { channels: 3, major: 1, warn: 1, ok: 1 } });
  });

  it('streams every channel with the fields it always had, worst first', async () => {
    const client = await openSse(`${base}/v1/stream`);
    try {
      await t.app.paypulse.ticker.tick();
      const data = JSON.parse((await client.next('rates')).data);
      // The verdict of each row beside its rates, so the page paints what the alerts judge and grades nothing itself.
      expect(Object.keys(data).sort()).toEqual(['asOf', 'channels', 'rates', 'truncated', 'verdicts']);
      expect(data.verdicts).toEqual({ 'bank-x': { state: 'major', window: '1m' }, card: { state: 'warn', window: '1m' }, alipay: { state: 'ok', window: '1m' } });
      expect([...new Set(data.rates.map((r: { channel: string }) => r.channel))]).toEqual(['bank-x', 'card', 'alipay']);
      expect(data).toMatchObject({ channels: 3, truncated: false });
    } finally {
      client.close();
    }
  });

  it('pages past a configured size', async () => {
    const small = await makeApp(memory, { config: { pageChannels: 2 } });
    try {
      await small.pulse.recordMany([...outcomesOf('bank-x', 100, 40), ...outcomesOf('alipay', 100, 0), ...outcomesOf('card', 100, 10)]);
      await small.pulse.snapshots.refresh();
      const body = (await small.app.inject({ url: '/v1/channels' })).json();
      expect(names(body)).toEqual(['bank-x', 'card']);
      expect(body).toMatchObject({ total: 3, nextOffset: 2, summary: { channels: 3 } });
    } finally {
      await small.close();
    }
  });

  it.each([
    [{ pageChannels: 2, streamPageChannels: 1 }, ['bank-x']],
    // Never more than the REST page: past pageChannels the stream is a page of it.
    [{ pageChannels: 2, streamPageChannels: 50 }, ['bank-x', 'card']],
  ])('streams the worst streamPageChannels past the page size (%o)', async (config, expected) => {
    const small = await makeApp(memory, { config });
    try {
      await small.pulse.recordMany([...outcomesOf('bank-x', 100, 40), ...outcomesOf('alipay', 100, 0), ...outcomesOf('card', 100, 10)]);
      const url = await small.app.listen({ port: 0, host: '127.0.0.1' });
      const client = await openSse(`${url}/v1/stream`);
      try {
        await small.app.paypulse.ticker.tick();
        const data = JSON.parse((await client.next('rates')).data);
        expect([...new Set(data.rates.map((r: { channel: string }) => r.channel))]).toEqual(expected);
        expect(data).toMatchObject({ channels: 3, truncated: true, summary: { channels: 3, major: 1, warn: 1, ok: 1 } });
      } finally {
        client.close();
      }
    } finally {
      await small.close();
    }
  });
});
