import { describe, expect, it } from 'vitest';
import { creditProbe, decodeBreaker, encodeBreaker, initialBreaker, nextBreaker, probeEvidence, probeQuota, withMode, type BreakerRecord } from '../../src/routing/breakerMachine.js';
import { resolveRoutingSettings } from '../../src/routing/settings.js';

const s = resolveRoutingSettings().breaker;
const windowMs = 30_000;
const t0 = Date.UTC(2026, 0, 1);

describe('breaker state machine', () => {
  it('has its defaults: 50 % over at least 100 calls in 30 s, probe rounds 2 to 40 s apart, at most 5 probes in flight', () => {
    expect(s).toMatchObject({ failureThreshold: 0.5, minSamples: 100, window: '30s', openMs: 2_000, openMaxMs: 40_000, probes: 5 });
  });

  it('opens at the threshold only with enough calls', () => {
    expect(nextBreaker(initialBreaker, { success: 49, failure: 50 }, t0, s, windowMs)).toBeNull(); // 99 calls
    expect(nextBreaker(initialBreaker, { success: 51, failure: 49 }, t0, s, windowMs)).toBeNull(); // 49 %
    expect(nextBreaker(initialBreaker, { success: 50, failure: 50 }, t0, s, windowMs)).toMatchObject({ state: 'open', since: t0 });
  });

  it('waits until its traffic makes one probe round 0.5 % of the calls, within openMs and openMaxMs', () => {
    const openAt = (callsPerSec: number) => nextBreaker(initialBreaker, { success: 0, failure: 100, callsPerSec }, t0, s, windowMs)!;
    const waitOf = (rec: BreakerRecord) => {
      let wait = 0;
      while (nextBreaker(rec, { success: 0, failure: 0 }, rec.since + wait, s, windowMs) === null) wait += 100;
      return wait;
    };
    expect(openAt(30)).toMatchObject({ state: 'open', callsPerSec: 30 });
    expect(waitOf(openAt(30))).toBe(6_700); // 1 / (0.005 × 30) s
    expect(waitOf(openAt(500))).toBe(2_000); // openMs
    expect(waitOf(openAt(1))).toBe(40_000); // openMaxMs
    // Without the minutes' traffic, the breaker window's own calls size it.
    expect(openAt(0).callsPerSec).toBeCloseTo(100 / 30, 6);
    const half = nextBreaker(openAt(30), { success: 0, failure: 0 }, t0 + 6_700, s, windowMs)!;
    expect(half).toEqual({ state: 'half-open', mode: 'auto', since: t0 + 6_700, probeSuccess: 0, probeFailure: 0, reopens: 0, callsPerSec: 30 });
    // A reopening keeps the traffic it was sized by, so a long outage costs the same share a round.
    const again = creditProbe(half, false, t0 + 7_000, s)!;
    expect(again).toMatchObject({ state: 'open', reopens: 1, callsPerSec: 30 });
    expect(waitOf(again)).toBe(6_700);
  });

  it('refuses openMaxMs below openMs, naming the field', () => {
    expect(() => resolveRoutingSettings({ breaker: { openMs: 60_000, openMaxMs: 30_000 } })).toThrow(/routing\.breaker\.openMaxMs/);
  });

  it('admits one probe at first and doubles the probes in flight while they succeed', () => {
    let rec: BreakerRecord = { ...initialBreaker, state: 'half-open', since: t0 };
    const quotas = [probeQuota(rec, s)];
    for (let i = 0; i < 3; i++) {
      rec = creditProbe(rec, true, t0 + i, s)!;
      quotas.push(probeQuota(rec, s));
    }
    expect(quotas).toEqual([1, 2, 4, 5]);
  });

  it('closes on five successful probes and reopens on a first failed one, by a sequential test', () => {
    let rec: BreakerRecord = { ...initialBreaker, state: 'half-open', since: t0 };
    for (let i = 0; i < 4; i++) rec = creditProbe(rec, true, t0 + i, s)!;
    expect(rec.state).toBe('half-open');
    expect(creditProbe(rec, true, t0 + 4, s)).toMatchObject({ state: 'closed', since: t0 + 4 });
    const dead: BreakerRecord = { ...initialBreaker, state: 'half-open', since: t0 };
    expect(probeEvidence({ ...dead, probeFailure: 1 }, s)).toBeCloseTo(Math.log(0.1), 9);
    expect(creditProbe(dead, false, t0 + 9, s)).toMatchObject({ state: 'open', since: t0 + 9, reopens: 1 });
    // A failure after a success leaves the test undecided; a second one reopens.
    let mixed = creditProbe(dead, true, t0, s)!;
    mixed = creditProbe(mixed, false, t0 + 1, s)!;
    expect(mixed.state).toBe('half-open');
    expect(creditProbe(mixed, false, t0 + 2, s)).toMatchObject({ state: 'open' });
  });

  it('decides a half-open breaker from its window once probes went uncredited for a whole window', () => {
    const half: BreakerRecord = { ...initialBreaker, state: 'half-open', since: t0 };
    expect(nextBreaker(half, { success: 9, failure: 1 }, t0 + 29_000, s, windowMs)).toBeNull();
    expect(nextBreaker(half, { success: 9, failure: 1 }, t0 + 30_000, s, windowMs)).toMatchObject({ state: 'closed' });
    expect(nextBreaker(half, { success: 2, failure: 8 }, t0 + 30_000, s, windowMs)).toMatchObject({ state: 'open' });
  });

  it('freezes forced modes, and `auto` resumes from closed', () => {
    const forced = withMode('force-open', t0);
    expect(forced).toMatchObject({ state: 'open', mode: 'force-open' });
    expect(nextBreaker(forced, { success: 0, failure: 0 }, t0 + 3600_000, s, windowMs)).toBeNull();
    const closedForced = withMode('force-closed', t0);
    expect(nextBreaker(closedForced, { success: 0, failure: 500 }, t0, s, windowMs)).toBeNull();
    expect(creditProbe({ ...forced, state: 'half-open' }, true, t0, s)).toBeNull();
    expect(withMode('auto', t0)).toMatchObject({ state: 'closed', mode: 'auto' });
  });

  it('round-trips through its stored form, and reads garbage as closed', () => {
    const rec: BreakerRecord = { state: 'half-open', mode: 'auto', since: t0, probeSuccess: 2, probeFailure: 1, reopens: 2, callsPerSec: 12.5 };
    expect(decodeBreaker(encodeBreaker(rec))).toEqual(rec);
    expect(decodeBreaker('{"state":"ajar"}')).toEqual(initialBreaker);
    expect(decodeBreaker('not json')).toEqual(initialBreaker);
  });
});
