// The time range of a history read (`from`, `to`: epoch ms or ISO 8601), checked the same way for one channel
// and for many; only the longest span differs.
import { ValidationError } from '../../errors.js';
import type { MinuteCounts } from '../../types.js';

// 9999-12-31T23:59:59.999Z: the last instant an ISO 8601 date with a four-digit year can name. Past it a
// Date cannot be built (1e17 ms) or the database refuses the timestamp, which surfaced as a 500.
const latestTimeMs = 253_402_300_799_999;

/** History bounds: epoch ms or an ISO 8601 date, between 1970 and the year 9999. */
function parseTime(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const fail = (reason: string) => new ValidationError([{ index: 0, field: `querystring.${field}`, reason }]);
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) throw fail('must be epoch milliseconds or an ISO 8601 date');
  // Digits past 2^53 would be rounded to another instant without a word.
  if (!Number.isSafeInteger(ms)) throw fail('must be a safe integer of epoch milliseconds');
  if (ms < 0 || ms > latestTimeMs) throw fail(`must lie between 0 (1970) and ${latestTimeMs} (9999-12-31)`);
  return ms;
}

/** `from`/`to` of the query; by default the hour up to `nowMs`. At most `maxSpan.ms` long. */
export function historyRange(query: { from?: string; to?: string }, nowMs: number, maxSpan: { ms: number; text: string }): { from: number; to: number } {
  const to = parseTime(query.to, 'to') ?? nowMs;
  const from = parseTime(query.from, 'from') ?? to - 3600_000;
  if (from > to) throw new ValidationError([{ index: 0, field: 'querystring.from', reason: 'must not be after to' }]);
  if (to - from > maxSpan.ms) throw new ValidationError([{ index: 0, field: 'querystring', reason: `range must be at most ${maxSpan.text}` }]);
  return { from, to };
}

/** A stored minute as the API shows it: with its success rate (null without terminal outcomes). */
export function minuteWithRate(m: MinuteCounts) {
  const terminal = m.success + m.failure;
  return { minute: m.minute, success: m.success, failure: m.failure, started: m.started, rate: terminal === 0 ? null : m.success / terminal };
}
