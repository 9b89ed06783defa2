// Random outcome streams — duplicates, upgrades, pendings that time out, out-of-order and stale
// items, ids reused past the dedup horizon, channels of very different volumes in one batch, dims that change
// between a request's outcomes — fed to every engine and to the reference model; every window, last-N,
// failures and minutes answer must match.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../../src/stats/recordResults.js';
import type { Outcome, RecordResult } from '../../../src/types.js';
import { ReferenceModel, type ModelResult } from '../../support/referenceModel.js';
import { statsEngines, type EngineCase } from '../../support/statsEngines.js';

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
  // Mostly 0: the request's own dims. Otherwise another method, or none, than its other outcomes carry.
  dimsShift: fc.constantFrom(0, 0, 0, 0, 1, 2),
});

const step = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('record' as const), items: fc.array(item, { minLength: 1, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 150_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 150 }).map((s) => s * 1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const) }) },
);

// A request's dims are usually the same for all its outcomes; `dimsShift` gives one outcome other dims (a
// retry with another payment method under the same request id).
const methodOf = (idx: number) => (idx % 3 === 0 ? undefined : idx % 2 ? 'card' : 'wallet');

type Item = { channel: string; idx: number; status: string; offsetMs: number; code?: string; dimsShift: number };
type Step = { kind: 'record'; items: Item[] } | { kind: 'advance'; ms: number } | { kind: 'read' };

function toOutcome(i: Item, now: number): Outcome {
  const method = methodOf(i.idx + i.dimsShift);
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

/** Plays the steps on the engine and on the reference model; every read of `channels` must agree. */
async function checkAgainstModel(engine: EngineCase, steps: Step[], channels: string[], lastNs: number[]): Promise<void> {
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
        for (const channel of channels) {
          for (const dims of [undefined, { method: 'card' }, { method: 'wallet' }]) {
            const series = dims ? `method=${dims.method}` : '';
            for (const [window, seconds] of Object.entries(windows)) {
              const r = await pulse.rate(channel, { window, dims });
              const want = model.windowCounts(channel, series, seconds, now);
              expect({ channel, window, success: r.success, failure: r.failure, started: r.started, pending: r.pending })
                .toEqual({ channel, window, ...want });
            }
            for (const n of lastNs) {
              const r = await pulse.lastN(channel, { n, dims });
              expect({ channel, n, success: r.success, failure: r.failure }).toEqual({ channel, n, ...model.lastN(channel, series, n, now) });
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
}

// Channels of very different volumes in the same batches: one hot channel with tens of outcomes a
// batch, most of them new and many in one second, beside quiet channels with none or one or two.
// Most of them in the last few seconds, so hot and quiet channels share seconds within a batch.
const recentMs = fc.tuple(fc.integer({ min: -3, max: 1 }), fc.integer({ min: 0, max: 999 })).map(([s, ms]) => s * 1000 + ms);
const mixedItem = fc.tuple(item, fc.option(recentMs, { freq: 3 })).map(([i, recent]) => (recent === null ? i : { ...i, offsetMs: recent }));
const hotItem = mixedItem.map((i) => ({ ...i, channel: 'hot', idx: i.idx * 37 + (i.offsetMs & 0xff) }));
const quietItem = mixedItem.map((i) => ({ ...i, channel: `q${i.idx % 3}` }));
const mixedStep = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.array(hotItem, { minLength: 10, maxLength: 40 }), fc.array(quietItem, { minLength: 1, maxLength: 4 }))
      .map(([hot, quiet]) => ({ kind: 'record' as const, items: [...hot, ...quiet] })),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 150_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const) }) },
);

// Fewer runs on the Redis engines (a run is a few store round trips a step): six of them share the suite's
// five minutes, and every run of the suite draws new streams.
describe.each(statsEngines())('reference model agreement: $name', (engine) => {
  it('matches the reference model on random streams', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 24 }), (steps) => checkAgainstModel(engine, steps, ['a', 'b'], [1, 2, 4, 7, 50])),
      { numRuns: engine.name === 'memory' ? 500 : 40 },
    );
  }, 180_000);

  it('matches the reference model when channels have very different volumes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mixedStep, { minLength: 3, maxLength: 10 }), (steps) =>
        checkAgainstModel(engine, steps, ['hot', 'q0', 'q1', 'q2'], [1, 5, 30])),
      { numRuns: engine.name === 'memory' ? 100 : 20 },
    );
  }, 180_000);
});
