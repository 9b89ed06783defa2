import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { addRecords, noRecords, oneHot, recordVerdicts, verdictOf } from '../../src/stats/recordResults.js';
import type { Outcome } from '../../src/types.js';

describe('record results: one vocabulary, one sum', () => {
  it('a one-hot result names exactly its verdict, and maps back to it', () => {
    for (const verdict of recordVerdicts) {
      const result = oneHot(verdict);
      expect(Object.values(result).reduce((a, b) => a + b, 0)).toBe(1);
      expect(result[verdict]).toBe(1);
      expect(verdictOf(result)).toBe(verdict);
    }
  });

  it('sums verdicts and earlier sums alike, duplicates under the plural name', () => {
    const sum = addRecords(noRecords(), ['accepted', 'duplicate', 'duplicate', 'stale', 'dropped']);
    expect(sum).toEqual({ accepted: 1, duplicates: 2, corrected: 0, stale: 1, buffered: 0, dropped: 1 });
    // An older server's reply without `dropped` adds nothing to it.
    addRecords(sum, [{ accepted: 3, duplicates: 1, corrected: 2, stale: 0, buffered: 4 }]);
    expect(sum).toEqual({ accepted: 4, duplicates: 3, corrected: 2, stale: 1, buffered: 4, dropped: 1 });
  });

  it('record() answers one-hot and recordMany() the sums of the same verdicts', async () => {
    const at = Date.UTC(2026, 0, 1);
    const pulse = await createPulse({ clock: new ManualClock(at) });
    try {
      const first: Outcome = { channel: 'c', requestId: 'r1', status: 'failure', at: at - 2_000 };
      expect(await pulse.record(first)).toEqual(oneHot('accepted'));
      expect(await pulse.record(first)).toEqual(oneHot('duplicate'));
      const many = await pulse.recordMany([
        { ...first, status: 'success', at: at - 1_000 },
        first,
        { ...first, requestId: 'r2' },
        { ...first, requestId: 'old', at: at - 5 * 3600_000 },
      ]);
      expect(many).toEqual({ accepted: 1, duplicates: 1, corrected: 1, stale: 1, buffered: 0, dropped: 0 });
    } finally {
      await pulse.close();
    }
  });
});
