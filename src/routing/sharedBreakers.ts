// Breakers every instance agrees on: each record lives in the coordination store and moves only by a versioned
// compare-and-set, so of N instances that see the same window exactly one writes the transition (and reports
// it) while the others adopt what was written. Half-open probes are leases with a fleet-wide quota, taken
// before a probe payment is sent — never a lock held around a call (docs/routing.md).
import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { coordinationKey } from '../store/keys/coordination.js';
import type { CoordinationStore } from '../store/ports/coordination.js';
import {
  creditProbe,
  probeQuota,
  decodeBreaker,
  encodeBreaker,
  initialBreaker,
  nextBreaker,
  withMode,
  type BreakerRecord,
  type WindowEvidence,
} from './breakerMachine.js';
import type { ResolvedBreakerSettings } from './settings.js';
import type { BreakerMode, BreakerState } from './types.js';

export interface BreakerView {
  channel: string;
  /** '' for the channel's own breaker, else the dims series id (`method=card`). */
  scope: string;
  state: BreakerState;
  mode: BreakerMode;
  since: number;
  version: number;
}

export interface BreakerTransition {
  channel: string;
  scope: string;
  from: BreakerState;
  to: BreakerState;
  mode: BreakerMode;
  at: number;
}

export interface BreakerTarget {
  channel: string;
  scope: string;
  window: WindowEvidence;
}

export interface SharedBreakersOptions {
  store: CoordinationStore;
  namespace: string;
  settings: ResolvedBreakerSettings;
  clock: Clock;
  /** This instance wrote the transition: called once fleet-wide per transition (history, metrics). */
  onTransition?: (t: BreakerTransition) => void;
  /** This instance saw a breaker change state, whoever wrote it (stream, dashboard). */
  onChange?: (view: BreakerView) => void;
}

interface Held {
  rec: BreakerRecord;
  version: number;
}

/** Auto states expire a day after their last write (an expired record reads as closed); overrides last 30 days. */
const autoTtlMs = 24 * 3600_000;
export const forcedTtlMs = 30 * 24 * 3600_000;
/** After a denied lease this instance asks again no sooner than this: at most one denied call a second. */
const leaseRetryMs = 1000;
const casAttempts = 5;
const targetsPerTurn = 1_000;

const idOf = (channel: string, scope: string) => `${channel}\n${scope}`;

function viewOf(channel: string, scope: string, h: Held | undefined): BreakerView {
  const rec = h?.rec ?? initialBreaker;
  return { channel, scope, state: rec.state, mode: rec.mode, since: rec.since, version: h?.version ?? 0 };
}

export class SharedBreakers {
  private held = new Map<string, Held>();
  private readonly retryLeaseAt = new Map<string, number>();
  private readonly windowMs: number;
  private failing = false;

  constructor(private readonly o: SharedBreakersOptions, windowSec: number) {
    this.windowMs = windowSec * 1000;
  }

  get settings(): ResolvedBreakerSettings {
    return this.o.settings;
  }

  /** The last read failed: states are the last known ones. */
  get stale(): boolean {
    return this.failing;
  }

  private stateKey(channel: string, scope: string): string {
    return coordinationKey(this.o.namespace, channel, 'breaker', scope);
  }

  probesKey(channel: string, scope: string): string {
    return coordinationKey(this.o.namespace, channel, 'probes', scope);
  }

  private ttlOf(rec: BreakerRecord): number {
    return rec.mode === 'auto' ? autoTtlMs : forcedTtlMs;
  }

  /** What this instance knows; a breaker it has not read yet is closed. */
  view(channel: string, scope = ''): BreakerView {
    return viewOf(channel, scope, this.held.get(idOf(channel, scope)));
  }

  views(): BreakerView[] {
    return [...this.held.keys()].map((id) => {
      const [channel, scope] = id.split('\n');
      return this.view(channel!, scope!);
    });
  }

  /** One read of every target's state, then the transitions the windows call for, each by compare-and-set. */
  async sync(targets: BreakerTarget[]): Promise<void> {
    let stored: Array<{ version: number; value: string } | null>;
    try {
      stored = await this.o.store.readStates(targets.map((t) => this.stateKey(t.channel, t.scope)));
      this.failing = false;
    } catch {
      this.failing = true;
      return;
    }
    const now = this.o.clock.now();
    const next = new Map<string, Held>();
    const settle = async (t: BreakerTarget, i: number) => {
      const current: Held = { rec: decodeBreaker(stored[i]?.value), version: stored[i]?.version ?? 0 };
      const wanted = nextBreaker(current.rec, t.window, now, this.o.settings, this.windowMs);
      const adopted = wanted ? await this.write(t.channel, t.scope, current, wanted) : current;
      this.adopt(next, t.channel, t.scope, adopted);
    };
    // A turn of the event loop every slice: the embedded store answers at once, and 10,000 targets were one
    // task after each snapshot (docs/decisions/067-long-tasks-yield.md). The writes still all run together.
    const settling: Promise<void>[] = [];
    for (let i = 0; i < targets.length; i++) {
      if (i > 0 && i % targetsPerTurn === 0) await setImmediate();
      settling.push(settle(targets[i]!, i));
    }
    await Promise.all(settling);
    this.held = next;
  }

