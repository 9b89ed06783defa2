// Puts operator state back when the live store forgot it. The store's epoch (src/store/ports/stats.ts) changes
// when Redis comes back empty; an instance that sees an epoch it has not restored for writes every durable row
// back by compare-and-set on an absent key, so instances restoring together write each key once and never fight,
// and whatever was written since the restart is kept — except a breaker whose override is missing, which gets
// it back (an automatic transition written in the gap must not undo an operator's decision). Firing alerts whose
// state is gone for good (expired, or stepped to resolved by an instance that died before it said so) are
// resolved here once fleet-wide: the durable row's deletion decides which instance announces it.
import type { Clock } from '../clock.js';
import type { AlertNotification } from '../alerts/notification.js';
import { parseState } from '../alerts/state.js';
import { decodeBreaker } from '../routing/breakerMachine.js';
import { coordinationKey } from '../store/keys/coordination.js';
import type { CoordinationStore, SharedState } from '../store/ports/coordination.js';
import type { KeptKind, KeptState, OperatorStateStore } from '../store/ports/operatorState.js';
import type { PulseLogger } from '../types.js';

export interface RestorerStats {
  /** Times this instance found the live store emptied and restored it. */
  restores: number;
  /** Keys written back, by kind (a key another instance restored first is not counted here). */
  restored: Record<KeptKind, number>;
  restoreFailures: number;
  /** Firing alerts whose state was gone, resolved (and announced) by this instance. */
  orphansResolved: number;
  /** Clock ms of the last restore, and how long it took from finding the new epoch. */
  lastRestoreAt: number | null;
  lastRestoreMs: number | null;
}

export interface RestorerOptions {
  store: OperatorStateStore;
  coordination: CoordinationStore;
  namespace: string;
  clock: Clock;
  /** The live store's epoch (it writes a new one when it has none). */
  readEpoch(): Promise<{ id: string }>;
  /** TTL of a restored alert state, and the evaluation period (an alert not stepped for a while is not live). */
  alerts?: { stateTtlMs: number; evaluateEveryMs: number; resolveOrphan(last: AlertNotification, nowMs: number): void };
  logger?: PulseLogger;
}

/** Rows read per listing; operator state is per channel, so this is far above any real fleet's. */
export const maxKeptRows = 100_000;
/** After a restore that failed (the database down), evaluations go on without waiting for the next try this long. */
const retryRestoreMs = 10_000;
const minTtlMs = 1_000;

export class OperatorStateRestorer {
  readonly stats: RestorerStats = {
    restores: 0,
    restored: { breaker: 0, mute: 0, alert: 0 },
    restoreFailures: 0,
    orphansResolved: 0,
    lastRestoreAt: null,
    lastRestoreMs: null,
  };
  private restoredEpoch: string | undefined;
  private confirming: Promise<boolean> | null = null;
  private retryAt = 0;

  constructor(private readonly o: RestorerOptions) {}

  private keyOf(row: Pick<KeptState, 'kind' | 'channel' | 'scope'>): string {
    return coordinationKey(this.o.namespace, row.channel, row.kind, row.scope);
  }

  /**
   * Call after reading state from the live store: true when the store still holds what this instance restored
   * (or a restore cannot be made now); false when the store had forgotten — it is restored now, and what was
   * just read must not be acted on.
   */
  confirm(): Promise<boolean> {
    this.confirming ??= this.confirmOnce().finally(() => {
      this.confirming = null;
    });
    return this.confirming;
  }

  private async confirmOnce(): Promise<boolean> {
    let epoch: { id: string };
    try {
      epoch = await this.o.readEpoch();
    } catch {
      return false;
    }
    if (epoch.id === this.restoredEpoch) return true;
    const now = this.o.clock.now();
    if (now < this.retryAt) return true;
    try {
      await this.restore(now);
      this.restoredEpoch = epoch.id;
      return false;
    } catch (err) {
      this.stats.restoreFailures++;
      this.retryAt = now + retryRestoreMs;
      this.o.logger?.warn({ err: (err as Error).message }, 'paypulse: operator state not restored into the live store; retrying');
      return true;
    }
  }

