import { describe, expect, it } from 'vitest';
import { creditProbe, decodeBreaker, encodeBreaker, initialBreaker, nextBreaker, withMode, type BreakerRecord } from '../../src/routing/breakerMachine.js';
import { resolveRoutingSettings } from '../../src/routing/settings.js';

const s = resolveRoutingSettings().breaker;
const windowMs = 30_000;
const t0 = Date.UTC(2026, 0, 1);

describe('breaker state machine', () => {
  it('has its defaults: 50 % over at least 100 calls in 30 s, open 10 s doubling to 40 s, 5 probes', () => {
    expect(s).toMatchObject({ failureThreshold: 0.5, minSamples: 100, window: '30s', openMs: 10_000, openMaxMs: 40_000, probes: 5 });
  });

  it('opens at the threshold only with enough calls', () => {
    expect(nextBreaker(initialBreaker, { success: 49, failure: 50 }, t0, s, windowMs)).toBeNull(); // 99 calls
    expect(nextBreaker(initialBreaker, { success: 51, failure: 49 }, t0, s, windowMs)).toBeNull(); // 49 %
    expect(nextBreaker(initialBreaker, { success: 50, failure: 50 }, t0, s, windowMs)).toMatchObject({ state: 'open', since: t0 });
  });

  it('waits openMs, then goes half-open with fresh probe counts', () => {
    const open: BreakerRecord = { ...initialBreaker, state: 'open', since: t0 };
    expect(nextBreaker(open, { success: 0, failure: 0 }, t0 + 9_999, s, windowMs)).toBeNull();
    expect(nextBreaker(open, { success: 0, failure: 0 }, t0 + 10_000, s, windowMs)).toEqual({
      state: 'half-open', mode: 'auto', since: t0 + 10_000, probeSuccess: 0, probeFailure: 0, reopens: 0,
    });
  });

  it('doubles the open wait on each reopening in a row, up to openMaxMs, and forgets it on closing', () => {
    expect(s.openMaxMs).toBe(40_000);
    let rec: BreakerRecord = { ...initialBreaker, state: 'open', since: t0 };
    let at = t0;
    const waits: number[] = [];
    for (let cycle = 0; cycle < 6; cycle++) {
      let wait = 1000;
      while (nextBreaker(rec, { success: 0, failure: 0 }, rec.since + wait, s, windowMs) === null) wait += 1000;
      waits.push(wait);
      at = rec.since + wait;
      rec = nextBreaker(rec, { success: 0, failure: 0 }, at, s, windowMs)!;
      expect(rec.state).toBe('half-open');
      for (let i = 0; i < 3; i++) rec = creditProbe(rec, false, at + 1, s)!;
      expect(rec).toMatchObject({ state: 'open', reopens: cycle + 1 });
    }
    expect(waits).toEqual([10_000, 20_000, 40_000, 40_000, 40_000, 40_000]);
    rec = nextBreaker(rec, { success: 0, failure: 0 }, rec.since + 40_000, s, windowMs)!;
    for (let i = 0; i < 3; i++) rec = creditProbe(rec, true, at + 2, s)!;
    expect(rec).toMatchObject({ state: 'closed', reopens: 0 });
    const reopened = nextBreaker(rec, { success: 0, failure: 100 }, at + 3, s, windowMs)!;
    expect(nextBreaker(reopened, { success: 0, failure: 0 }, at + 3 + 10_000, s, windowMs)).toMatchObject({ state: 'half-open' });
  });

  it('refuses openMaxMs below openMs, naming the field', () => {
    expect(() => resolveRoutingSettings({ breaker: { openMs: 60_000, openMaxMs: 30_000 } })).toThrow(/routing\.breaker\.openMaxMs/);
  });

  it('closes on a majority of successful probes and reopens on a majority of failed ones', () => {
    let rec: BreakerRecord = { ...initialBreaker, state: 'half-open', since: t0 };
    rec = creditProbe(rec, true, t0 + 1, s)!;
    rec = creditProbe(rec, false, t0 + 2, s)!;
    rec = creditProbe(rec, true, t0 + 3, s)!;
    expect(rec.state).toBe('half-open');
    expect(creditProbe(rec, true, t0 + 4, s)).toMatchObject({ state: 'closed', since: t0 + 4 });
    let bad: BreakerRecord = { ...initialBreaker, state: 'half-open', since: t0 };
    for (let i = 0; i < 2; i++) bad = creditProbe(bad, false, t0, s)!;
    expect(bad.state).toBe('half-open');
    expect(creditProbe(bad, false, t0 + 9, s)).toMatchObject({ state: 'open', since: t0 + 9 });
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
    const rec: BreakerRecord = { state: 'half-open', mode: 'auto', since: t0, probeSuccess: 2, probeFailure: 1, reopens: 2 };
    expect(decodeBreaker(encodeBreaker(rec))).toEqual(rec);
    expect(decodeBreaker('{"state":"ajar"}')).toEqual(initialBreaker);
    expect(decodeBreaker('not json')).toEqual(initialBreaker);
  });
});
