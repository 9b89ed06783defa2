// The alert engine as the library exposes it (`pulse.alerts`): the evaluator on the health snapshot, the
// receivers, the history of transitions and the listeners (the service's stream).
import type { Clock } from '../clock.js';
import type { HealthSnapshots } from '../stats/healthSnapshot.js';
import type { CoordinationStore } from '../store/ports/coordination.js';
import type { PulseLogger } from '../types.js';
import { createAlertEvaluator, type AlertStateKeeper, type EvaluationReport, type EvaluatorStatus } from './evaluator.js';
import { orphanResolved } from './orphans.js';
import type { FailuresReader } from './evidence.js';
import type { AlertHistory } from './history.js';
import type { ActiveAlert, AlertNotification } from './notification.js';
import { createNotifier, type Notifier, type NotifierOptions } from './notifier.js';
import { longWindowsNeeded, type AlertRules } from './rules.js';
import { createLongWindows, longWindowSec, type LongWindows, type MinuteReader } from './longWindows.js';
import { ValidationError } from '../errors.js';
import type { RoutingLens } from './routingLens.js';
import type { RecentReader } from './drained.js';

export interface AlertsOptions {
  rules: AlertRules;
  namespace: string;
  snapshots: HealthSnapshots;
  coordination: CoordinationStore;
  clock: Clock;
  failures?: FailuresReader;
  history?: AlertHistory;
  logger?: PulseLogger;
  onResult?: NotifierOptions['onResult'];
  backoffMs?: number;
  /** Per-minute counts for burn-rate windows past 2 h: the live store's, and older ones from history. */
  minutes?: { live: MinuteReader; history?: MinuteReader; liveRetentionMs: number; minSamples: number };
  /** A durable copy of alert states and mutes (src/operatorState/), when one is configured. */
  keeper?: AlertStateKeeper;
  /** What the router did for each channel (routingLens.ts). */
  lens?: RoutingLens;
  /** The newest outcomes of a series: how a channel the router drained is judged (drained.ts). */
  recent?: RecentReader;
}

export interface Alerts {
  readonly rules: AlertRules;
  /**
   * Rules of a config reload, from the next evaluation on: levels, windows, receivers, channels. The new rules
   * must ask only for windows the snapshot reads (the caller checks); `evaluateEvery` keeps its value.
   */
  reconfigure(rules: AlertRules): void;
  /** Firing alerts (muted ones included, flagged) as of the last evaluation, with their evidence. */
  active(): ActiveAlert[];
  status(): EvaluatorStatus;
  /** Evaluates the latest snapshot now (tests on virtual time; the timer does it otherwise). */
  evaluate(): Promise<EvaluationReport>;
  /** Alerts of `channel` show but do not notify until `untilMs`. */
  mute(channel: string, untilMs: number): Promise<void>;
  muteOf(channel: string): Promise<number | null>;
  /** Each transition this instance won; returns the unsubscribe function. */
  onTransition(listener: (n: AlertNotification) => void): () => void;
  readonly notifier: Notifier;
  /** Announces the `resolved` of an alert whose state was lost (history, listeners, receivers unless muted). */
  resolveOrphan(last: AlertNotification, nowMs: number): void;
  /** The history store, once it is open: transitions are written there and long windows read old minutes. */
  attachHistory(history: { alerts: AlertHistory; minutes: MinuteReader }): void;
  /** The base of the dashboard link every notification carries: the serving instance's address once it listens. */
  linkDashboard(url: string): void;
  /** Subscribes to the snapshot; throws when a rule needs what is missing (a history store for 6 h windows). */
  start(): void;
  stop(): Promise<void>;
}

/** Long burn-rate windows need minute counts, and history for whatever the live store no longer keeps. */
function longWindowsFor(options: AlertsOptions): LongWindows | undefined {
  const labels = longWindowsNeeded(options.rules);
  if (labels.length === 0) return undefined;
  const m = options.minutes;
  const beyond = labels.filter((l) => !m || (!m.history && longWindowSec(l) * 1000 > m.liveRetentionMs - 2 * 60_000));
  if (beyond.length > 0) {
    const pairs = options.rules.burnRate?.pairs ?? [];
    throw new ValidationError(beyond.map((label) => ({
      index: 0,
      field: `alerts.burnRate.pairs[${pairs.findIndex((p) => p.long === label || p.short === label)}]`,
      reason: `${label} is longer than the live store keeps minute counts; it needs the history store`,
    })));
  }
  return createLongWindows(m!);
}

export function createAlerts(given: AlertsOptions): Alerts {
  const options: AlertsOptions = { ...given, ...(given.minutes ? { minutes: { ...given.minutes } } : {}) };
  let built: LongWindows | undefined;
  const ensureLongWindows = () => (built ??= longWindowsFor(options));
  const longWindows: LongWindows = { extend: (snapshot, labels) => ensureLongWindows()!.extend(snapshot, labels) };
  const listeners = new Set<(n: AlertNotification) => void>();
  const notifier = createNotifier(options.rules, { logger: options.logger, onResult: options.onResult, backoffMs: options.backoffMs });
  const recordTransition = (n: AlertNotification) => {
    options.history?.record(n).catch((err) => options.logger?.warn({ err: (err as Error).message, alert: n.id }, 'paypulse: alert history write failed'));
    for (const listener of listeners) listener(n);
  };
  const evaluator = createAlertEvaluator({
    rules: options.rules,
    namespace: options.namespace,
    snapshots: options.snapshots,
    coordination: options.coordination,
    clock: options.clock,
    sink: notifier,
    failures: options.failures,
    logger: options.logger,
    longWindows,
    ...(options.keeper ? { keeper: options.keeper } : {}),
    ...(options.lens ? { lens: options.lens } : {}),
    ...(options.recent ? { recent: options.recent } : {}),
    onTransition: recordTransition,
  });
  return {
    get rules() {
      return options.rules;
    },
    reconfigure(rules) {
      const next = { ...rules, evaluateEveryMs: options.rules.evaluateEveryMs };
      // Throws, changing nothing, when a new burn-rate window needs a history store there is not.
      const nextLongWindows = longWindowsFor({ ...options, rules: next });
      options.rules = next;
      built = nextLongWindows;
      evaluator.setRules(next);
      notifier.setRules(next);
    },
    active: () => evaluator.active(),
    status: () => evaluator.status(),
    evaluate: () => evaluator.evaluate(),
    mute: (channel, untilMs) => evaluator.mute(channel, untilMs),
    muteOf: (channel) => evaluator.muteOf(channel),
    onTransition(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notifier,
    resolveOrphan(last, nowMs) {
      const n = orphanResolved(last, nowMs);
      recordTransition(n);
      if (!n.muted) notifier.dispatch(n);
    },
    attachHistory(history) {
      options.history = history.alerts;
      if (options.minutes) options.minutes.history = history.minutes;
      built = undefined;
    },
    linkDashboard(url) {
      // The evaluator reads the rules object it was given at each step, so the change reaches the next notification.
      options.rules.dashboardUrl = url;
    },
    start() {
      ensureLongWindows();
      evaluator.start();
    },
    async stop() {
      await evaluator.stop();
      await notifier.idle();
    },
  };
}

export { resolveAlertRules, windowsNeeded, type AlertRules, type AlertRulesInput, type Level } from './rules.js';
export type { Thresholds } from '../stats/severity.js';
export type { ActiveAlert, AlertNotification, Evidence } from './notification.js';
export type { AlertHistory } from './history.js';
