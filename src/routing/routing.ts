// Routing for one process: a health cache rebuilt from each health snapshot (never a stats read per decision),
// breaker states read in one coordination call per snapshot, decisions in process, and the outcome hook that
// credits probes and experiment arms (docs/routing.md).
import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { StoreUnavailableError } from '../errors.js';
import type { HealthSnapshot, HealthSnapshots } from '../stats/healthSnapshot.js';
import { dimsOfSeriesId, SeriesPlan } from '../stats/series.js';
import { parseWindow } from '../stats/windows.js';
import { experimentKey } from '../store/keys/coordination.js';
import type { CoordinationStore } from '../store/ports/coordination.js';
import type { Outcome, PulseLogger } from '../types.js';
import { EvidenceTracker, type RoutingEvidence } from './evidence.js';
import { Experiment, type ExperimentReport } from './experiment.js';
import { asProbe, Router, type Draft } from './router.js';
import { applyRoutingSettings, type RoutingSettings } from './settings.js';
import { SeriesRegistry } from './seriesRegistry.js';
import { SharedBreakers, type BreakerTarget, type BreakerTransition, type BreakerView } from './sharedBreakers.js';
import type { BreakerMode, BreakerState, RouteDecision, RouteRequest } from './types.js';
import { assertBreakerMode, assertRouteRequest } from './validateRoute.js';
import { DecisionCounts } from './decisionCounts.js';

export interface RoutingDeps {
  settings: RoutingSettings;
  snapshots: HealthSnapshots;
  coordination: CoordinationStore;
  namespace: string;
  clock: Clock;
  /** The stats engine's dimension sets: the series a score can fall back through. */
  dimensions: string[][];
  /** Recent samples a series needs before its channel is no longer explored. */
  minSamples: number;
  /** The registry whose series the snapshot reads; routing notes the series decisions ask about. */
  series: SeriesRegistry;
  logger?: PulseLogger;
  onTransition?: (t: BreakerTransition) => void;
  onChange?: (view: BreakerView) => void;
  /** A manual override as stored, for a durable copy (src/operatorState/); never rejects. */
  keepOverride?: (view: BreakerView) => Promise<void>;
}

export interface BreakerHandle {
  /** The state as stored now (one coordination read). */
  state(): Promise<BreakerView>;
  setMode(mode: BreakerMode): Promise<BreakerView>;
}

/** Channels routed for but not (yet) in the snapshot keep their breakers read: bounded like the snapshot. */
const maxRoutedChannels = 1000;
/** Building 10,000 channels' breaker targets was one long task a snapshot (docs/decisions/067-long-tasks-yield.md). */
const targetChannelsPerTurn = 1_000;

export class Routing {
  readonly breakers: SharedBreakers;
  readonly experiment: Experiment;
  private readonly router: Router;
  private readonly breakerSets: Set<string>;
  private readonly breakerPlan: SeriesPlan;
  private readonly routed = new Set<string>();
  private evidence: RoutingEvidence | undefined;
  private readonly tracker: EvidenceTracker;
  private syncing: Promise<void> | null = null;
  /** The absorption running, and the newest snapshot waiting for it (an older waiting one is skipped). */
  private absorbingNow: Promise<void> | null = null;
  private pending: HealthSnapshot | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly transitionListeners = new Set<(t: BreakerTransition) => void>();
  private readonly changeListeners = new Set<(view: BreakerView) => void>();
  /** Monotonic counts for metrics. */
  readonly counts = { decisions: 0, explored: 0, probes: 0, failOpen: 0, stale: 0 };
  /** Decisions by the channel answered and the reason, for the traffic share (bounded). */
  readonly decisionsByChannel = new DecisionCounts();

