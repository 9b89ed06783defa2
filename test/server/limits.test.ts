// Distinct channels and dimension values are bounded: past the limit, outcomes for NEW names get a typed
// 429 (PP_ERR_LIMIT), counted in /metrics, and a rejected batch records nothing; known names carry on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, outcome, post, type TestApp } from './harness.js';

describe.each(engines)('name limits on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    await engine.start();
    t = await makeApp(engine, { pulse: { maxChannels: 3, maxDimensionValues: 2, dimensions: [['method']] } });
  });
  afterAll(async () => {
    await t?.close();
    await engine.stop();
  });

  it('refuses a batch naming a new channel past maxChannels, whole, and keeps accepting known ones', async () => {
    const three = ['a', 'b', 'c'].map((channel) => outcome(t.clock, { channel }));
    expect((await post(t.app, { outcomes: three })).statusCode).toBe(200);

    const mixed = [outcome(t.clock, { channel: 'a' }), outcome(t.clock, { channel: 'd' }), outcome(t.clock, { channel: 'e' })];
    const res = await post(t.app, { outcomes: mixed });
    expect(res.statusCode).toBe(429);
    const { error } = res.json();
    expect(error.code).toBe('PP_ERR_LIMIT');
    expect(error.details).toEqual([
      { index: 1, field: 'channel', reason: 'is a new channel past the limit of 3 distinct channels' },
      { index: 2, field: 'channel', reason: 'is a new channel past the limit of 3 distinct channels' },
    ]);
    // Nothing of the rejected batch counts, not even the known channel's outcome.
    expect((await t.pulse.rate('a', { window: '5m' })).total).toBe(1);
    expect((await t.pulse.rate('d', { window: '5m' })).total).toBe(0);

    expect((await post(t.app, outcome(t.clock, { channel: 'b' }))).statusCode).toBe(200);
    expect((await t.pulse.rate('b', { window: '5m' })).total).toBe(2);
    expect(await t.pulse.channels()).toEqual(['a', 'b', 'c']);
  });

  it('refuses new values of a configured dimension past maxDimensionValues', async () => {
    const ok = [outcome(t.clock, { channel: 'a', dims: { method: 'card' } }), outcome(t.clock, { channel: 'a', dims: { method: 'pix' } })];
    expect((await post(t.app, { outcomes: ok })).statusCode).toBe(200);
    const res = await post(t.app, outcome(t.clock, { channel: 'a', dims: { method: 'boleto' } }));
    expect(res.statusCode).toBe(429);
    expect(res.json().error.details).toEqual([{ index: 0, field: 'dims.method', reason: 'is a new value past the limit of 2 values of method' }]);
    expect((await t.pulse.rate('a', { window: '5m', dims: { method: 'boleto' } })).total).toBe(0);
    // Dims outside the configured sets keep no state, so they are not limited.
    expect((await post(t.app, outcome(t.clock, { channel: 'a', dims: { method: 'card', note: 'x1' } }))).statusCode).toBe(200);
  });

  it('counts refused outcomes in /metrics and shows the known channels', async () => {
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/^paypulse_limit_rejected_outcomes_total\{limit="channels"\} 2$/m);
    expect(text).toMatch(/^paypulse_limit_rejected_outcomes_total\{limit="dimensionValues"\} 1$/m);
    expect(text).toMatch(/^paypulse_known_channels 3$/m);
  });

  it('forgets a channel unseen for the dedup horizon, making room for a new one', async () => {
    t.clock.advance(t.pulse.settings.horizonMs + 60_000);
    expect((await post(t.app, outcome(t.clock, { channel: 'z' }))).statusCode).toBe(200);
  });
});
