// The one vocabulary of what recording did with an outcome, and the one place results are summed.
// Inside, each outcome gets a verdict; `record()` answers it one-hot (`{ accepted: 1, duplicate: 0, … }`)
// and `recordMany()`, the service's reply and the CLI's feed answer counts (`duplicates`, plural).
import type { RecordManyResult, RecordResult } from '../types.js';

export const recordVerdicts = ['accepted', 'duplicate', 'corrected', 'stale', 'buffered', 'dropped'] as const;
export type RecordVerdict = (typeof recordVerdicts)[number];

/** The count each verdict adds to: the public count of duplicates is plural. */
export const totalField = {
  accepted: 'accepted',
  duplicate: 'duplicates',
  corrected: 'corrected',
  stale: 'stale',
  buffered: 'buffered',
  dropped: 'dropped',
} as const satisfies Record<RecordVerdict, keyof RecordManyResult>;

export function noRecords(): RecordManyResult {
  return { accepted: 0, duplicates: 0, corrected: 0, stale: 0, buffered: 0, dropped: 0 };
}

/** `record()`'s answer: 1 under the verdict, 0 elsewhere. */
export function oneHot(verdict: RecordVerdict): RecordResult {
  const result = { accepted: 0, duplicate: 0, corrected: 0, stale: 0, buffered: 0, dropped: 0 } as RecordResult;
  result[verdict] = 1;
  return result;
}

/** The verdict a one-hot result stands for. */
export function verdictOf(result: RecordResult): RecordVerdict {
  return recordVerdicts.find((v) => result[v] === 1) ?? 'accepted';
}

/**
 * Adds verdicts, or counts already summed (the service's replies to a client sending in parts), into
 * `into`. A count missing from an older server's reply adds nothing.
 */
export function addRecords(into: RecordManyResult, parts: Iterable<RecordVerdict | Partial<RecordManyResult>>): RecordManyResult {
  for (const part of parts) {
    if (typeof part === 'string') into[totalField[part]]++;
    else for (const v of recordVerdicts) into[totalField[v]] += part[totalField[v]] ?? 0;
  }
  return into;
}
