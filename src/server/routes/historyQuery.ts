// The time range of a history read (`from`, `to`: epoch ms or ISO 8601), checked the same way for one channel
// and for many; only the longest span differs.
import { ValidationError } from '../../errors.js';
import { parseTime } from '../../parseTime.js';
import type { MinuteCounts } from '../../types.js';

/** `from`/`to` of the query; by default the hour up to `nowMs`. At most `maxSpan.ms` long. */
export function historyRange(query: { from?: string; to?: string }, nowMs: number, maxSpan: { ms: number; text: string }): { from: number; to: number } {
  const to = parseTime(query.to, 'querystring.to') ?? nowMs;
  const from = parseTime(query.from, 'querystring.from') ?? to - 3600_000;
  if (from > to) throw new ValidationError([{ index: 0, field: 'querystring.from', reason: 'must not be after to' }]);
  if (to - from > maxSpan.ms) throw new ValidationError([{ index: 0, field: 'querystring', reason: `range must be at most ${maxSpan.text}` }]);
  return { from, to };
}

/** A stored minute as the API shows it: with its success rate (null without terminal outcomes). */
export function minuteWithRate(m: MinuteCounts) {
  const terminal = m.success + m.failure;
  return { minute: m.minute, success: m.success, failure: m.failure, started: m.started, rate: terminal === 0 ? null : m.success / terminal };
}
