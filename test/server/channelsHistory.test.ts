// GET /v1/history?channels=…: several channels' minutes in one request, each channel asked for in the answer
// in the order asked, bounded in channels and span, behind the token like every read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, t0, type TestApp } from './harness.js';

const memory = engines.find((e) => e.name === 'memory')!;
const minute = 60_000;
const token = 'history-token-0123456789';
const bearer = { authorization: `Bearer ${token}` };

describe('multi-channel history', () => {
  let t: TestApp;
  const from = t0 - 30 * minute;
  beforeAll(async () => {
    t = await makeApp(memory, { config: { token } });
    await t.history.upsertMinutes([
      { channel: 'alipay', minute: from, success: 9, failure: 1, started: 10 },
      { channel: 'alipay', minute: from + minute, success: 0, failure: 0, started: 2 },
      { channel: 'bank-x', minute: from, success: 1, failure: 3, started: 4 },
      { channel: 'card', minute: from - 3 * 3600_000, success: 5, failure: 0, started: 5 },
    ]);
  });
  afterAll(() => t?.close());

  it('answers every channel asked for, in order, with its minutes and rates', async () => {
    const res = await t.app.inject({ url: `/v1/history?channels=bank-x,nobody,alipay&from=${from}&to=${t0}`, headers: bearer });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from,
      to: t0,
      channels: [
        { channel: 'bank-x', minutes: [{ minute: from, success: 1, failure: 3, started: 4, rate: 0.25 }] },
        { channel: 'nobody', minutes: [] },
        {
          channel: 'alipay',
          minutes: [
            { minute: from, success: 9, failure: 1, started: 10, rate: 0.9 },
            { minute: from + minute, success: 0, failure: 0, started: 2, rate: null },
          ],
        },
      ],
    });
  });

  it('answers what the one-channel route answers for each channel', async () => {
    const query = `from=${from}&to=${t0}`;
    const many = (await t.app.inject({ url: `/v1/history?channels=alipay,bank-x&${query}`, headers: bearer })).json();
    for (const { channel, minutes } of many.channels) {
      const one = (await t.app.inject({ url: `/v1/channels/${channel}/history?${query}`, headers: bearer })).json();
      expect(minutes).toEqual(one.minutes);
    }
  });

  it('needs the token', async () => {
    expect((await t.app.inject({ url: '/v1/history?channels=alipay' })).statusCode).toBe(401);
  });

  const channels = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`).join(',');
  it.each([
    ['', 'querystring.channels'],
    ['channels=', 'querystring.channels'],
    [`channels=${channels(201)}`, 'querystring.channels'],
    ['channels=alipay,,bank-x', 'querystring.channels'],
    ['channels=ali%20pay', 'querystring.channels'],
    ['channels=alipay,alipay', 'querystring.channels'],
    [`channels=alipay&from=${t0 - 7 * 3600_000}&to=${t0}`, 'querystring'],
    ['channels=alipay&from=yesterday', 'querystring.from'],
    ['channels=alipay&to=1e17', 'querystring.to'],
    ['channels=alipay&window=5m', 'querystring.window'],
  ])('GET /v1/history?%s → 400 naming %s', async (query, field) => {
    const res = await t.app.inject({ url: `/v1/history?${query}`, headers: bearer });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('PP_ERR_VALIDATION');
    expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('takes 200 channels in one request', async () => {
    const res = await t.app.inject({ url: `/v1/history?channels=${channels(200)}`, headers: bearer });
    expect(res.statusCode).toBe(200);
    expect(res.json().channels).toHaveLength(200);
  });
});
