// Alert transitions in the history store, on PGlite and on a PostgreSQL database of the test's own.
import { describe, expect, it } from 'vitest';
import { createAlertHistory } from '../../src/history/alertTransitions.js';
import { emptyEvidence, type AlertNotification } from '../../src/alerts/notification.js';
import { migrate } from '../../src/history/migrate.js';
import { backends } from './databases.js';

const t0 = Date.UTC(2026, 4, 1, 9);
const base: AlertNotification = {
  id: 'rate/method=card@bank-x', alertname: 'PayPulseSuccessRateLow', rule: 'rate', ruleId: 'rate', channel: 'bank-x',
  dims: { method: 'card' }, transition: 'firing', level: 'major', previousLevel: null,
  rate: { window: '1m', rate: 0.5, low: 0.45, high: 0.55, total: 600, failure: 300 }, window: '5m', since: t0, at: t0,
  dashboardUrl: 'http://x/?channel=bank-x', evidence: { ...emptyEvidence, failedRequests: [{ requestId: 'r1', at: t0, code: 'x' }] }, muted: false,
};

describe.each(backends)('alert history on $name', (backend) => {
  it('keeps each transition with its evidence and lists them newest first by time range and channel', async () => {
    const { db, dispose } = await backend.open();
    try {
      await migrate(db);
      const history = createAlertHistory(db);
      await history.record(base);
      await history.record({ ...base, transition: 'escalated', level: 'critical', previousLevel: 'major', at: t0 + 60_000 });
      await history.record({ ...base, channel: 'other', id: 'rate/@other', dims: undefined, at: t0 + 90_000 });
      await history.record({ ...base, transition: 'resolved', level: 'critical', at: t0 + 600_000, muted: true });
      const all = await history.list({ from: t0, to: t0 + 600_000 });
      expect(all.map((n) => `${n.channel}:${n.transition}`)).toEqual(['bank-x:resolved', 'other:firing', 'bank-x:escalated', 'bank-x:firing']);
      expect(all.at(-1)).toEqual(base);
      expect(all[0]!.muted).toBe(true);
      const some = await history.list({ from: t0 + 30_000, to: t0 + 100_000, channel: 'bank-x' });
      expect(some.map((n) => n.transition)).toEqual(['escalated']);
      expect(await history.list({ from: t0, to: t0 + 600_000, limit: 1 })).toHaveLength(1);
      expect(await history.prune(t0 + 70_000)).toBe(2);
      expect(await history.list({ from: t0, to: t0 + 600_000 })).toHaveLength(2);
    } finally {
      await dispose();
    }
  }, 120_000);
});
