// Evaluates the alert rules on each health snapshot, at most once per `evaluateEvery`, and steps each alert's
// state in the coordination store by compare-and-set: of N instances evaluating the same snapshot slot,
// one writes each step, and only that one notifies its transition (docs/alerts.md, "One page per incident").
// A snapshot that could not be refreshed pauses evaluation: alerting on stale numbers would page on nothing,
// or stay quiet through an outage, with equal confidence.
import type { Clock } from '../clock.js';
import type { HealthSnapshot, HealthSnapshots } from '../stats/healthSnapshot.js';
import type { CoordinationStore, SharedState } from '../store/ports/coordination.js';
import type { PulseLogger } from '../types.js';
import type { FailuresReader } from './evidence.js';
import type { ActiveAlert, AlertNotification } from './notification.js';
import { longWindowsNeeded, type AlertRules } from './rules.js';
import type { LongWindows } from './longWindows.js';
import { muteKeyOf, targetsOf, type Target } from './targets.js';
import { stepTarget, type StepContext } from './transitions.js';
import type { AlertState } from './state.js';
import type { RoutingLens } from './routingLens.js';
import type { RecentReader } from './drained.js';

/** A durable copy of the alert state (src/operatorState/): what survives the coordination store forgetting it. */
export interface AlertStateKeeper {
  /** Called after the states are read: false when the store had forgotten them and they were put back just now. */
  confirmStore(): Promise<boolean>;
  /** A transition this instance won, with the state it stored; must return at once. */
  keepStep(target: Target, state: AlertState, notification: AlertNotification): void;
  keepMute(channel: string, untilMs: number): Promise<void>;
}

export interface AlertSink {
  /** Takes a notification without waiting for any receiver: it must return at once. */
  dispatch(notification: AlertNotification): void;
  /** Every instance hands its view of the firing alerts over after each evaluation (Alertmanager re-sends). */
  firing?(active: ActiveAlert[], nowMs: number): void;
}

export interface AlertEvaluatorOptions {
  rules: AlertRules;
  namespace: string;
  snapshots: Pick<HealthSnapshots, 'latest' | 'status' | 'onSnapshot'>;
  coordination: CoordinationStore;
  clock: Clock;
  sink: AlertSink;
  failures?: FailuresReader;
  /** Each transition this instance won (muted ones included): history rows, stream events. */
  onTransition?: (notification: AlertNotification) => void;
  logger?: PulseLogger;
  /** Adds the burn-rate windows the engine does not answer (6 h …) to each snapshot. */
  longWindows?: LongWindows;
  keeper?: AlertStateKeeper;
  /** What the router did, when the pulse routes: drained channels are held, never `silent` (routingLens.ts). */
  lens?: RoutingLens;
  /** The newest outcomes of a series (the pulse's `lastN`): how a drained channel's alert is judged (drained.ts). */
  recent?: RecentReader;
}

export interface EvaluationReport {
  evaluated: boolean;
  /** `store-restored`: the store had lost the alert states; they were put back and the next evaluation uses them. */
  reason?: 'paused' | 'same-slot' | 'store-error' | 'no-snapshot' | 'store-restored';
  transitions: AlertNotification[];
}

export interface EvaluatorStatus {
  /** Evaluation is paused: the snapshot (or the coordination store) is failing. */
  paused: boolean;
  lastEvaluatedAt: number | null;
  evaluations: number;
  storeErrors: number;
}

export interface AlertEvaluator {
  evaluate(snapshot?: HealthSnapshot): Promise<EvaluationReport>;
  /** New rules from the next evaluation on (a config reload); `evaluateEvery` keeps its value. */
  setRules(rules: AlertRules): void;
  active(): ActiveAlert[];
  status(): EvaluatorStatus;
  mute(channel: string, untilMs: number): Promise<void>;
  muteOf(channel: string): Promise<number | null>;
  start(): void;
  stop(): Promise<void>;
}

const stateTtlFloorMs = 3_600_000;

/** How long an alert's state outlives its last write: past two reminders, and at least an hour. */
export function alertStateTtlMs(rules: Pick<AlertRules, 'repeatEveryMs'>): number {
  return Math.max(2 * rules.repeatEveryMs, stateTtlFloorMs);
}

