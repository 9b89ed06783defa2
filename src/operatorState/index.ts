// Operator state that survives the live store: the keeper writes each override, mute and firing alert to the
// durable store as it changes; the restorer puts them back when the store's epoch says Redis forgot, and
// resolves alerts whose state is gone for good. createPulse builds this when `operatorState` is given.
import type { Clock } from '../clock.js';
import type { AlertStateKeeper } from '../alerts/evaluator.js';
import type { AlertNotification } from '../alerts/notification.js';
import type { AlertState } from '../alerts/state.js';
import { alertScopeOf, type Target } from '../alerts/targets.js';
import { encodeBreaker, withMode } from '../routing/breakerMachine.js';
import { forcedTtlMs, type BreakerView } from '../routing/sharedBreakers.js';
import type { CoordinationStore } from '../store/ports/coordination.js';
import type { OperatorStateStore } from '../store/ports/operatorState.js';
import type { PulseLogger } from '../types.js';
import { OperatorStateKeeper, type KeeperStats } from './keeper.js';
import { OperatorStateRestorer, type RestorerOptions, type RestorerStats } from './restorer.js';

export interface OperatorStateSettings {
  store: OperatorStateStore;
  /** How often the live store's epoch is checked (and failed durable writes retried); default 1 s. */
  checkEveryMs?: number;
  /** How often firing alerts without a live state are looked for; default 30 s. */
  sweepEveryMs?: number;
}

export interface OperatorStateDeps {
  namespace: string;
  clock: Clock;
  coordination: CoordinationStore;
  readEpoch(): Promise<{ id: string }>;
  logger?: PulseLogger;
}

export type OperatorStateStats = KeeperStats & RestorerStats;

export class OperatorState {
  readonly keeper: OperatorStateKeeper;
  readonly restorer: OperatorStateRestorer;
  private readonly options: RestorerOptions;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | null = null;
  private nextSweepAt = 0;

  constructor(private readonly settings: OperatorStateSettings, private readonly deps: OperatorStateDeps) {
    this.keeper = new OperatorStateKeeper(settings.store, deps.namespace, deps.logger);
    this.options = { store: settings.store, ...deps };
    this.restorer = new OperatorStateRestorer(this.options);
  }

  get stats(): OperatorStateStats {
    return { ...this.keeper.stats, ...this.restorer.stats, restored: { ...this.restorer.stats.restored } };
  }

  /** Routing's hook: a forced mode is kept as the record it stored, `auto` drops it. */
  keepOverride = async (view: BreakerView): Promise<void> => {
    if (view.mode === 'auto') {
      await this.keeper.drop('breaker', view.channel, view.scope);
      return;
    }
    const value = encodeBreaker(withMode(view.mode, view.since));
    await this.keeper.keep({ kind: 'breaker', channel: view.channel, scope: view.scope, value, note: '', expiresAt: view.since + forcedTtlMs });
  };

  /** The alert engine's hooks; `resolveOrphan` announces what the sweep resolves. */
  alertKeeper(alerts: NonNullable<RestorerOptions['alerts']>): AlertStateKeeper {
    this.options.alerts = alerts;
    return {
      confirmStore: () => this.restorer.confirm(),
      keepStep: (target: Target, state: AlertState, n: AlertNotification) => {
        const scope = alertScopeOf(target.ruleId, target.dims);
        if (n.transition === 'resolved') void this.keeper.drop('alert', target.channel, scope);
        else void this.keeper.keep({ kind: 'alert', channel: target.channel, scope, value: JSON.stringify(state), note: JSON.stringify(n), expiresAt: null });
      },
      keepMute: (channel, untilMs) => this.keeper.keep({ kind: 'mute', channel, scope: '', value: JSON.stringify({ until: untilMs }), note: '', expiresAt: untilMs }),
    };
  }

  /** One round: retry unsaved writes, restore if the store forgot, sweep orphaned alerts when due. */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    await this.keeper.retryUnsaved();
    await this.restorer.confirm();
    const now = this.deps.clock.now();
    if (!this.options.alerts || now < this.nextSweepAt) return;
    this.nextSweepAt = now + (this.settings.sweepEveryMs ?? 30_000);
    await this.restorer.sweepOrphans().catch((err: Error) => this.deps.logger?.warn({ err: err.message }, 'paypulse: orphaned alerts not swept'));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.settings.checkEveryMs ?? 1_000);
    this.timer.unref();
    void this.check();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
    await this.keeper.idle();
  }
}