  private ttlOf(row: KeptState, now: number): number {
    if (row.kind === 'alert') return this.o.alerts?.stateTtlMs ?? 3_600_000;
    // A mute's key outlives its end by a minute, as when it was written (src/alerts/evaluator.ts).
    const end = row.kind === 'mute' ? (row.expiresAt ?? now) + 60_000 : (row.expiresAt ?? now);
    return Math.max(minTtlMs, end - now);
  }

  private async restore(startedAt: number): Promise<void> {
    const rows = await this.o.store.list(this.o.namespace, startedAt, maxKeptRows);
    const written = await Promise.all(rows.map((row) => this.restoreRow(row, startedAt)));
    rows.forEach((row, i) => {
      if (written[i]) this.stats.restored[row.kind]++;
    });
    this.stats.restores++;
    const now = this.o.clock.now();
    this.stats.lastRestoreAt = now;
    this.stats.lastRestoreMs = now - startedAt;
    const count = (kind: KeptKind) => written.filter((w, i) => w && rows[i]!.kind === kind).length;
    this.o.logger?.info(
      { overrides: count('breaker'), mutes: count('mute'), alerts: count('alert'), rows: rows.length },
      'paypulse: the live store has a new epoch (it lost its data); operator state restored',
    );
  }

  /** True when this call wrote the key. */
  private async restoreRow(row: KeptState, now: number): Promise<boolean> {
    const key = this.keyOf(row);
    const reply = await this.o.coordination.compareAndSetState(key, 0, row.value, this.ttlOf(row, now));
    if (reply.written) return true;
    if (row.kind !== 'breaker' || !reply.current || !this.overrideMissing(row, reply.current)) return false;
    const again = await this.o.coordination.compareAndSetState(key, reply.current.version, row.value, this.ttlOf(row, now));
    return again.written;
  }

  private overrideMissing(row: KeptState, current: SharedState): boolean {
    return decodeBreaker(current.value).mode !== decodeBreaker(row.value).mode;
  }

  /**
   * Resolves firing alerts whose live state is gone or has been resolved a while ago without its durable row
   * being dropped. The epoch is read after the states: states read from a store that just forgot are restored,
   * never taken for orphans.
   */
  async sweepOrphans(): Promise<number> {
    const alerts = this.o.alerts;
    if (!alerts) return 0;
    const now = this.o.clock.now();
    const rows = (await this.o.store.list(this.o.namespace, now, maxKeptRows)).filter((r) => r.kind === 'alert');
    if (rows.length === 0) return 0;
    const states = await this.o.coordination.readStates(rows.map((r) => this.keyOf(r)));
    if (!(await this.confirm())) return 0;
    // The instance that resolves an alert drops its row right after its write; this leaves it the time to.
    const graceMs = Math.max(60_000, 3 * alerts.evaluateEveryMs);
    let resolved = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const stored = states[i];
      const state = parseState(stored?.value);
      const steppedAt = (state.slot + 1) * alerts.evaluateEveryMs;
      const orphan = !stored || (state.rank === 0 && now - steppedAt >= graceMs);
      // Straight to the store, not through the keeper's retries: only a deletion seen to succeed may announce; and
      // only of the row as read, so an alert that fired again meanwhile (a new row value) is left alone.
      if (!orphan) continue;
      if (!(await this.o.store.drop(this.o.namespace, 'alert', row.channel, row.scope, row.value).catch(() => false))) continue;
      const last = parseNote(row.note);
      if (last) alerts.resolveOrphan(last, now);
      resolved++;
    }
    this.stats.orphansResolved += resolved;
    return resolved;
  }
}

function parseNote(note: string): AlertNotification | null {
  try {
    return JSON.parse(note) as AlertNotification;
  } catch {
    return null;
  }
}
