// The recorder's durable buffer: outcomes the store could not take go to the journal (fsync'd before the
// caller hears `buffered`), and go back to the store, oldest file first, whenever it answers again — also
// after a crash, from what the previous process left. A file is released only when every batch in it was
// written; a replay cut short writes that file again next time, which the ledger makes harmless.
import type { Outcome, PulseLogger } from '../../types.js';
import type { SpillJournal } from './journal.js';

/** Writes outcomes straight to the store; false when the store failed (nothing is buffered or spilled again). */
export type DirectWrite = (outcomes: Outcome[]) => Promise<boolean>;

export interface SpillStats {
  /** Outcomes written to the journal since start. */
  spilled: number;
  /** Outcomes written back to the store from the journal since start. */
  replayed: number;
}

/** A refusal is logged at most this often; the lines held back in between are counted in the next one. */
const refusalLogEveryMs = 60_000;

export class DurableSpill {
  readonly stats: SpillStats = { spilled: 0, replayed: 0 };
  /** Outcomes the journal refused since start. */
  refusedOutcomes = 0;
  /** Why the journal refuses now; cleared once it takes outcomes again or the store has emptied it. */
  refusing: string | undefined;
  private replaying: Promise<boolean> | undefined;
  private lastRefusalLogMs = -Infinity;
  private refusalsNotLogged = 0;

  constructor(
    private readonly journal: SpillJournal,
    private readonly logger?: PulseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Outcomes on disk waiting for the store. */
  get pendingOutcomes(): number {
    return this.journal.pendingOutcomes;
  }

  get dir(): string {
    return this.journal.dir;
  }

  /** Resolves once the outcomes are durable; rejects when the journal is full or the disk fails. */
  async spill(outcomes: Outcome[]): Promise<void> {
    try {
      await this.journal.append(outcomes);
    } catch (err) {
      this.noteRefusal(outcomes.length, err);
      throw err;
    }
    this.refusing = undefined;
    this.stats.spilled += outcomes.length;
  }

  /** A full journal refuses every record call of an outage: one line a minute says so, with the count held back. */
  private noteRefusal(outcomes: number, err: unknown): void {
    this.refusedOutcomes += outcomes;
    this.refusing = String(err instanceof Error ? err.message : err);
    const now = this.now();
    if (now - this.lastRefusalLogMs < refusalLogEveryMs) {
      this.refusalsNotLogged++;
      return;
    }
    this.logger?.error({ err: this.refusing, outcomes, refusedOutcomes: this.refusedOutcomes, suppressed: this.refusalsNotLogged }, 'paypulse: spill journal refused outcomes; buffering them in memory');
    this.lastRefusalLogMs = now;
    this.refusalsNotLogged = 0;
  }

  /** Writes the journal back to the store; true when it is empty afterwards. One replay runs at a time. */
  replay(write: DirectWrite): Promise<boolean> {
    this.replaying ??= this.replayFiles(write).finally(() => {
      this.replaying = undefined;
    });
    return this.replaying;
  }

  close(): Promise<void> {
    return this.journal.close();
  }

  private async replayFiles(write: DirectWrite): Promise<boolean> {
    for (let file = await this.journal.takeOldest(); file; file = await this.journal.takeOldest()) {
      for (const batch of file.batches) {
        if (!(await write(batch))) return false;
      }
      await this.journal.release(file.seq);
      const written = file.batches.reduce((n, b) => n + b.length, 0);
      this.stats.replayed += written;
      this.logger?.info({ outcomes: written, left: this.journal.pendingOutcomes }, 'paypulse: spilled outcomes written to the store');
    }
    // Emptied: the journal has room again.
    this.refusing = undefined;
    return true;
  }
}
