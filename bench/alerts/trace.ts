// `npx tsx bench/alerts/trace.ts <to> <failMinutes> <seed> [fromSec] [toSec]`: one router-in-the-loop outage of
// `npm run bench:alerts` replayed, every 5 s from the drop: acq-a's decisions by reason, its breaker state, the
// newest 20 outcomes the drained-alert reads, and each notification. What a slow seed is diagnosed with.
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { ManualClock } from '../../src/clock.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { MemoryCoordinationStore } from '../../src/store/memory/coordination.js';
import { MemoryStatsStore } from '../../src/store/memory/statsStore.js';
import { createRoutedWorld } from './routedWorld.js';

const [to, failMinutes, seed, fromSec = -30, toSec] = process.argv.slice(2).map(Number);
if (to === undefined || failMinutes === undefined || seed === undefined) throw new TypeError('usage: trace.ts <to> <failMinutes> <seed> [fromSec] [toSec]');
const minute = 60_000;
const start = Date.UTC(2026, 3, 6, 0, 0, 0);
const drop = start + 6 * minute;
const recover = drop + failMinutes * minute;
const clock = new ManualClock(start);
const settings = resolveSettings({ namespace: 'trace', windows: ['1m', '5m', '15m', '1h'] });
const world = createRoutedWorld({
  clock, stats: { store: new MemoryStatsStore(settings), settings }, coordination: new MemoryCoordinationStore(clock),
  rules: resolveAlertRules({ silent: {}, channels: { 'acq-b': { thresholds: { warn: 0.88, major: 0.75, critical: 0.5 } } } }),
  candidates: ['acq-a', 'acq-b'], perMinute: 600, seed,
  successOf: (c, at) => (c === 'acq-b' ? 0.92 : at >= drop && at < recover ? to : 0.97),
});
const until = toSec === undefined ? recover + 5 * minute : drop + toSec * 1000;
const reasons = () => {
  const out = new Map<string, number>();
  for (const [channel, reason, n] of world.routing.decisionsByChannel.entries()) if (channel === 'acq-a') out.set(reason, n);
  return out;
};
let before = reasons();
let told = 0;
while (clock.now() < until) {
  await world.runUntil(clock.now() + 5_000);
  const now = clock.now();
  const after = reasons();
  const delta = [...after].map(([r, n]) => [r, n - (before.get(r) ?? 0)] as const).filter(([, n]) => n > 0).map(([r, n]) => `${r} ${n}`);
  before = after;
  const t = (now - drop) / 1000;
  const news = world.notifications.slice(told).map((n) => `${n.channel} ${n.rule} ${n.transition} ${n.level}`);
  told = world.notifications.length;
  if (t < fromSec && news.length === 0) continue;
  const last20 = await world.engine.lastN('acq-a', { n: 20 });
  const phase = now <= drop ? 'before' : now <= recover ? 'failing' : 'back';
  console.log(`${t.toString().padStart(5)} s ${phase.padEnd(7)} ${world.routing.stateOf('acq-a').padEnd(9)} newest20 ${last20.success}/${last20.success + last20.failure} | ${delta.join(', ') || '—'}${news.length ? ` | ${news.join('; ')}` : ''}`);
}
await world.close();
