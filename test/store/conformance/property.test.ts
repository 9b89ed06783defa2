// Random outcome streams — duplicates, upgrades, pendings that time out, out-of-order and stale
// items, ids reused past the dedup horizon — fed to every engine and to the reference model; every
// window, last-N, failures and minutes answer must match.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../../src/stats/recordResults.js';
import type { Outcome, RecordResult } from '../../../src/types.js';
import { ReferenceModel, type ModelResult } from '../../support/referenceModel.js';
import { statsEngines } from '../../support/statsEngines.js';

// 20m: every such window holds a whole 10-minute block, which the Redis engine reads from its own totals.
const windows = { '1m': 60, '5m': 300, '20m': 1200 };
const options = { windows: Object.keys(windows), pendingTimeoutMs: 120_000, dimensions: [['method']] };
const horizonMs = 30 * 60_000; // longest window (20m) + 10 min
const skewToleranceMs = 60_000;

const item = fc.record({
  channel: fc.constantFrom('a', 'b'),
  idx: fc.integer({ min: 0, max: 11 }),
  status: fc.constantFrom('success', 'failure', 'pending', 'success', 'failure'),
  offsetMs: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -90_000, max: 5_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: -22 * 60_000, max: 0 }) },
    { weight: 2, arbitrary: fc.integer({ min: -horizonMs - 60_000, max: -horizonMs + 120_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: skewToleranceMs - 5_000, max: skewToleranceMs + 5_000 }) },
    // Whole seconds: outcomes share seconds and milliseconds, so last-N often ends inside a second.
    { weight: 2, arbitrary: fc.integer({ min: -95, max: 5 }).map((s) => s * 1000) },
    { weight: 3, arbitrary: fc.integer({ min: -3, max: 1 }).map((s) => s * 1000) },
    // On the dedup horizon's edge, and the last-N second there.
    { weight: 1, arbitrary: fc.constantFrom(-horizonMs, -horizonMs + 1, -horizonMs + 999, -horizonMs + 1000) },
  ),
  code: fc.constantFrom(undefined, 'E1', 'E2'),
});

const step = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('record' as const), items: fc.array(item, { minLength: 1, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 150_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 150 }).map((s) => s * 1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const) }) },
);

// A request's dims never change between its outcomes (the engines take each outcome's dims as the request's).
const methodOf = (idx: number) => (idx % 3 === 0 ? undefined : idx % 2 ? 'card' : 'wallet');

function toOutcome(i: { channel: string; idx: number; status: string; offsetMs: number; code?: string }, now: number): Outcome {
  const method = methodOf(i.idx);
  return {
    channel: i.channel,
    requestId: `r${i.idx}`,
    status: i.status as Outcome['status'],
    at: now + i.offsetMs,
    ...(method ? { dims: { method } } : {}),
    ...(i.code && i.status === 'failure' ? { code: i.code } : {}),
  };
}

const resultName = (r: RecordResult) => verdictOf(r) as ModelResult | 'buffered' | 'dropped';

describe.each(statsEngines())('reference model agreement: $name', (engine) => {
  it('matches the reference model on random streams', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 24 }), async (steps) => {
        const { pulse, clock } = await engine.make(options);
        const model = new ReferenceModel({ horizonMs, skewToleranceMs, pendingTimeoutMs: 120_000, dimensions: options.dimensions });
        try {
          for (const s of [...steps, { kind: 'read' as const }]) {
            const now = clock.now();
            if (s.kind === 'advance') clock.advance(s.ms);
            else if (s.kind === 'record') {
              const outcomes = s.items.map((i) => toOutcome(i, now));
              // Separate record() calls in one tick: the recorder coalesces them into one batch.
              const got = await Promise.all(outcomes.map((o) => pulse.record(o)));
              expect(got.map(resultName)).toEqual(model.recordMany(outcomes, now));
            } else {
              for (const channel of ['a', 'b']) {
                for (const dims of [undefined, { method: 'card' }]) {
                  const series = dims ? 'method=card' : '';
                  for (const [window, seconds] of Object.entries(windows)) {
                    const r = await pulse.rate(channel, { window, dims });
                    const want = model.windowCounts(channel, series, seconds, now);
                    expect({ window, success: r.success, failure: r.failure, started: r.started, pending: r.pending })
                      .toEqual({ window, ...want });
                  }
                  for (const n of [1, 2, 4, 7, 50]) {
                    const r = await pulse.lastN(channel, { n, dims });
                    expect({ n, success: r.success, failure: r.failure }).toEqual({ n, ...model.lastN(channel, series, n, now) });
                  }
                  const minutes = await pulse.minutes(channel, { from: now - 25 * 60_000, to: now, dims });
                  expect(minutes).toEqual(model.minutes(channel, series, now - 25 * 60_000, now, now));
                }
                for (const limit of [3, 50]) {
                  const fromMs = (Math.floor(now / 1000) - 299) * 1000;
                  expect(await pulse.failures(channel, { window: '5m', limit })).toEqual(model.failures(channel, fromMs, now, limit));
                }
              }
            }
          }
        } finally {
          await pulse.close();
        }
      }),
      { numRuns: engine.name === 'memory' ? 500 : 60 },
    );
  }, 180_000);
});