// A mute is a plain overwrite; the loop only retries the version race with another writer.
async function writeMute(coordination: CoordinationStore, key: string, untilMs: number, ttlMs: number): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [current] = await coordination.readStates([key]);
    const reply = await coordination.compareAndSetState(key, current?.version ?? 0, JSON.stringify({ until: untilMs }), ttlMs);
    if (reply.written) return;
  }
  throw new Error(`mute of ${key}: the mute kept changing under this write`);
}

async function muteChannel(options: AlertEvaluatorOptions, channel: string, untilMs: number): Promise<void> {
  const ttlMs = Math.max(1_000, untilMs - options.clock.now() + 60_000);
  await writeMute(options.coordination, muteKeyOf(options.namespace, channel), untilMs, ttlMs);
  await options.keeper?.keepMute(channel, untilMs);
}

/** A channel's mute end, while it is still ahead. */
async function readMute(options: AlertEvaluatorOptions, channel: string): Promise<number | null> {
  const [state] = await options.coordination.readStates([muteKeyOf(options.namespace, channel)]);
  const until = muteUntil(state);
  return until !== null && until > options.clock.now() ? until : null;
}

function muteUntil(state: SharedState | null | undefined): number | null {
  if (!state) return null;
  try {
    const until = (JSON.parse(state.value) as { until?: unknown }).until;
    return typeof until === 'number' ? until : null;
  } catch {
    return null;
  }
}

type StateReads = Array<PromiseSettledResult<Array<SharedState | null>>>;

/**
 * Each group's stored states: all in one call (one round trip per node), and only when that fails a group at a
 * time — a channel's keys share its slot, so with one Redis Cluster master down the others' still read.
 */
async function readStateGroups(coordination: CoordinationStore, groups: string[][]): Promise<StateReads> {
  try {
    const all = await coordination.readStates(groups.flat());
    let at = 0;
    return groups.map((keys) => ({ status: 'fulfilled', value: all.slice(at, (at += keys.length)) }));
  } catch {
    return Promise.allSettled(groups.map((keys) => coordination.readStates(keys)));
  }
}

/**
 * The snapshot's targets (long windows added), each with its stored state, and each channel's mute. A channel
 * whose state cannot be read is named unreadable and left out; only when none can be read does it throw.
 */
async function readTargets(options: AlertEvaluatorOptions, given: HealthSnapshot) {
  const { rules, namespace, coordination } = options;
  const longLabels = longWindowsNeeded(rules);
  const snapshot = options.longWindows && longLabels.length > 0 ? await options.longWindows.extend(given, longLabels) : given;
  const all: Target[] = targetsOf(snapshot, rules, namespace, options.lens);
  const byChannel = new Map<string, Target[]>();
  for (const t of all) {
    const ts = byChannel.get(t.channel);
    if (ts) ts.push(t);
    else byChannel.set(t.channel, [t]);
  }
  const reads = await readStateGroups(coordination, [...byChannel].map(([channel, ts]) => [...ts.map((t) => t.key), muteKeyOf(namespace, channel)]));
  const targets: Target[] = [];
  const stored: Array<SharedState | null> = [];
  const mutes = new Map<string, number | null>();
  const unreadable = new Set<string>();
  let firstError: unknown;
  [...byChannel].forEach(([channel, ts], i) => {
    const read = reads[i]!;
    if (read.status === 'rejected') {
      unreadable.add(channel);
      firstError ??= read.reason;
      return;
    }
    targets.push(...ts);
    stored.push(...read.value.slice(0, ts.length));
    mutes.set(channel, muteUntil(read.value[ts.length]));
  });
  if (unreadable.size > 0 && unreadable.size === byChannel.size) throw firstError;
  return { targets, stored, mutes, unreadable };
}

type Step = Awaited<ReturnType<typeof stepTarget>>;

/** Hands the transitions this instance won to the durable copy. */
function keepSteps(keeper: AlertStateKeeper, targets: Target[], steps: Step[]): void {
  steps.forEach((s, i) => {
    if (s.notification && s.stored) keeper.keepStep(targets[i]!, s.stored, s.notification);
  });
}

/** What is shown after an evaluation: a channel whose state could not be read shows what it showed, since no
 * transition is made without its stored state. */
function shownAfter(steps: Step[], previous: ActiveAlert[], unreadable: Set<string>): ActiveAlert[] {
  const shown = [...steps.flatMap((s) => (s.shown ? [s.shown] : [])), ...previous.filter((a) => unreadable.has(a.channel))];
  return shown.sort((a, b) => a.channel.localeCompare(b.channel) || a.id.localeCompare(b.id));
}

