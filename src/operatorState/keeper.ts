// Writes operator state to the durable store as it changes, beside the coordination store's copy. The live
// change never waits on a failed durable write nor fails because of one: the write is counted, logged and kept
// (the newest per row, bounded) to be retried on the next restorer tick, so the durable copy catches up.
// Writes of one row run one after another, so a `drop` never overtakes the `keep` issued before it.
import type { KeptKind, KeptState, OperatorStateStore } from '../store/ports/operatorState.js';
import type { PulseLogger } from '../types.js';

type Change = { op: 'keep'; state: KeptState } | { op: 'drop'; kind: KeptKind; channel: string; scope: string };

export interface KeeperStats {
  /** Durable writes that failed (each retried later). */
  writeFailures: number;
  /** Changes waiting for a retry now. */
  unsaved: number;
  /** Changes given up because more than `maxUnsaved` rows waited at once. */
  unsavedDropped: number;
}

/** Rows waiting for a retry: one per breaker scope, mute and alert at most; past it the oldest is given up. */
const maxUnsaved = 10_000;

const rowId = (kind: KeptKind, channel: string, scope: string) => `${kind}\n${channel}\n${scope}`;

function idOf(change: Change): string {
  return change.op === 'keep' ? rowId(change.state.kind, change.state.channel, change.state.scope) : rowId(change.kind, change.channel, change.scope);
}

export class OperatorStateKeeper {
  readonly stats: KeeperStats = { writeFailures: 0, unsaved: 0, unsavedDropped: 0 };
  private readonly unsaved = new Map<string, Change>();
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: OperatorStateStore,
    readonly namespace: string,
    private readonly logger?: PulseLogger,
  ) {}

  keep(state: KeptState): Promise<void> {
    return this.apply({ op: 'keep', state }).then(() => undefined);
  }

  /** True when this call deleted the row (of concurrent droppers fleet-wide, exactly one). */
  drop(kind: KeptKind, channel: string, scope: string): Promise<boolean> {
    return this.apply({ op: 'drop', kind, channel, scope });
  }

  /** Retries what failed before, newest change per row; resolves when every retry has run. */
  async retryUnsaved(): Promise<void> {
    const waiting = [...this.unsaved.values()];
    this.unsaved.clear();
    this.stats.unsaved = 0;
    await Promise.all(waiting.map((change) => this.apply(change)));
  }

  /** Waits for the writes already issued (tests, close). */
  async idle(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private apply(change: Change): Promise<boolean> {
    const id = idOf(change);
    const previous = this.chains.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.write(id, change));
    this.chains.set(id, next);
    void next.finally(() => {
      if (this.chains.get(id) === next) this.chains.delete(id);
    });
    return next;
  }

  private async write(id: string, change: Change): Promise<boolean> {
    try {
      const done = change.op === 'keep'
        ? await this.store.keep(this.namespace, change.state).then(() => true)
        : await this.store.drop(this.namespace, change.kind, change.channel, change.scope);
      // Writes of a row run in order, so whatever failed before this one is older: it must not be retried over it.
      if (this.unsaved.delete(id)) this.stats.unsaved = this.unsaved.size;
      return done;
    } catch (err) {
      this.stats.writeFailures++;
      this.logger?.warn({ err: (err as Error).message, row: id.replaceAll('\n', '/') }, 'paypulse: operator state not saved durably; will retry');
      this.remember(id, change);
      return false;
    }
  }

  private remember(id: string, change: Change): void {
    this.unsaved.delete(id);
    this.unsaved.set(id, change);
    if (this.unsaved.size > maxUnsaved) {
      this.unsaved.delete(this.unsaved.keys().next().value!);
      this.stats.unsavedDropped++;
    }
    this.stats.unsaved = this.unsaved.size;
  }
}
