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

export class DurableSpill {
  readonly stats: SpillStats = { spilled: 0, replayed: 0 };
  private replaying: Promise<boolean> | undefined;

  constructor(
    private readonly journal: SpillJournal,
    private readonly logger?: PulseLogger,
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
    await this.journal.append(outcomes);
    this.stats.spilled += outcomes.length;
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
    return true;
  }
}
