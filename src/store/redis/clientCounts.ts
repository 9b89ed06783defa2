// Strategy `buckets` counts on the client: every terminal outcome of a batch as if it were new, in
// the script's own shape (countTerminal in count-buckets-writes.lua), so the script's common case is one
// HSETNX per outcome; it takes back the count of each outcome its ledger finds to be a duplicate.
// The same rules as the script's, from the same `now`: nothing before the retention counts, and
// nothing before the dedup horizon gets a last-N record (no outcome that old reaches the store, but
// the rules stay one).
import { StatusCode, type EngineSettings, type StoredOutcome } from '../ports/stats.js';
import { lastNRecord } from './layouts.js';

export interface SecondCounts {
  group: number;
  sec: number;
  successes: number;
  failures: number;
  /** 2 bytes an outcome (layouts.ts, lastNRecord). */
  records: number[];
}

/** `groups[i]`: the series group of `outcomes[i]`. Counts per series group and second. */
export function countAsNew(outcomes: StoredOutcome[], groups: number[], now: number, settings: EngineSettings): Iterable<SecondCounts> {
  const keepFrom = now - settings.retentionMs;
  const forgetBefore = now - settings.horizonMs;
  const counts = new Map<string, SecondCounts>();
  let last: SecondCounts | undefined;
  outcomes.forEach((o, i) => {
    if (o.status === StatusCode.Pending || o.at < keepFrom) return;
    const sec = Math.floor(o.at / 1000);
    // A batch's outcomes mostly share their second: the last entry is checked before the map.
    if (last?.sec !== sec || last.group !== groups[i]) {
      const key = `${groups[i]}:${sec}`;
      last = counts.get(key);
      if (!last) {
        last = { group: groups[i], sec, successes: 0, failures: 0, records: [] };
        counts.set(key, last);
      }
    }
    const success = o.status === StatusCode.Success;
    if (success) last.successes++;
    else last.failures++;
    if (o.at < forgetBefore) return;
    const record = lastNRecord.encode(o.at - sec * 1000, success, false);
    last.records.push(record >> 8, record & 0xff);
  });
  return counts.values();
}
