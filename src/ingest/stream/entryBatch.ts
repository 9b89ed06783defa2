// One batch of stream entries through the recorder the HTTP route uses (pulse.recordMany), deciding for
// each entry: acknowledge it, dead-letter it, or leave it pending. The ack rule (docs/decisions/110):
// an entry is acknowledged only once its outcome is written to the store, or spilled to the durable journal;
// an outcome buffered in memory could die with the process, so its entry stays pending and is delivered
// again after the claim idle time (dedup by requestId makes that second write harmless).
import { LimitError, ValidationError, type FieldIssue } from '../../errors.js';
import { outcomeIssues } from '../../stats/validate.js';
import type { Outcome, RecordManyResult } from '../../types.js';
import { outcomeOfEntry, type StreamEntry } from './entryFields.js';

/** Same as POST /v1/outcomes: over the wire an unknown field is most often a misspelt optional one. */
const streamRules = { rejectUnknownFields: true } as const;

export type DeadLetterClass = 'validation' | 'limit';

export interface DeadLetter {
  entry: StreamEntry;
  reasonClass: DeadLetterClass;
  issues: FieldIssue[];
}

export interface BatchVerdict {
  /** Recorded (or durably spilled): acknowledge. */
  recorded: StreamEntry[];
  /** Cannot be accepted, ever: dead-letter with the reason, then acknowledge. */
  dead: DeadLetter[];
  /** Neither: the store failed or only a memory buffer holds them; leave pending for a later delivery. */
  unsettled: StreamEntry[];
  result?: RecordManyResult;
  /** Why `unsettled` is not empty. */
  error?: unknown;
}

export interface BatchRecorder {
  recordMany(outcomes: Outcome[]): Promise<RecordManyResult>;
  health(): { bufferedOutcomes: number };
}

/**
 * A rejection of the engine's own (a dimension not configured, a channel past maxChannels) names the items
 * by index, like the HTTP route's; those go to the dead letters and the rest is recorded again. Each round
 * removes at least one item, and a batch has a bounded size, so this ends.
 */
export async function ingestEntries(entries: StreamEntry[], recorder: BatchRecorder, spillIsDurable: boolean): Promise<BatchVerdict> {
  const dead: DeadLetter[] = [];
  let valid: { entry: StreamEntry; outcome: Outcome }[] = [];
  for (const entry of entries) {
    const outcome = outcomeOfEntry(entry.fields);
    const issues = outcomeIssues(outcome, 0, streamRules);
    if (issues.length > 0) dead.push({ entry, reasonClass: 'validation', issues });
    else valid.push({ entry, outcome: outcome as unknown as Outcome });
  }
  while (valid.length > 0) {
    const bufferedBefore = recorder.health().bufferedOutcomes;
    let result: RecordManyResult;
    try {
      result = await recorder.recordMany(valid.map((v) => v.outcome));
    } catch (err) {
      const rejected = rejectedItems(err, valid.length);
      if (!rejected) return { recorded: [], dead, unsettled: valid.map((v) => v.entry), error: err };
      for (const [index, issues] of rejected) dead.push({ entry: valid[index]!.entry, reasonClass: err instanceof LimitError ? 'limit' : 'validation', issues });
      valid = valid.filter((_, index) => !rejected.has(index));
      continue;
    }
    // The journal may refuse outcomes and leave them in memory; then the memory buffer grows.
    const inMemory = result.buffered > 0 && (!spillIsDurable || recorder.health().bufferedOutcomes > bufferedBefore);
    if (result.dropped > 0 || inMemory) return { recorded: [], dead, unsettled: valid.map((v) => v.entry), result };
    return { recorded: valid.map((v) => v.entry), dead, unsettled: [], result };
  }
  return { recorded: [], dead, unsettled: [] };
}

/** The batch's items the engine refused, by index with their issues; undefined for any other failure. */
function rejectedItems(err: unknown, size: number): Map<number, FieldIssue[]> | undefined {
  if (!(err instanceof ValidationError) && !(err instanceof LimitError)) return undefined;
  const byIndex = new Map<number, FieldIssue[]>();
  for (const issue of err.issues) {
    if (!Number.isInteger(issue.index) || issue.index < 0 || issue.index >= size) return undefined;
    byIndex.set(issue.index, [...(byIndex.get(issue.index) ?? []), { ...issue, index: 0 }]);
  }
  return byIndex.size > 0 ? byIndex : undefined;
}
