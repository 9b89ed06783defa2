// Times a client sends (history ranges, mutes), read one way: epoch milliseconds or an ISO 8601 date.
import { ValidationError } from './errors.js';

// 9999-12-31T23:59:59.999Z: the last instant an ISO 8601 date with a four-digit year can name. Past it a
// Date cannot be built (1e17 ms) or the database refuses the timestamp, which surfaced as a 500.
const latestTimeMs = 253_402_300_799_999;

/** A time a client sends (`field` names it in the error): epoch ms or an ISO 8601 date, between 1970 and the year 9999. */
export function parseTime(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const fail = (reason: string) => new ValidationError([{ index: 0, field, reason }]);
  const text = String(value);
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) throw fail('must be epoch milliseconds or an ISO 8601 date');
  // Digits past 2^53 would be rounded to another instant without a word.
  if (!Number.isSafeInteger(ms)) throw fail('must be a safe integer of epoch milliseconds');
  if (ms < 0 || ms > latestTimeMs) throw fail(`must lie between 0 (1970) and ${latestTimeMs} (9999-12-31)`);
  return ms;
}