  private adopt(into: Map<string, Held>, channel: string, scope: string, h: Held): void {
    const id = idOf(channel, scope);
    const before = this.held.get(id)?.rec.state ?? 'closed';
    into.set(id, h);
    if (h.rec.state !== before) this.o.onChange?.(viewOf(channel, scope, h));
  }

  /** Writes `wanted` over `current`; on a lost race, what the winner wrote. A store error keeps `current`. */
  private async write(channel: string, scope: string, current: Held, wanted: BreakerRecord): Promise<Held> {
    try {
      const reply = await this.o.store.compareAndSetState(this.stateKey(channel, scope), current.version, encodeBreaker(wanted), this.ttlOf(wanted));
      if (!reply.written) return { rec: decodeBreaker(reply.current?.value), version: reply.current?.version ?? 0 };
      if (wanted.state !== current.rec.state && (current.rec.state === 'half-open' || wanted.state === 'half-open')) {
        await this.o.store.clearLeases(this.probesKey(channel, scope));
      }
      if (wanted.state !== current.rec.state) {
        this.o.onTransition?.({ channel, scope, from: current.rec.state, to: wanted.state, mode: wanted.mode, at: wanted.since });
      }
      return { rec: wanted, version: reply.version };
    } catch {
      this.failing = true;
      return current;
    }
  }

  /** Re-reads, applies `change` and compare-and-sets, retrying lost races; the record finally stored. */
  private async update(channel: string, scope: string, change: (rec: BreakerRecord) => BreakerRecord | null): Promise<Held> {
    const key = this.stateKey(channel, scope);
    let [stored] = await this.o.store.readStates([key]);
    for (let attempt = 0; attempt < casAttempts; attempt++) {
      const current: Held = { rec: decodeBreaker(stored?.value), version: stored?.version ?? 0 };
      const wanted = change(current.rec);
      if (!wanted) return current;
      const reply = await this.o.store.compareAndSetState(key, current.version, encodeBreaker(wanted), this.ttlOf(wanted));
      if (reply.written) {
        if (wanted.state !== current.rec.state) {
          if (current.rec.state === 'half-open' || wanted.state === 'half-open') await this.o.store.clearLeases(this.probesKey(channel, scope));
          this.o.onTransition?.({ channel, scope, from: current.rec.state, to: wanted.state, mode: wanted.mode, at: wanted.since });
        }
        const held = { rec: wanted, version: reply.version };
        const before = this.held.get(idOf(channel, scope))?.rec;
        this.held.set(idOf(channel, scope), held);
        if (before?.state !== wanted.state || before?.mode !== wanted.mode) this.o.onChange?.(viewOf(channel, scope, held));
        return held;
      }
      stored = reply.current;
    }
    throw new Error(`breaker ${channel}/${scope}: ${casAttempts} lost compare-and-set races in a row`);
  }

  /** The stored state, read now (the API's GET, never the payment path). */
  async read(channel: string, scope = ''): Promise<BreakerView> {
    const [stored] = await this.o.store.readStates([this.stateKey(channel, scope)]);
    return viewOf(channel, scope, stored ? { rec: decodeBreaker(stored.value), version: stored.version } : undefined);
  }

  async setMode(channel: string, mode: BreakerMode, scope = ''): Promise<BreakerView> {
    const now = this.o.clock.now();
    // What is stored, also when it already held this mode (this instance may not have read it yet).
    const stored = await this.update(channel, scope, (rec) => (rec.mode === mode && mode !== 'auto' ? null : withMode(mode, now)));
    return viewOf(channel, scope, stored);
  }

  /**
   * Takes one of the half-open breaker's probe leases for `holder`, within the quota its credited probes allow
   * (one at first, more while they succeed). False when the quota is taken, the store fails, or a lease was denied within the last second (so a busy half-open channel costs at most one denied
   * store call a second per instance).
   */
  async admitProbe(channel: string, scope: string, holder: string): Promise<boolean> {
    const key = this.probesKey(channel, scope);
    const now = this.o.clock.now();
    if ((this.retryLeaseAt.get(key) ?? 0) > now) return false;
    try {
      const quota = probeQuota(this.held.get(idOf(channel, scope))?.rec ?? initialBreaker, this.o.settings);
      const reply = await this.o.store.takeLease(key, holder, quota, this.o.settings.probeTtlMs, now);
      if (!reply.granted) this.retryLeaseAt.set(key, now + leaseRetryMs);
      else this.retryLeaseAt.delete(key);
      return reply.granted;
    } catch {
      this.retryLeaseAt.set(key, now + leaseRetryMs);
      return false;
    }
  }

  /** Credits a probe's outcome when `holder` held a lease (any instance may receive the outcome). */
  async creditOutcome(channel: string, scope: string, holder: string, success: boolean): Promise<boolean> {
    const released = await this.o.store.releaseLease(this.probesKey(channel, scope), holder);
    if (!released) return false;
    const now = this.o.clock.now();
    await this.update(channel, scope, (rec) => creditProbe(rec, success, now, this.o.settings));
    return true;
  }

  /** Drops the per-key retry marks; called with the snapshot so the map stays as small as the breaker set. */
  forgetRetries(): void {
    const now = this.o.clock.now();
    for (const [key, at] of this.retryLeaseAt) if (at <= now) this.retryLeaseAt.delete(key);
  }
}