function deliver(options: AlertEvaluatorOptions, transitions: AlertNotification[], active: ActiveAlert[], nowMs: number): void {
  for (const n of transitions) {
    options.onTransition?.(n);
    if (!n.muted) options.sink.dispatch(n);
  }
  options.sink.firing?.(active.filter((a) => !a.muted), nowMs);
}

export function createAlertEvaluator(given: AlertEvaluatorOptions): AlertEvaluator {
  // A copy, since setRules swaps its rules.
  const options: AlertEvaluatorOptions = { ...given };
  const { namespace, snapshots, coordination, clock, logger } = options;
  let active: ActiveAlert[] = [];
  let lastSlot = -1;
  let running: Promise<EvaluationReport> | null = null;
  let unsubscribe: (() => void) | undefined;
  const status: EvaluatorStatus = { paused: false, lastEvaluatedAt: null, evaluations: 0, storeErrors: 0 };
  const stepContext: StepContext = {
    rules: options.rules, coordination, stateTtlMs: alertStateTtlMs(options.rules), failures: options.failures, logger, onStoreError: () => status.storeErrors++,
    ...(options.lens ? { lens: options.lens } : {}), ...(options.recent ? { recent: options.recent } : {}),
  };

  async function run(given: HealthSnapshot): Promise<EvaluationReport> {
    const nowMs = given.asOf;
    const slot = Math.floor(nowMs / options.rules.evaluateEveryMs);
    let read: Awaited<ReturnType<typeof readTargets>>;
    try {
      read = await readTargets(options, given);
    } catch (err) {
      status.storeErrors++;
      status.paused = true;
      logger?.warn({ err: (err as Error).message }, 'paypulse: alert state unreadable; evaluation paused');
      return { evaluated: false, reason: 'store-error', transitions: [] };
    }
    const { targets, stored, mutes, unreadable } = read;
    if (unreadable.size > 0) status.storeErrors++;
    if (options.keeper && !(await options.keeper.confirmStore())) return { evaluated: false, reason: 'store-restored', transitions: [] };
    const steps = await Promise.all(targets.map((t, i) => stepTarget(stepContext, t, stored[i] ?? null, mutes.get(t.channel) ?? null, nowMs, slot)));
    if (options.keeper) keepSteps(options.keeper, targets, steps);
    const transitions = steps.flatMap((s) => (s.notification ? [s.notification] : []));
    active = shownAfter(steps, active, unreadable);
    deliver(options, transitions, active, nowMs);
    status.paused = false;
    status.lastEvaluatedAt = nowMs;
    status.evaluations++;
    lastSlot = slot;
    return { evaluated: true, transitions };
  }

  async function evaluate(given?: HealthSnapshot): Promise<EvaluationReport> {
    if (snapshots.status().failing) {
      status.paused = true;
      return { evaluated: false, reason: 'paused', transitions: [] };
    }
    const snapshot = given ?? snapshots.latest();
    if (!snapshot) return { evaluated: false, reason: 'no-snapshot', transitions: [] };
    if (Math.floor(snapshot.asOf / options.rules.evaluateEveryMs) <= lastSlot) return { evaluated: false, reason: 'same-slot', transitions: [] };
    // A snapshot arriving while the previous evaluation still runs is skipped, not queued.
    if (running) return { evaluated: false, reason: 'same-slot', transitions: [] };
    running = run(snapshot).finally(() => {
      running = null;
    });
    return running;
  }

  return {
    evaluate,
    setRules(next) {
      // Slots are numbered by evaluateEvery: the fleet must agree on it, so it changes only with a restart.
      options.rules = { ...next, evaluateEveryMs: options.rules.evaluateEveryMs };
      Object.assign(stepContext, { rules: options.rules, stateTtlMs: alertStateTtlMs(options.rules) });
    },
    active: () => active,
    status: () => ({ ...status }),
    muteOf: (channel) => readMute(options, channel),
    mute: (channel, untilMs) => muteChannel(options, channel, untilMs),
    start() {
      unsubscribe ??= snapshots.onSnapshot((snapshot) => void evaluate(snapshot).catch((err) => logger?.error({ err: (err as Error).message }, 'paypulse: alert evaluation failed')));
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      await running;
    },
  };
}