  constructor(private readonly d: RoutingDeps) {
    this.breakers = new SharedBreakers(
      {
        store: d.coordination,
        namespace: d.namespace,
        settings: d.settings.breaker,
        clock: d.clock,
        onTransition: (t) => {
          d.onTransition?.(t);
          for (const listener of this.transitionListeners) listener(t);
        },
        onChange: (view) => {
          d.onChange?.(view);
          for (const listener of this.changeListeners) listener(view);
        },
      },
      parseWindow(d.settings.breaker.window),
    );
    this.experiment = new Experiment(d.settings.experimentShare, d.coordination, experimentKey(d.namespace));
    this.router = new Router(d.settings, d.dimensions, { stateOf: (c, s) => this.breakers.view(c, s).state, modeOf: (c, s) => this.breakers.view(c, s).mode }, d.series, d.minSamples);
    this.breakerSets = new Set(d.settings.breaker.dims.map((set) => set.join(',')));
    this.breakerPlan = new SeriesPlan(d.settings.breaker.dims);
    this.tracker = new EvidenceTracker({ score: d.settings.scoreWindows, breaker: d.settings.breaker.window });
  }

  get settings(): RoutingSettings {
    return this.d.settings;
  }

  /**
   * New settings from the next decision on (a config reload); returns the changed settings that wait for a
   * restart (applyRoutingSettings).
   */
  reconfigure(next: RoutingSettings): string[] {
    return applyRoutingSettings(this.d.settings, next);
  }

  /** Transitions this instance wrote (once fleet-wide each: history, audit); returns the unsubscribe function. */
  onTransition(listener: (t: BreakerTransition) => void): () => void {
    this.transitionListeners.add(listener);
    return () => this.transitionListeners.delete(listener);
  }

