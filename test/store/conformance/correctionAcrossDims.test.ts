// A request's later outcome may carry other dims than its first (a retry with another payment method under
// the same request id). The correction takes the first outcome's count back from the series that counted it,
// and counts the new outcome in its own series; no count goes below zero, no rate is NaN. Every engine and
// strategy.
import { describe, expect, it } from 'vitest';
import type { Outcome, Rate } from '../../../src/types.js';
import { statsEngines, start } from '../../support/statsEngines.js';

const options = { dimensions: [['method']], pendingTimeoutMs: 60_000 };
const card = { method: 'card' };
const wallet = { method: 'wallet' };
const outcome = (requestId: string, status: Outcome['status'], at: number, dims?: Record<string, string>): Outcome => ({
  channel: 'alipay',
  requestId,
  status,
  at,
  ...(dims ? { dims } : {}),
  ...(status === 'failure' ? { code: 'do_not_honor' } : {}),
});

const counts = (r: Rate) => ({ success: r.success, failure: r.failure, started: r.started, pending: r.pending });

function sane(r: Rate): void {
  for (const n of [r.total, r.success, r.failure, r.started, r.pending]) expect(n).toBeGreaterThanOrEqual(0);
  for (const x of [r.rate, r.low, r.high]) if (x !== null) expect(Number.isNaN(x) || x < 0 || x > 1).toBe(false);
}

describe.each(statsEngines({ cluster: false }))('a correction across dims: $name', (engine) => {
  async function ratesAfter(batches: Outcome[][], advanceMs = 0) {
    const { pulse, clock } = await engine.make(options);
    try {
      for (const batch of batches) await pulse.recordMany(batch);
      clock.advance(advanceMs);
      const read = async (dims?: Record<string, string>) => {
        const r = await pulse.rate('alipay', { window: '5m', ...(dims ? { dims } : {}) });
        sane(r);
        const last = await pulse.lastN('alipay', { n: 10, ...(dims ? { dims } : {}) });
        sane(last);
        return { ...counts(r), lastN: [last.success, last.failure] };
      };
      return { channel: await read(), card: await read(card), wallet: await read(wallet), failures: await pulse.failures('alipay', { window: '5m' }) };
    } finally {
      await pulse.close();
    }
  }

  const none = { success: 0, failure: 0, started: 0, pending: 0, lastN: [0, 0] };
  const oneSuccess = { success: 1, failure: 0, started: 0, pending: 0, lastN: [1, 0] };

  it('a failure with method=card then a success with method=wallet, in two calls', async () => {
    const got = await ratesAfter([[outcome('n1', 'failure', start - 2_000, card)], [outcome('n1', 'success', start - 1_000, wallet)]]);
    expect(got).toEqual({ channel: oneSuccess, card: none, wallet: oneSuccess, failures: [] });
  });

  it('the same, in one batch', async () => {
    const got = await ratesAfter([[outcome('n1', 'failure', start - 2_000, card), outcome('n1', 'success', start - 1_000, wallet)]]);
    expect(got).toEqual({ channel: oneSuccess, card: none, wallet: oneSuccess, failures: [] });
  });

  it('a failure with dims corrected by a success without, and the other way round', async () => {
    const got = await ratesAfter([
      [outcome('n1', 'failure', start - 3_000, card), outcome('n2', 'failure', start - 3_000)],
      [outcome('n1', 'success', start - 1_000), outcome('n2', 'success', start - 1_000, wallet)],
    ]);
    expect(got).toEqual({ channel: { ...oneSuccess, success: 2, lastN: [2, 0] }, card: none, wallet: oneSuccess, failures: [] });
  });

  it('a request sent with method=card ends with method=wallet: no pending left on card, none below zero on wallet', async () => {
    const got = await ratesAfter([[outcome('n1', 'pending', start - 5_000, card)], [outcome('n1', 'success', start - 1_000, wallet)]]);
    expect(got).toEqual({
      channel: { ...oneSuccess, started: 1 },
      card: { ...none, started: 1 },
      wallet: oneSuccess,
      failures: [],
    });
  });

  it('a request sent with method=card times out, then succeeds with method=wallet', async () => {
    const got = await ratesAfter([[outcome('n1', 'pending', start - 61_000, card)], [outcome('n1', 'success', start - 500, wallet)]]);
    expect(got).toEqual({ channel: { ...oneSuccess, started: 1 }, card: { ...none, started: 1 }, wallet: oneSuccess, failures: [] });
  });

  it('a duplicate failure with other dims changes nothing', async () => {
    const got = await ratesAfter([[outcome('n1', 'failure', start - 2_000, card)], [outcome('n1', 'failure', start - 1_000, wallet)]]);
    const oneFailure = { success: 0, failure: 1, started: 0, pending: 0, lastN: [0, 1] };
    expect(got).toMatchObject({ channel: oneFailure, card: oneFailure, wallet: none });
  });
});
