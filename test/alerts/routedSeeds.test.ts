// The router-in-the-loop bars seed by seed, on the embedded engine: the seeds `npm run bench:alerts` found
// breaking them — a drop the router drained after a dozen outcomes (found a minute late), a drained alert
// resolved by the last lucky outcomes before the drain while the channel still failed, a second page from the
// windows that still held the drained minutes once the router gave the traffic back, a resolution that waited
// for the windows after the router gave the traffic back; and from the 60-seed sweep, recoveries the router
// re-admitted only once a lucky look landed (468, 1646, 661), or whose looks one failure after the recovery
// set back to their slowest pace (630).
import { describe, expect, it } from 'vitest';
import type { AlertNotification } from '../../src/alerts/notification.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { createRoutedWorld } from '../../bench/alerts/routedWorld.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';

const minute = 60_000;
const start = Date.UTC(2026, 3, 6, 0, 0, 0);
const drop = start + 6 * minute;

async function incident(to: number, failMinutes: number, seed: number): Promise<{ notifications: AlertNotification[]; recover: number }> {
  const recover = drop + failMinutes * minute;
  const clock = new ManualClock(start);
  const settings = resolveSettings({ namespace: 'seeds', windows: ['1m', '5m', '15m', '1h'] });
  const world = createRoutedWorld({
    clock, stats: { store: new MemoryStatsStore(settings), settings }, coordination: new MemoryCoordinationStore(clock),
    rules: resolveAlertRules({ silent: {}, channels: { 'acq-b': { thresholds: { warn: 0.88, major: 0.75, critical: 0.5 } } } }),
    candidates: ['acq-a', 'acq-b'], perMinute: 600, seed,
    successOf: (c, at) => (c === 'acq-b' ? 0.92 : at >= drop && at < recover ? to : 0.97),
  });
  try {
    await world.runUntil(recover + 5 * minute);
  } finally {
    await world.close();
  }
  return { notifications: world.notifications, recover };
}

const story = (ns: AlertNotification[]) => ns.map((n) => `${n.channel} ${n.rule} ${n.transition} ${n.level} +${(n.at - drop) / 1000}s`).join('; ');

describe('router in the loop, seed by seed', () => {
  it.each([
    [0.4, 3, 189],
    [0.3, 10, 72],
    [0.3, 10, 1715],
    [0.4, 3, 468],
    [0.4, 3, 1646],
    [0.3, 10, 630],
    [0.3, 10, 661],
  ])('drop to %s for %s min, seed %s: found within 20 s, one firing, no resolution while failing, resolved within 90 s of recovery', async (to, failMinutes, seed) => {
    const { notifications, recover } = await incident(to, failMinutes, seed);
    const ofA = notifications.filter((n) => n.channel === 'acq-a' && n.rule === 'rate');
    const told = story(notifications);
    expect(notifications.filter((n) => n.channel !== 'acq-a' || n.rule !== 'rate'), told).toEqual([]);
    expect(ofA[0]?.transition, told).toBe('firing');
    expect(ofA[0]!.at - drop, told).toBeLessThanOrEqual(20_000);
    expect(ofA.filter((n) => n.transition === 'firing'), told).toHaveLength(1);
    const resolved = ofA.filter((n) => n.transition === 'resolved');
    expect(resolved, told).toHaveLength(1);
    expect(resolved[0]!.at, told).toBeGreaterThanOrEqual(recover);
    expect(resolved[0]!.at - recover, told).toBeLessThanOrEqual(90_000);
  });
});
