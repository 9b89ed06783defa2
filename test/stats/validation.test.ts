import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ValidationError } from '../../src/errors.js';
import { createPulse } from '../../src/pulse.js';
import type { Outcome } from '../../src/types.js';

const at = Date.UTC(2026, 0, 1);
const good: Outcome = { channel: 'alipay', requestId: 'r1', status: 'success', at };

async function issuesOf(promise: Promise<unknown>) {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ValidationError);
  return (err as ValidationError).issues;
}

describe('bad input', () => {
  it('names the field and the index of every bad item, and records nothing of the batch', async () => {
    const pulse = await createPulse({ clock: new ManualClock(at), restrictDims: true, dimensions: [['method']] });
    const batch = [
      good,
      { ...good, requestId: '' },
      { ...good, channel: 'bad channel!' },
      { ...good, requestId: 'x'.repeat(129) },
      { ...good, requestId: 'tab\there' },
      { ...good, status: 'ok' },
      { ...good, at: 1.5 },
      { ...good, at: Number.NaN },
      { ...good, dims: { country: 'CN' } },
      { ...good, dims: { method: 'has space' } },
    ] as Outcome[];
    expect(await issuesOf(pulse.recordMany(batch))).toEqual([
      { index: 1, field: 'requestId', reason: 'must be a non-empty string' },
      { index: 2, field: 'channel', reason: 'must be 1–64 characters of [A-Za-z0-9._:-]' },
      { index: 3, field: 'requestId', reason: 'must be at most 128 characters' },
      { index: 4, field: 'requestId', reason: 'must not contain control characters (C0, C1, bidi controls or lone surrogates)' },
      { index: 5, field: 'status', reason: "must be 'success', 'failure' or 'pending'" },
      { index: 6, field: 'at', reason: 'must be a non-negative integer of epoch milliseconds' },
      { index: 7, field: 'at', reason: 'must be a non-negative integer of epoch milliseconds' },
      { index: 8, field: 'dims.country', reason: 'is not a configured dimension' },
      { index: 9, field: 'dims.method', reason: 'value must be 1–64 characters of [A-Za-z0-9._:/+-]' },
    ]);
    expect(await pulse.channels()).toEqual([]);
    expect((await pulse.rate('alipay', { window: '1m' })).total).toBe(0);
    await pulse.close();
  });

  it('rejects a missing channel in record() and bad queries with typed errors', async () => {
    const pulse = await createPulse({ clock: new ManualClock(at) });
    expect(await issuesOf(pulse.record({ ...good, channel: undefined } as unknown as Outcome))).toEqual([
      { index: 0, field: 'channel', reason: 'is required' },
    ]);
    expect((await issuesOf(pulse.rate('alipay', { window: '3h' })))[0].field).toBe('window');
    expect((await issuesOf(pulse.rate('alipay', { window: '5s' })))[0].field).toBe('window');
    expect((await issuesOf(pulse.lastN('alipay', { n: 0 })))[0].field).toBe('n');
    expect((await issuesOf(pulse.failures('alipay', { limit: 5000 })))[0].field).toBe('limit');
    await pulse.close();
  });

  it('refuses bad options with a clear message', async () => {
    await expect(createPulse({ windows: ['1d'] })).rejects.toThrow(/windows: window must look like 30s, 5m or 1h/);
    await expect(createPulse({ strategy: 'hash' as never })).rejects.toThrow(/strategy must be one of/);
    await expect(createPulse({ strategy: 'zset-sharded' as never })).rejects.toMatchObject({
      code: 'PP_ERR_CONFIG',
      message: expect.stringMatching(/^strategy .*'zset-sharded' was removed, use 'buckets'/),
      details: { field: 'strategy' },
    });
    await expect(createPulse({ pendingTimeoutMs: 2 * 3600_000 })).rejects.toThrow(/shorter than the dedup horizon/);
    await expect(createPulse({ skewToleranceMs: 2 * 3600_000 })).rejects.toThrow(/skewToleranceMs must be at most 3600000/);
  });
});
