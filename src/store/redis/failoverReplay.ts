// Redis replicates asynchronously: in a Sentinel failover the old primary accepts writes for a moment after its
// replica was promoted, and those writes vanish when it turns into the new primary's replica (measured: ≈ 1,900
// of 24,700 outcomes in a forced failover under steady ingest, test/store/redis/sentinel.test.ts). So a Sentinel
// store keeps the batches it wrote in the last seconds and, when the primary changes, writes them again to the
// new one. The ledger makes that harmless: what did reach the new primary comes back as a duplicate.
import type { StoredOutcome } from '../ports/stats.js';

interface WrittenBatch {
  channel: string;
  outcomes: StoredOutcome[];
  now: number;
  /** performance.now() when written: the failover is real time even when the clock is virtual. */
  writtenAt: number;
}

export interface FailoverReplayOptions {
  /** Writes one batch again (the store's record call, without remembering it a second time). */
  rewrite: (channel: string, outcomes: StoredOutcome[], now: number) => Promise<unknown>;
  /** Batches written this long before the switch is seen are written again. Default 15 s. */
  windowMs?: number;
  /** At most this many outcomes are kept (bounded by design); older ones go first. Default 200,000. */
  maxOutcomes?: number;
  /** Replays after a switch: at once, then at these delays, for writes still in flight to the old primary. */
  replayDelaysMs?: number[];
  onReplay?: (outcomes: number, error?: unknown) => void;
}

export class FailoverReplay {
  private batches: WrittenBatch[] = [];
  private kept = 0;
  private timers = new Set<NodeJS.Timeout>();
  private readonly windowMs: number;
  private readonly maxOutcomes: number;
  private readonly delaysMs: number[];
  private replaying: Promise<void> = Promise.resolve();

  constructor(private readonly options: FailoverReplayOptions) {
    this.windowMs = options.windowMs ?? 15_000;
    this.maxOutcomes = options.maxOutcomes ?? 200_000;
    this.delaysMs = options.replayDelaysMs ?? [0, 1_000, 3_000, 8_000];
  }

  /** Outcomes held for a replay now. */
  get heldOutcomes(): number {
    return this.kept;
  }

  remember(channel: string, outcomes: StoredOutcome[], now: number): void {
    const writtenAt = performance.now();
    this.batches.push({ channel, outcomes, now, writtenAt });
    this.kept += outcomes.length;
    this.forgetOld(writtenAt);
  }

  /** The primary changed: write the recent batches to the new one, now and again shortly after. */
  primaryChanged(): void {
    for (const delay of this.delaysMs) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.replaying = this.replaying.then(() => this.replay());
      }, delay);
      timer.unref();
      this.timers.add(timer);
    }
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.batches = [];
    this.kept = 0;
  }

  private forgetOld(now: number): void {
    let drop = 0;
    while (drop < this.batches.length && (now - this.batches[drop].writtenAt > this.windowMs || this.kept > this.maxOutcomes)) {
      this.kept -= this.batches[drop].outcomes.length;
      drop++;
    }
    if (drop > 0) this.batches.splice(0, drop);
  }

  private async replay(): Promise<void> {
    this.forgetOld(performance.now());
    const batches = [...this.batches];
    let outcomes = 0;
    try {
      for (const batch of batches) {
        await this.options.rewrite(batch.channel, batch.outcomes, batch.now);
        outcomes += batch.outcomes.length;
      }
      this.options.onReplay?.(outcomes);
    } catch (err) {
      // The new primary is not ready yet; the next scheduled replay tries again.
      this.options.onReplay?.(outcomes, err);
    }
  }
}
