// A drained series' alert after it resolves: its short window still holds the outage's failures, which must not
// fire it again, while fresh failures must. The rule alone (drained.ts), on a reader of fixed newest outcomes.
import { describe, expect, it } from 'vitest';
import { drainedObservation, type RecentReader } from '../../src/alerts/drained.js';
import { resolveAlertRules, ruleFor } from '../../src/alerts/rules.js';
import { initialState, type AlertState } from '../../src/alerts/state.js';
import type { Observation } from '../../src/alerts/decision.js';
import { wilson } from '../../src/stats/wilson.js';

const rules = resolveAlertRules({});
const rule = ruleFor(rules, 'acq-a');
const now = Date.UTC(2026, 2, 2, 10, 10, 0);

/** The newest outcomes: the 10 freshest all succeed or all fail; those before them succeed at `olderSuccessRate`. */
function reader(freshest: 'succeed' | 'fail', olderSuccessRate: number): RecentReader {
  return async (channel, { n }) => {
    const fresh = Math.min(n, 10);
    const success = (freshest === 'succeed' ? fresh : 0) + Math.round((n - fresh) * olderSuccessRate);
    const { low, high } = wilson(success, n);
    return { channel, window: `last${n}`, total: n, success, failure: n - success, rate: success / n, low, high, sufficient: false, started: n, pending: 0, stale: false, asOf: now };
  };
}

// The short window (1 m) breaching at critical: the outage's failures are still in its minute.
const shortWindowBreach: Observation = { fast: 3, slow: 0 };
const resolvedAgo = (ms: number): AlertState => ({ ...initialState, slot: 10, resolvedAt: now - ms, drainedAt: now - 5_000 });

describe('a drained alert just resolved', () => {
  it('is not fired again by its short window while its newest 10 are healthy', async () => {
    const observed = await drainedObservation(reader('succeed', 0.1), 'acq-a', undefined, shortWindowBreach, resolvedAgo(5_000), rule, rules, now, false);
    expect(observed.fast).toBe(0);
  });

  it('fires again at once when its newest 10 fail again, however recent the resolution', async () => {
    const observed = await drainedObservation(reader('fail', 0.97), 'acq-a', undefined, shortWindowBreach, resolvedAgo(5_000), rule, rules, now, false);
    expect(observed.fast).toBeGreaterThan(0);
  });

  it('fires on its short window again once a short window has passed since the resolution', async () => {
    const observed = await drainedObservation(reader('succeed', 0.1), 'acq-a', undefined, shortWindowBreach, resolvedAgo(60_000), rule, rules, now, false);
    expect(observed.fast).toBe(3);
  });

  it('fires on its short window as before when it never resolved', async () => {
    const observed = await drainedObservation(reader('succeed', 0.1), 'acq-a', undefined, shortWindowBreach, { ...initialState, slot: 10, drainedAt: now - 5_000 }, rule, rules, now, false);
    expect(observed.fast).toBe(3);
  });
});
