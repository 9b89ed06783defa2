// The alert engine as the library exposes it (`pulse.alerts`): the evaluator on the health snapshot, the
// receivers, the history of transitions and the listeners (the service's stream).
import type { Clock } from '../clock.js';
import type { HealthSnapshots } from '../stats/healthSnapshot.js';
import type { CoordinationStore } from '../store/ports/coordination.js';
import type { PulseLogger } from '../types.js';
import { createAlertEvaluator, type EvaluationReport, type EvaluatorStatus } from './evaluator.js';
import type { FailuresReader } from './evidence.js';
import type { AlertHistory } from './history.js';
import type { ActiveAlert, AlertNotification } from './notification.js';
import { createNotifier, type Notifier, type NotifierOptions } from './notifier.js';
import type { AlertRules } from './rules.js';

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
}

export interface Alerts {
  readonly rules: AlertRules;
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
  start(): void;
  stop(): Promise<void>;
}

export function createAlerts(options: AlertsOptions): Alerts {
  const listeners = new Set<(n: AlertNotification) => void>();
  const notifier = createNotifier(options.rules, { logger: options.logger, onResult: options.onResult, backoffMs: options.backoffMs });
  const evaluator = createAlertEvaluator({
    rules: options.rules,
    namespace: options.namespace,
    snapshots: options.snapshots,
    coordination: options.coordination,
    clock: options.clock,
    sink: notifier,
    failures: options.failures,
    logger: options.logger,
    onTransition(n) {
      options.history?.record(n).catch((err) => options.logger?.warn({ err: (err as Error).message, alert: n.id }, 'paypulse: alert history write failed'));
      for (const listener of listeners) listener(n);
    },
  });
  return {
    rules: options.rules,
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
    start: () => evaluator.start(),
    async stop() {
      await evaluator.stop();
      await notifier.idle();
    },
  };
}

export { resolveAlertRules, windowsNeeded, type AlertRules, type AlertRulesInput, type Level, type Thresholds } from './rules.js';
export type { ActiveAlert, AlertNotification, Evidence } from './notification.js';
export type { AlertHistory } from './history.js';
