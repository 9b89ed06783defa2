// The breaker's state machine, pure: given what is stored and what the window shows, the next record or null.
// closed → open when the failure rate over the window reaches the threshold with at least minSamples calls;
// open → half-open after the wait, which doubles on each reopening in a row up to a cap; half-open → closed or
// open on its probes' outcomes. A forced mode freezes the state (docs/routing.md, "Shared circuit breaker").
import type { ResolvedBreakerSettings } from './settings.js';
import type { BreakerMode, BreakerState } from './types.js';

export interface BreakerRecord {
  state: BreakerState;
  mode: BreakerMode;
  /** Clock time the state began. */
  since: number;
  /** Probe outcomes credited in this half-open period. */
  probeSuccess: number;
  probeFailure: number;
  /** Half-open periods in a row that ended open again: each doubles the next open wait. */
  reopens: number;
}

/** Counts over the breaker's window, failures that are not the channel's fault left out. */
export interface WindowEvidence {
  success: number;
  failure: number;
}

export const initialBreaker: BreakerRecord = { state: 'closed', mode: 'auto', since: 0, probeSuccess: 0, probeFailure: 0, reopens: 0 };

function enter(state: BreakerState, mode: BreakerMode, now: number, reopens = 0): BreakerRecord {
  return { state, mode, since: now, probeSuccess: 0, probeFailure: 0, reopens };
}

/**
 * How long an open breaker waits before its probes: `openMs`, doubled for each reopening in a row, at most
 * `openMaxMs`. A fixed wait spends `probes` payments on a dead channel every cycle however quiet the traffic
 * (5 every 31 s is over 1 % of 12 payments a second); backing off bounds that share through a long outage.
 */
export function openWaitMs(rec: BreakerRecord, s: ResolvedBreakerSettings): number {
  return Math.min(s.openMaxMs, s.openMs * 2 ** Math.min(rec.reopens, 30));
}

function reopen(rec: BreakerRecord, now: number): BreakerRecord {
  return enter('open', rec.mode, now, rec.reopens + 1);
}

/** Probe failures that reopen the breaker: the threshold's share of the probes, rounded up. */
export function probeFailuresToOpen(s: ResolvedBreakerSettings): number {
  return Math.max(1, Math.ceil(s.probes * s.failureThreshold));
}

function decideOnProbes(rec: BreakerRecord, s: ResolvedBreakerSettings, now: number): BreakerRecord | null {
  const toOpen = probeFailuresToOpen(s);
  if (rec.probeFailure >= toOpen) return reopen(rec, now);
  if (rec.probeSuccess >= s.probes - toOpen + 1) return enter('closed', rec.mode, now);
  return null;
}

/**
 * The next record at `now`, or null when nothing changes. `window` covers the breaker's window ending now;
 * while half-open it decides too once the window lies wholly inside the half-open period, so probes whose
 * outcomes were never credited (no requestId) cannot hold the breaker half-open for ever.
 */
export function nextBreaker(rec: BreakerRecord, window: WindowEvidence, now: number, s: ResolvedBreakerSettings, windowMs: number): BreakerRecord | null {
  if (rec.mode !== 'auto') return null;
  const total = window.success + window.failure;
  const failing = total >= s.minSamples && window.failure / total >= s.failureThreshold;
  switch (rec.state) {
    case 'closed':
      return failing ? enter('open', 'auto', now) : null;
    case 'open':
      return now - rec.since >= openWaitMs(rec, s) ? enter('half-open', 'auto', now, rec.reopens) : null;
    case 'half-open': {
      const byProbes = decideOnProbes(rec, s, now);
      if (byProbes) return byProbes;
      if (now - rec.since < windowMs || total < s.probes) return null;
      return window.failure / total >= s.failureThreshold ? reopen(rec, now) : enter('closed', 'auto', now);
    }
  }
}

/** A probe's outcome credited to a half-open record; null when the record is no longer half-open. */
export function creditProbe(rec: BreakerRecord, success: boolean, now: number, s: ResolvedBreakerSettings): BreakerRecord | null {
  if (rec.state !== 'half-open' || rec.mode !== 'auto') return null;
  const credited = success ? { ...rec, probeSuccess: rec.probeSuccess + 1 } : { ...rec, probeFailure: rec.probeFailure + 1 };
  return decideOnProbes(credited, s, now) ?? credited;
}

/** A manual override: forced modes pin the state, `auto` resumes from closed. */
export function withMode(mode: BreakerMode, now: number): BreakerRecord {
  return enter(mode === 'force-open' ? 'open' : 'closed', mode, now);
}

export function encodeBreaker(rec: BreakerRecord): string {
  return JSON.stringify(rec);
}

const states = new Set<BreakerState>(['closed', 'open', 'half-open']);
const modes = new Set<BreakerMode>(['auto', 'force-open', 'force-closed']);

/** A stored value that does not parse reads as the initial record rather than breaking routing. */
export function decodeBreaker(value: string | undefined): BreakerRecord {
  if (value === undefined) return initialBreaker;
  try {
    const r = JSON.parse(value) as Partial<BreakerRecord>;
    if (!states.has(r.state as BreakerState) || !modes.has(r.mode as BreakerMode)) return initialBreaker;
    return {
      state: r.state as BreakerState,
      mode: r.mode as BreakerMode,
      since: Number(r.since) || 0,
      probeSuccess: Number(r.probeSuccess) || 0,
      probeFailure: Number(r.probeFailure) || 0,
      reopens: Number(r.reopens) || 0,
    };
  } catch {
    return initialBreaker;
  }
}
