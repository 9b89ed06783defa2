// One alert's state and the pure step that moves it by one evaluation. The state lives in the coordination
// store; `slot` (the evaluation number, asOf / evaluateEvery) lets N instances step it once per evaluation
// between them: the instance whose compare-and-set wins a step is the one that notifies its transition.
import { levelOf, type Observation, type Rank } from './decision.js';
import type { AlertRules } from './rules.js';

export type Transition = 'firing' | 'escalated' | 'de-escalated' | 'resolved' | 'reminder';

export interface RateBasis {
  window: string;
  rate: number | null;
  /** The Wilson interval at `z`: for a success-rate alert, the one its level was decided on. */
  low: number | null;
  high: number | null;
  /** Absent in states written before it was kept: read as 95 %. */
  z?: number;
  total: number;
  failure: number;
}

export interface AlertState {
  /** Level of the firing alert; 0 when none. */
  rank: Rank;
  /** When the alert fired (null while not firing). */
  since: number | null;
  /** When the current level was reached. */
  levelSince: number | null;
  /** The last `consecutive` observations, oldest first, as [fast, slow] ranks. */
  recent: Array<[Rank, Rank]>;
  /** The newest evaluation applied. */
  slot: number;
  lastNotifiedAt: number | null;
  basis?: RateBasis;
  /** Filled by the instance that notified the firing or escalation; see evidence.ts. */
  evidence?: unknown;
  /** When an instance first saw the router drain the channel of the firing alert: from then on only its newest outcomes end it. */
  drainedSince?: number;
  /**
   * The newest evaluation at which the router kept traffic away from the channel, firing or not: until the long
   * window no longer reaches back to it, the newest outcomes judge the series (drained.ts).
   */
  drainedAt?: number;
  /** When the alert last resolved: a drained series' short window may still hold the failures it resolved past (drained.ts). */
  resolvedAt?: number;
}

export const initialState: AlertState = { rank: 0, since: null, levelSince: null, recent: [], slot: -1, lastNotifiedAt: null };

export interface Step {
  state: AlertState;
  transition?: Transition;
  /** false when storing the step would change nothing worth a write. */
  changed: boolean;
}

function isIdle(state: AlertState): boolean {
  return state.rank === 0 && state.recent.every(([fast, slow]) => fast === 0 && slow === 0);
}

function toBasis(observation: Observation): RateBasis | undefined {
  const b = observation.basis;
  return b ? { window: b.window, rate: b.rate, low: b.low, high: b.high, z: b.z, total: b.total, failure: b.failure } : undefined;
}

/** Applies one evaluation. `muted` suppresses reminders (transitions still happen, and show). */
export function stepAlert(
  previous: AlertState,
  observation: Observation,
  at: { nowMs: number; slot: number; muted: boolean },
  rules: Pick<AlertRules, 'consecutive' | 'repeatEveryMs'>,
): Step {
  if (at.slot <= previous.slot) return { state: previous, changed: false };
  const k = rules.consecutive;
  // Settled evidence stands for the calm evaluations hysteresis waits for: they would re-read the same outcomes.
  const recent = observation.settled ? Array.from({ length: k }, () => [0, 0] as [Rank, Rank]) : [...previous.recent, [observation.fast, observation.slow] as [Rank, Rank]].slice(-k);
  const full = recent.length >= k;
  const slowConfirmed = full ? (Math.min(...recent.map(([, slow]) => slow)) as Rank) : 0;
  const target = Math.max(observation.fast, slowConfirmed) as Rank;
  const seen = Math.max(...recent.map(([fast, slow]) => Math.max(fast, slow))) as Rank;
  const basis = toBasis(observation) ?? previous.basis;
  const next: AlertState = { ...previous, recent, slot: at.slot, ...(basis ? { basis } : {}) };
  if (observation.drained) next.drainedAt = at.nowMs;
  let transition: Transition | undefined;

  if (target > previous.rank) {
    transition = previous.rank === 0 ? 'firing' : 'escalated';
    next.rank = target;
    next.levelSince = at.nowMs;
    if (previous.rank === 0) {
      next.since = at.nowMs;
      delete next.evidence;
    }
  } else if (previous.rank > 0 && full && seen < previous.rank) {
    // Hysteresis: `consecutive` evaluations in a row all below the level before it is let go.
    transition = seen === 0 ? 'resolved' : 'de-escalated';
    next.rank = seen;
    next.levelSince = seen === 0 ? null : at.nowMs;
    if (seen === 0) {
      next.since = null;
      next.resolvedAt = at.nowMs;
      delete next.drainedSince;
    }
  } else if (previous.rank > 0 && !at.muted && (previous.lastNotifiedAt === null || at.nowMs - previous.lastNotifiedAt >= rules.repeatEveryMs)) {
    transition = 'reminder';
  }
  if (observation.drained && next.rank > 0) next.drainedSince ??= at.nowMs;
  if (transition === 'firing') next.lastNotifiedAt = at.muted ? null : at.nowMs;
  else if (transition && !at.muted) next.lastNotifiedAt = at.nowMs;
  const changed = !(isIdle(previous) && isIdle(next)) || next.drainedAt !== previous.drainedAt;
  return { state: next, ...(transition ? { transition } : {}), changed };
}

/** The level name of a state, for people and labels. */
export function stateLevel(state: AlertState) {
  return levelOf(state.rank);
}

export function parseState(value: string | undefined | null): AlertState {
  if (!value) return initialState;
  try {
    return { ...initialState, ...(JSON.parse(value) as AlertState) };
  } catch {
    return initialState;
  }
}
