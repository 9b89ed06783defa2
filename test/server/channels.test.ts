// The read routes on both engines: the HTTP answers carry the library's own numbers for the same data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, outcome, t0, type TestApp } from './harness.js';

const minute = 60_000;

describe.each(engines)('channel read routes on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    await engine.start();
    t = await makeApp(engine);
    // alipay: 8 successes, 2 failures in the last minute; bank-x: 1 of 4 older (10 min ago).
    const outcomes = [
      ...Array.from({ length: 8 }, (_, i) => outcome(t.clock, { channel: 'alipay' }, 1_000 + i * 1_000)),
      outcome(t.clock, { channel: 'alipay', status: 'failure', code: 'TIMEOUT', requestId: 'fail-old' }, 30_000),
      outcome(t.clock, { channel: 'alipay', status: 'failure', requestId: 'fail-new' }, 500),
      outcome(t.clock, { channel: 'bank-x' }, 10 * minute),
      ...Array.from({ length: 3 }, () => outcome(t.clock, { channel: 'bank-x', status: 'failure', code: 'DECLINED' }, 10 * minute)),
    ];
    expect((await t.pulse.recordMany(outcomes)).accepted).toBe(outcomes.length);
  });
  afterAll(async () => {
    await t?.close();
    await engine.stop();
  });

  it('GET /v1/channels lists every channel with a rate per configured window and the thresholds', async () => {
    const res = await t.app.inject({ url: '/v1/channels' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.windows).toEqual(['1m', '5m', '15m', '1h']);
    expect(body.thresholds).toEqual({ warn: 0.95, major: 0.8, critical: 0.5 });
    expect(body.channels.map((c: { channel: string }) => c.channel)).toEqual(['alipay', 'bank-x']);
    const bank = body.channels[1];
    expect(Object.keys(bank.rates)).toEqual(['1m', '5m', '15m', '1h']);
    expect(bank.rates['1m'].total).toBe(0);
    expect(bank.rates['15m']).toEqual(await t.pulse.rate('bank-x', { window: '15m' }));
  });

  it('GET rate gives the library Rate for a window, with 5m by default', async () => {
    for (const window of ['1m', '5m', '1h']) {
      const res = await t.app.inject({ url: `/v1/channels/alipay/rate?window=${window}` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(await t.pulse.rate('alipay', { window }));
    }
    const byDefault = (await t.app.inject({ url: '/v1/channels/alipay/rate' })).json();
    expect(byDefault).toMatchObject({ window: '5m', total: 10, success: 8, failure: 2, rate: 0.8 });
    expect(byDefault.low).toBeLessThan(0.8);
    expect(byDefault.high).toBeGreaterThan(0.8);
  });

  it('GET rate with n gives the last-N Rate', async () => {
    const res = await t.app.inject({ url: '/v1/channels/alipay/rate?n=5' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(await t.pulse.lastN('alipay', { n: 5 }));
    expect(res.json().total).toBe(5);
  });

  it('GET rate of a channel not seen within the horizon is 404 PP_ERR_NOT_FOUND, not an empty Rate', async () => {
    await t.pulse.snapshots.refresh();
    const res = await t.app.inject({ url: '/v1/channels/nobody/rate?window=1m' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'PP_ERR_NOT_FOUND', message: expect.stringContaining('"nobody"') });
    expect((await t.app.inject({ url: '/v1/channels/nobody/rate?n=10' })).statusCode).toBe(404);
  });

  it('GET rate of a channel seen within the horizon but quiet in the window is an empty Rate', async () => {
    // bank-x's outcomes are 10 minutes old: known, with nothing in the last minute.
    const res = await t.app.inject({ url: '/v1/channels/bank-x/rate?window=1m' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ channel: 'bank-x', total: 0, rate: null, sufficient: false });
  });

  it.each([
    ['/v1/channels/alipay/rate?window=5m&n=10', 'give window or n, not both'],
    ['/v1/channels/alipay/rate?window=five', 'querystring.window'],
    ['/v1/channels/alipay/rate?n=0', 'querystring.n'],
    ['/v1/channels/alipay/rate?colour=red', 'querystring'],
    ['/v1/channels/ali%20pay/rate', 'params.channel'],
    ['/v1/channels/alipay/rate?dims=method', 'name:value'],
    ['/v1/channels/alipay/failures?limit=0', 'querystring.limit'],
    ['/v1/channels/alipay/history?from=yesterday', 'epoch milliseconds or an ISO 8601 date'],
    [`/v1/channels/alipay/history?from=${t0}&to=${t0 - 1}`, 'must not be after to'],
    [`/v1/channels/alipay/history?from=${t0 - 40 * 24 * 3600_000}&to=${t0}`, 'at most 31 days'],
  ])('GET %s → 400', async (url, expected) => {
    const res = await t.app.inject({ url });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('PP_ERR_VALIDATION');
    expect(JSON.stringify(error)).toContain(expected);
  });

  it('GET rate with a window the library cannot serve is a 400, not a 500', async () => {
    const res = await t.app.inject({ url: '/v1/channels/alipay/rate?window=48h' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('PP_ERR_VALIDATION');
  });

  it('GET failures lists the newest failed requests first, within the window and the limit', async () => {
    const res = await t.app.inject({ url: '/v1/channels/alipay/failures?window=5m&limit=20' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      channel: 'alipay',
      window: '5m',
      failures: [
        { requestId: 'fail-new', at: t0 - 500 },
        { requestId: 'fail-old', at: t0 - 30_000, code: 'TIMEOUT' },
      ],
    });
    const limited = (await t.app.inject({ url: '/v1/channels/alipay/failures?limit=1' })).json();
    expect(limited.failures.map((f: { requestId: string }) => f.requestId)).toEqual(['fail-new']);
    const bank = (await t.app.inject({ url: '/v1/channels/bank-x/failures?window=15m' })).json();
    expect(bank.failures).toHaveLength(3);
    expect(bank.failures[0].code).toBe('DECLINED');
  });

  it('GET history serves the per-minute snapshots the job copied, with rates', async () => {
    const empty = (await t.app.inject({ url: '/v1/channels/bank-x/history' })).json();
    expect(empty.minutes).toEqual([]);

    await t.snapshots.runOnce();
    const res = await t.app.inject({ url: '/v1/channels/bank-x/history' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ channel: 'bank-x', from: t0 - 3600_000, to: t0 });
    const busy = body.minutes.filter((m: { success: number; failure: number }) => m.success + m.failure > 0);
    expect(busy).toEqual([{ minute: Math.floor((t0 - 10 * minute) / minute) * minute, success: 1, failure: 3, started: 0, rate: 0.25 }]);

    const iso = new Date(t0 - 11 * minute).toISOString();
    const ranged = (await t.app.inject({ url: `/v1/channels/bank-x/history?from=${iso}&to=${t0 - 9 * minute}` })).json();
    expect(ranged.minutes.filter((m: { failure: number }) => m.failure > 0)).toHaveLength(1);
    const before = (await t.app.inject({ url: `/v1/channels/bank-x/history?from=${t0 - 3 * 3600_000}&to=${t0 - 2 * 3600_000 - minute}` })).json();
    expect(before.minutes).toEqual([]);
  });
});
