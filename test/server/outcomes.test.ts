// POST /v1/outcomes on both engines: what is recorded, what is rejected, and that a rejected body records nothing.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, makeApp, outcome, post, type TestApp } from './harness.js';

describe.each(engines)('POST /v1/outcomes on $name', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    await engine.start();
    t = await makeApp(engine);
  });
  afterAll(async () => {
    await t?.close();
    await engine.stop();
  });

  it('records one outcome sent alone', async () => {
    const res = await post(t.app, outcome(t.clock, { channel: 'single', status: 'failure', code: 'E51' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ accepted: 1, duplicates: 0, corrected: 0, stale: 0, buffered: 0, dropped: 0 });
    const rate = await t.pulse.rate('single', { window: '5m' });
    expect([rate.success, rate.failure]).toEqual([0, 1]);
  });

  it('records a batch and reports duplicates, corrections and stale outcomes', async () => {
    const first = outcome(t.clock, { channel: 'batch', status: 'failure' }, 5_000);
    const res = await post(t.app, {
      outcomes: [
        first,
        outcome(t.clock, { channel: 'batch' }),
        outcome(t.clock, { channel: 'batch', dims: { method: 'card' }, latencyMs: 120 }),
        // Too old for the longest window (1 h): stale, reported, not counted.
        outcome(t.clock, { channel: 'batch' }, 3 * 3600_000),
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accepted: 3, stale: 1 });

    const again = await post(t.app, {
      outcomes: [first, { ...first, status: 'success', at: t.clock.now() - 1_000 }],
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ accepted: 0, duplicates: 1, corrected: 1 });
    const rate = await t.pulse.rate('batch', { window: '5m' });
    expect([rate.success, rate.failure]).toEqual([3, 0]);
  });

  it('accepts an empty batch', async () => {
    const res = await post(t.app, { outcomes: [] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ accepted: 0 });
  });

  it('rejects a batch with bad items whole, naming each bad item, field and reason', async () => {
    const good = outcome(t.clock, { channel: 'rejected' });
    const res = await post(t.app, {
      outcomes: [
        good,
        { ...outcome(t.clock, { channel: 'rejected' }), status: 'done' },
        outcome(t.clock, { channel: 'rejected' }),
        { channel: 'bad channel!', requestId: 'x', status: 'success', at: -5 },
        { ...outcome(t.clock, { channel: 'rejected' }), amount: 12 },
      ],
    });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('PP_ERR_VALIDATION');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { index: 1, field: 'status', reason: "must be 'success', 'failure' or 'pending'" },
        { index: 3, field: 'channel', reason: 'must be 1–64 characters of [A-Za-z0-9._:-]' },
        { index: 3, field: 'at', reason: 'must be a non-negative integer of epoch milliseconds' },
        { index: 4, field: 'amount', reason: 'is not a known field' },
      ]),
    );
    expect(error.details.map((d: { index: number }) => d.index)).not.toContain(0);
    expect(error.details.map((d: { index: number }) => d.index)).not.toContain(2);
    // Nothing of the batch was recorded, not even its good items.
    expect((await t.pulse.rate('rejected', { window: '1h' })).total).toBe(0);
  });

  it('rejects a missing field and an unknown field of a single outcome', async () => {
    const res = await post(t.app, { channel: 'lone', status: 'success', at: t.clock.now(), merchant: 'm1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { index: 0, field: 'requestId', reason: 'is required' },
      { index: 0, field: 'merchant', reason: 'is not a known field' },
    ]);
    expect((await t.pulse.rate('lone', { window: '1h' })).total).toBe(0);
  });

  it('rejects unknown top-level fields, wrong shapes and wrong types', async () => {
    const extra = await post(t.app, { outcomes: [], source: 'java' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.details).toEqual([{ index: -1, field: 'source', reason: 'is not a known field' }]);

    const notArray = await post(t.app, { outcomes: { a: 1 } });
    expect(notArray.json().error.details).toEqual([{ index: -1, field: 'outcomes', reason: 'must be an array' }]);

    const array = await post(t.app, [outcome(t.clock, { channel: 'x' })]);
    expect(array.statusCode).toBe(400);
    expect(array.json().error.details[0]).toMatchObject({ index: -1, field: '(body)' });

    // No type coercion on bodies: a string time is a client bug, not a number.
    const stringAt = await post(t.app, { ...outcome(t.clock, { channel: 'x' }), at: String(t.clock.now()) });
    expect(stringAt.json().error.details).toEqual([{ index: 0, field: 'at', reason: 'must be a non-negative integer of epoch milliseconds' }]);
  });

  it('rejects more than 10,000 outcomes in one body', async () => {
    const outcomes = Array.from({ length: 10_001 }, () => outcome(t.clock, { channel: 'huge' }));
    const res = await post(t.app, { outcomes });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { index: -1, field: 'outcomes', reason: 'must hold at most 10000 items (got 10001)' },
    ]);
    expect((await t.pulse.rate('huge', { window: '1h' })).total).toBe(0);
  });

  it('takes exactly 10,000 outcomes', async () => {
    const outcomes = Array.from({ length: 10_000 }, (_, i) => outcome(t.clock, { channel: 'full', status: i % 10 === 0 ? 'failure' : 'success' }));
    const res = await post(t.app, { outcomes });
    expect(res.statusCode).toBe(200);
    expect(res.json().accepted).toBe(10_000);
    const rate = await t.pulse.rate('full', { window: '5m' });
    expect([rate.success, rate.failure]).toEqual([9_000, 1_000]);
  });

  it('answers 413 to a body over 5 MB, 400 to broken JSON and 415 to a non-JSON type', async () => {
    const big = JSON.stringify({ outcomes: [{ channel: 'big', requestId: 'x'.repeat(6 * 1024 * 1024), status: 'success', at: 1 }] });
    const tooLarge = await t.app.inject({ method: 'POST', url: '/v1/outcomes', payload: big, headers: { 'content-type': 'application/json' } });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().error.code).toBe('PP_ERR_PAYLOAD_TOO_LARGE');

    const broken = await t.app.inject({ method: 'POST', url: '/v1/outcomes', payload: '{"outcomes": [', headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.code).toBe('PP_ERR_VALIDATION');

    const text = await t.app.inject({ method: 'POST', url: '/v1/outcomes', payload: 'channel=a', headers: { 'content-type': 'text/plain' } });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('PP_ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('takes a gzip body, and applies the 5 MB limit to the inflated bytes', async () => {
    const outcomes = Array.from({ length: 2_000 }, () => outcome(t.clock, { channel: 'zipped' }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/outcomes',
      payload: gzipSync(JSON.stringify({ outcomes })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().accepted).toBe(2_000);

    // 6 MB of JSON that gzips to a few kB: rejected for what it would inflate to.
    const bomb = gzipSync(JSON.stringify({ outcomes: [{ channel: 'zipped', requestId: 'x'.repeat(6 * 1024 * 1024), status: 'success', at: 1 }] }));
    expect(bomb.length).toBeLessThan(100_000);
    const tooLarge = await t.app.inject({
      method: 'POST',
      url: '/v1/outcomes',
      payload: bomb,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(tooLarge.statusCode).toBe(413);

    const corrupt = await t.app.inject({
      method: 'POST',
      url: '/v1/outcomes',
      payload: Buffer.from('not gzip at all'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(corrupt.statusCode).toBe(400);
    expect(corrupt.json().error.code).toBe('PP_ERR_VALIDATION');

    const brotli = await t.app.inject({
      method: 'POST',
      url: '/v1/outcomes',
      payload: '{}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(brotli.statusCode).toBe(415);
  });

  it('counts what it records in /metrics', async () => {
    await post(t.app, { outcomes: [outcome(t.clock, { channel: 'counted' }), outcome(t.clock, { channel: 'counted', status: 'failure' }), outcome(t.clock, { channel: 'counted', status: 'failure' })] });
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toContain('paypulse_outcomes_received_total{channel="counted",status="success"} 1');
    expect(metrics).toContain('paypulse_outcomes_received_total{channel="counted",status="failure"} 2');
    expect(metrics).toContain('paypulse_outcomes_total{channel="counted",status="success"} 1');
    expect(metrics).toMatch(/paypulse_ingest_batch_outcomes_count [1-9]/);
  });

  it('counts failures by code, at most 10 codes a channel and the rest as other', async () => {
    const failures = Array.from({ length: 14 }, (_, i) => outcome(t.clock, { channel: 'coded', status: 'failure', code: `code_${String(i).padStart(2, '0')}` }));
    await post(t.app, { outcomes: [...failures, outcome(t.clock, { channel: 'coded', status: 'failure', code: 'code_00' }), outcome(t.clock, { channel: 'coded', status: 'failure' })] });
    const lines = (await t.app.inject({ url: '/metrics' })).body.split('\n').filter((l) => l.startsWith('paypulse_outcomes_total{channel="coded",status="failure"'));
    expect(lines).toContain('paypulse_outcomes_total{channel="coded",status="failure",code="code_00"} 2');
    expect(lines).toContain('paypulse_outcomes_total{channel="coded",status="failure",code="other"} 5');
    expect(lines).toHaveLength(11);
  });
});
