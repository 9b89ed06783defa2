// The rows of `npm run bench:alerts` with the router in the loop: every payment routed between two acquirers by
// PayPulse's router (src/sim/routedWorld.ts), the alerts reading the router. Only the chosen rule runs here.
import type { AlertNotification } from '../../src/alerts/notification.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { createRoutedWorld } from './routedWorld.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';

export interface RoutedRow {
  scenario: string;
  /** Seconds per seed from the drop (or the recovery) to the notification; null: none. */
  seconds?: Array<number | null>;
  /** The world seed of each entry in `seconds`, so a slow one can be replayed. */
  seeds?: number[];
  falseNotifications?: number;
  /** Seeds of a healthy row with a false notification. */
  falseSeeds?: number[];
  /** Notifications that broke a bar: `resolved` while still failing, `silent` for a drained channel, any about acq-b. */
  wrong?: number;
  wrongBy?: { resolvedWhileFailing: number; silent: number; aboutHealthy: number };
  /** World seeds with a wrong notification. */
  wrongSeeds?: number[];
  /** Seeds whose first notification said what routing did, and of those, that it had drained the channel. */
  namedRouting?: number;
  namedDrain?: number;
  evaluations: number;
}

const minute = 60_000;

async function run(seed: number, startMs: number, untilMs: number, successOf: (channel: string, at: number) => number, perMinute = 600): Promise<{ notifications: AlertNotification[]; evaluations: number }> {
  const clock = new ManualClock(startMs);
  const settings = resolveSettings({ namespace: 'bench', windows: ['1m', '5m', '15m', '1h'] });
  // acq-b's normal is 92 %: its own levels, so a notification about it is a false one.
  const rules = resolveAlertRules({ silent: {}, channels: { 'acq-b': { thresholds: { warn: 0.88, major: 0.75, critical: 0.5 } } } });
  const world = createRoutedWorld({
    clock, stats: { store: new MemoryStatsStore(settings), settings }, coordination: new MemoryCoordinationStore(clock), rules,
    candidates: ['acq-a', 'acq-b'], perMinute, successOf, seed,
  });
  await world.runUntil(untilMs);
  const evaluations = world.evaluator.status().evaluations;
  await world.close();
  return { notifications: world.notifications, evaluations };
}

/** The world seed of run `index` (1-based) of an outage lasting `failMinutes`. */
export const routedSeed = (index: number, failMinutes: number): number => index * 31 + failMinutes;

/** acq-a at 97 % leads acq-b at 92 %; at 6 min acq-a drops to `to` and, after `failMinutes`, recovers. */
export async function routedDrop(to: number, failMinutes: number, seeds: number, startMs: number): Promise<RoutedRow[]> {
  const drop = startMs + 6 * minute;
  const recover = drop + failMinutes * minute;
  const detect: Array<number | null> = [];
  const resolve: Array<number | null> = [];
  const worldSeeds: number[] = [];
  const wrongBy = { resolvedWhileFailing: 0, silent: 0, aboutHealthy: 0 };
  const wrongSeeds: number[] = [];
  let named = 0;
  let drained = 0;
  let evaluations = 0;
  for (let index = 1; index <= seeds; index++) {
    const seed = routedSeed(index, failMinutes);
    worldSeeds.push(seed);
    const r = await run(seed, startMs, recover + 5 * minute, (c, at) => (c === 'acq-b' ? 0.92 : at >= drop && at < recover ? to : 0.97));
    evaluations += r.evaluations;
    const ofA = r.notifications.filter((n) => n.channel === 'acq-a' && n.rule === 'rate');
    const first = ofA.find((n) => n.at >= drop);
    detect.push(first ? (first.at - drop) / 1000 : null);
    if (first?.routing) named++;
    if (first?.routing?.drained) drained++;
    const wrongHere = {
      resolvedWhileFailing: ofA.filter((n) => n.transition === 'resolved' && n.at < recover).length,
      silent: r.notifications.filter((n) => n.rule === 'silent').length,
      aboutHealthy: r.notifications.filter((n) => n.channel === 'acq-b').length,
    };
    if (wrongHere.resolvedWhileFailing + wrongHere.silent + wrongHere.aboutHealthy > 0) wrongSeeds.push(seed);
    wrongBy.resolvedWhileFailing += wrongHere.resolvedWhileFailing;
    wrongBy.silent += wrongHere.silent;
    wrongBy.aboutHealthy += wrongHere.aboutHealthy;
    const resolved = ofA.find((n) => n.transition === 'resolved' && n.at >= recover);
    resolve.push(resolved ? (resolved.at - recover) / 1000 : null);
  }
  const label = `router in the loop: 97 % → ${to * 100} % for ${failMinutes} min at 600/min`;
  const wrong = wrongBy.resolvedWhileFailing + wrongBy.silent + wrongBy.aboutHealthy;
  return [
    { scenario: `${label}, first notification`, seconds: detect, seeds: worldSeeds, namedRouting: named, namedDrain: drained, evaluations },
    { scenario: `${label}, resolved after recovery`, seconds: resolve, seeds: worldSeeds, wrong, wrongBy, wrongSeeds, evaluations },
  ];
}

/**
 * Both acquirers healthy and alike, so the router's leader changes often: every notification is false. On
 * `seeds` seeds from 5 (the one seed this row had); `falseSeeds` names those with any.
 */
export async function routedHealthy(hours: number, perMinute: number, startMs: number, seeds = 1): Promise<RoutedRow> {
  let falseNotifications = 0;
  let evaluations = 0;
  const falseSeeds: number[] = [];
  for (let seed = 5; seed < 5 + seeds; seed++) {
    const r = await run(seed, startMs, startMs + hours * 3_600_000, () => 0.97, perMinute);
    falseNotifications += r.notifications.length;
    evaluations += r.evaluations;
    if (r.notifications.length > 0) falseSeeds.push(seed);
  }
  const label = `router in the loop: ${hours} h healthy, two acquirers at 97 %, ${perMinute}/min${seeds > 1 ? `, ${seeds} seeds` : ''}`;
  return { scenario: label, falseNotifications, falseSeeds, evaluations };
}
