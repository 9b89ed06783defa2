// The reported sequence over HTTP: request n1 fails with method=card, then succeeds with method=wallet. The
// wallet series once went to failure -1 (rate above 1, a NaN bound) and its rate route answered 500; the
// correction now takes the failure back from the card series, where it was counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, post, type TestApp } from './harness.js';

describe.each(engines)('a correction across dims over HTTP on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    await engine.start();
    t = await makeApp(engine, { pulse: { dimensions: [['method']] } });
  });
  afterAll(async () => {
    await t?.close();
    await engine.stop();
  });

  it('a failure with method=card, then a success with method=wallet: each series has its true count', async () => {
    const at = t.clock.now();
    // Another wallet payment, so that the old -1 gave a rate of 2 and a NaN bound rather than no rate at all.
    expect((await post(t.app, { channel: 'alipay', requestId: 'n0', status: 'success', at: at - 3_000, dims: { method: 'wallet' } })).statusCode).toBe(200);
    const fail = { channel: 'alipay', requestId: 'n1', status: 'failure', at: at - 2_000, code: 'do_not_honor', dims: { method: 'card' } };
    expect((await post(t.app, fail)).statusCode).toBe(200);
    const ok = { channel: 'alipay', requestId: 'n1', status: 'success', at: at - 1_000, dims: { method: 'wallet' } };
    const corrected = await post(t.app, ok);
    expect(corrected.statusCode).toBe(200);
    expect(corrected.json()).toMatchObject({ corrected: 1 });

    const rate = async (query: string) => {
      const res = await t.app.inject({ url: `/v1/channels/alipay/rate?window=5m${query}` });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    expect(await rate('&dims=method:wallet')).toMatchObject({ total: 2, success: 2, failure: 0, rate: 1 });
    expect(await rate('&dims=method:card')).toMatchObject({ total: 0, success: 0, failure: 0, rate: null });
    expect(await rate('')).toMatchObject({ total: 2, success: 2, failure: 0, rate: 1 });
    const wallet = await rate('&dims=method:wallet');
    expect(wallet.low).toBeGreaterThan(0);
    expect(wallet.high).toBe(1);
  });
});
