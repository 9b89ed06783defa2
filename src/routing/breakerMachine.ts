// The breaker's state machine, pure: given what is stored and what the window shows, the next record or null.
// closed → open when the failure rate over the window reaches the threshold with at least minSamples calls;
// open → half-open after a wait sized by the channel's traffic; half-open → closed or open by a sequential test
// on its probes' outcomes, the probes in flight growing while they succeed. A forced mode freezes the state
// (docs/routing.md, "Shared circuit breaker").
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
  /** Half-open periods in a row that ended open again. */
  reopens: number;
  /** Calls a second over the window when the breaker opened: what sizes the wait between probe rounds. */
  callsPerSec: number;
}

/** Counts over the breaker's window, failures that are not the channel's fault left out. */
export interface WindowEvidence {
  success: number;
  failure: number;
  /**
   * The channel's calls a second over minutes (the first score window of 5 minutes or more): its traffic before
   * the router moved it away, which the breaker's own window, drained by then, no longer shows.
   */
  callsPerSec?: number;
}

export const initialBreaker: BreakerRecord = { state: 'closed', mode: 'auto', since: 0, probeSuccess: 0, probeFailure: 0, reopens: 0, callsPerSec: 0 };

function enter(state: BreakerState, mode: BreakerMode, now: number, reopens = 0, callsPerSec = 0): BreakerRecord {
  return { state, mode, since: now, probeSuccess: 0, probeFailure: 0, reopens, callsPerSec };
}

/**
 * Share of a dead channel's traffic its probe rounds may spend: half the 1 % a failed channel is allowed, so
 * the rounds that meet a 30 % channel (a success or two before the failure that ends them) stay under it too.
 */
export const probeBudget = 0.005;

/**
 * How long an open breaker waits before a probe round: the time its traffic takes to make one round (one
 * failed probe on a dead channel) `probeBudget` of the calls, within [openMs, openMaxMs]. At 30 calls a second
 * that is under 7 s, so a channel that came back is probed within seconds; at the 3.3 a second that can open a
 * breaker at all, the cap of 40 s. A doubling wait (10 s to 40 s) spent the same share on a busy channel and
 * kept a recovered one out for up to 40 s.
 */
export function openWaitMs(rec: BreakerRecord, s: ResolvedBreakerSettings): number {
  const sized = rec.callsPerSec > 0 ? 1000 / (probeBudget * rec.callsPerSec) : s.openMaxMs;
  return Math.min(s.openMaxMs, Math.max(s.openMs, sized));
}

function reopen(rec: BreakerRecord, now: number): BreakerRecord {
  return enter('open', rec.mode, now, rec.reopens + 1, rec.callsPerSec);
}

/**
 * Probe payments a half-open breaker admits at once: one, doubling with each success beyond the failures, at
 * most `probes`. A dead channel costs one failed probe a round; a recovered one is through in three rounds.
 */
export function probeQuota(rec: BreakerRecord, s: ResolvedBreakerSettings): number {
  return Math.min(s.probes, 2 ** Math.min(10, Math.max(0, rec.probeSuccess - rec.probeFailure)));
}

/** Wald's sequential test on the probes: closing a channel still at the threshold (α), reopening one that is back (β). */
const closeWrongly = 0.05;
const reopenWrongly = 0.1;
const closeAt = Math.log((1 - reopenWrongly) / closeWrongly);
const reopenAt = Math.log(reopenWrongly / (1 - closeWrongly));

/**
 * The log-likelihood ratio of "back" (a failure rate a tenth of the threshold) against "still failing" (the
 * threshold's rate) over the probes so far. At the 50 % threshold, five successes close (3.2 ≥ 2.9) and a
 * failure before any success reopens (−2.3 ≤ −2.25); the majority of 5 it replaces needed three of each.
 */
export function probeEvidence(rec: BreakerRecord, s: ResolvedBreakerSettings): number {
  const failing = Math.max(1e-6, 1 - s.failureThreshold);
  const back = 1 - s.failureThreshold / 10;
  return rec.probeSuccess * Math.log(back / failing) + rec.probeFailure * Math.log((1 - back) / Math.max(1e-6, 1 - failing));
}

function decideOnProbes(rec: BreakerRecord, s: ResolvedBreakerSettings, now: number): BreakerRecord | null {
  const llr = probeEvidence(rec, s);
  if (llr <= reopenAt) return reopen(rec, now);
  if (llr >= closeAt) return enter('closed', rec.mode, now);
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
      return failing ? enter('open', 'auto', now, 0, Math.max(window.callsPerSec ?? 0, (total * 1000) / windowMs)) : null;
    case 'open':
      return now - rec.since >= openWaitMs(rec, s) ? enter('half-open', 'auto', now, rec.reopens, rec.callsPerSec) : null;
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
      callsPerSec: Number(r.callsPerSec) || 0,
    };
  } catch {
    return initialBreaker;
  }
}