  /** Breaker changes this instance saw, whoever wrote them (stream, dashboard, metrics). */
  onBreakerChange(listener: (view: BreakerView) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Rebuilds the cache on every snapshot from now on. */
  start(): void {
    this.unsubscribe ??= this.d.snapshots.onSnapshot((s) => void this.absorb(s));
    const latest = this.d.snapshots.latest();
    if (latest) void this.absorb(latest);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.absorbingNow;
    await this.syncing;
    // What this instance counted since its last refresh still joins the fleet's experiment.
    await this.flushExperiment();
  }

  /** Takes a new snapshot and waits until routing has absorbed it (tests and the simulator, on virtual time). */
  async refresh(): Promise<void> {
    const snapshot = await this.d.snapshots.refresh();
    if (!this.unsubscribe && snapshot) await this.absorb(snapshot);
    await this.absorbingNow;
    await this.syncing;
  }

  private absorb(snapshot: HealthSnapshot): Promise<void> {
    this.pending = snapshot;
    this.absorbingNow ??= this.absorbPending().finally(() => {
      this.absorbingNow = null;
      if (this.pending) void this.absorb(this.pending);
    });
    return this.absorbingNow;
  }

  /** A snapshot of fewer than a slice of channels is absorbed before this returns, as the listener runs. */
  private async absorbPending(): Promise<void> {
    for (let snapshot = this.pending; snapshot; snapshot = this.pending) {
      this.pending = undefined;
      const steps = this.tracker.absorbing(snapshot);
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done) {
          this.evidence = step.value;
          this.router.settle(this.d.clock.now());
          break;
        }
        await setImmediate();
      }
      void this.sync();
    }
    await this.syncing;
  }

  private sync(): Promise<void> {
    // A sync still running when the next snapshot lands is joined, not doubled: one coordination read at a time.
    this.syncing ??= Promise.all([this.targets().then((targets) => this.breakers.sync(targets)), this.flushExperiment()]).then(() => undefined).finally(() => {
      this.syncing = null;
      this.breakers.forgetRetries();
    });
    return this.syncing;
  }

  /** The experiment's counts join the fleet's once a refresh; a failed flush keeps them for the next. */
  private async flushExperiment(): Promise<void> {
    await this.experiment.flush().catch((err: Error) => this.d.logger?.warn({ err: err.message }, 'paypulse: experiment counts not flushed'));
  }

  /** Every breaker the evidence covers, and the routed channels it does not; a turn of the event loop per slice. */
  private async targets(): Promise<BreakerTarget[]> {
    const out: BreakerTarget[] = [];
    const none = { success: 0, failure: 0 };
    const covered = new Set<string>();
    for (const [channel, ev] of this.evidence?.channels ?? []) {
      if (covered.size > 0 && covered.size % targetChannelsPerTurn === 0) await setImmediate();
      covered.add(channel);
      for (const [id, s] of ev.series) {
        if (id === '' || this.breakerSets.has(Object.keys(dimsOfSeriesId(id)).join(','))) out.push({ channel, scope: id, window: s.breaker });
      }
    }
    for (const channel of this.routed) if (!covered.has(channel)) out.push({ channel, scope: '', window: none });
    return out;
  }

  /** Stale when the stats or the breaker states could not be read at the last refresh. */
  get stale(): boolean {
    return this.d.snapshots.status().failing || this.breakers.stale;
  }

  /** The decision without its probe step: synchronous, no store call (what the latency benchmark times). */
  decide(req: RouteRequest): Draft {
    assertRouteRequest(req);
    for (const c of req.candidates) if (this.routed.size < maxRoutedChannels) this.routed.add(c);
    return this.router.decide(req, this.evidence, this.stale, this.d.clock.now());
  }

  async route(req: RouteRequest): Promise<RouteDecision> {
    const draft = this.decide(req);
    let decision = draft.decision;
    if (draft.probe && decision.arm === 'router') {
      const holder = req.requestId ?? `probe-${Math.floor(this.d.settings.random() * 2 ** 52).toString(36)}`;
      const scope = this.halfOpenScope(draft.probe.channel, draft.probe.scopes);
      if (scope !== undefined && (await this.breakers.admitProbe(draft.probe.channel, scope, holder))) {
        decision = asProbe(draft);
        this.counts.probes++;
      }
    }
    this.counts.decisions++;
    this.decisionsByChannel.note(decision.channel, decision.reason);
    if (decision.explored && !decision.probe) this.counts.explored++;
    if (decision.failOpen) this.counts.failOpen++;
    if (decision.stale) this.counts.stale++;
    this.experiment.noteDecision(req.requestId, decision.arm);
    return decision;
  }

  private halfOpenScope(channel: string, scopes: string[]): string | undefined {
    return scopes.find((s) => this.breakers.view(channel, s).state === 'half-open');
  }

  /**
   * Credits recorded outcomes to probes, experiment arms and the pace of looks at a broken channel. Only
   * outcomes of channels whose breaker is half-open cost a store call (releasing the probe's lease); excused
   * codes free the lease without counting.
   */
  async noteOutcomes(outcomes: Outcome[]): Promise<void> {
    const credits: Promise<unknown>[] = [];
    for (const o of outcomes) {
      if (o.status === 'pending') continue;
      const success = o.status === 'success';
      const excused = !success && o.code !== undefined && this.d.settings.excusedCodes.has(o.code);
      if (!excused) {
        this.experiment.credit(o.requestId, success);
        this.router.noteOutcome(o.channel, success);
      }
      for (const scope of this.scopesOf(o)) {
        if (this.breakers.view(o.channel, scope).state !== 'half-open') continue;
        const credit = excused
          ? this.d.coordination.releaseLease(this.breakers.probesKey(o.channel, scope), o.requestId)
          : this.breakers.creditOutcome(o.channel, scope, o.requestId, success);
        credits.push(credit.catch((err: Error) => this.d.logger?.warn({ err: err.message }, 'paypulse: probe credit failed')));
      }
    }
    await Promise.all(credits);
  }

  private scopesOf(o: Outcome): string[] {
    return this.breakerSets.size === 0 || !o.dims ? [''] : this.breakerPlan.seriesOf(o.dims);
  }

  breaker(channel: string, scope = ''): BreakerHandle {
    const guard = async <T>(work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (err) {
        throw new StoreUnavailableError(err);
      }
    };
    return {
      state: () => guard(() => this.breakers.read(channel, scope)),
      setMode: async (mode) => {
        assertBreakerMode(mode);
        const view = await guard(() => this.breakers.setMode(channel, mode, scope));
        await this.d.keepOverride?.(view);
        return view;
      },
    };
  }

  /** Series the snapshot was not asked to read because a limit was reached. */
  get refusedSeries(): number {
    return this.d.series.refused;
  }

  /** What this process knows of every breaker it tracks (stream, dashboard, metrics). */
  breakerStates(): Array<BreakerView> {
    return this.breakers.views();
  }

  stateOf(channel: string): BreakerState {
    return this.breakers.view(channel, '').state;
  }

  /** The fleet's experiment (one coordination read after this instance's flush). */
  async experimentReport(): Promise<ExperimentReport> {
    try {
      return await this.experiment.report();
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }
}
