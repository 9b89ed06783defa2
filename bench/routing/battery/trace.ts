// One scenario, one seed, PayPulse only, traced second by second around its events: the event channel's true
// rate, its share of the payments it was a candidate for, its breaker state, its score and the decisions'
// reasons. For finding where a regain or a failed share comes from; never part of `npm test`.
// `npx tsx bench/routing/battery/trace.ts <scenario index> <seed> [seconds before] [seconds after]`
import { seededRandom } from '../../../src/sim/random.js';
import type { Payment, Policy, SimOutcome } from '../baselines.js';
import { paypulsePolicy } from '../paypulsePolicy.js';
import { runScenario } from './measure.js';
import { scenarios } from './scenarios.js';
import { ScenarioWorld } from './world.js';

const [index = '1', seed = '1', before = '10', after = '60'] = process.argv.slice(2);
const world = new ScenarioWorld(scenarios[Number(index)]![1](Number(seed)));
const event = world.def.events?.[0];
const watched = event?.channel ?? world.def.channels[0]!.name;
const inner = paypulsePolicy('PayPulse', world.startMs, seededRandom(world.seed * 31 + 5), JSON.parse(process.env.BENCH_ROUTING_OPTIONS ?? '{}'), world.def.channels);
const fromSec = Math.floor((event?.fromMs ?? world.startMs) / 1000) - Number(before);
const toSec = Math.floor(((event?.toMs ?? world.startMs) + (event?.recoverMs ?? 0)) / 1000) + Number(after);

interface Second { candidate: number; sent: number; reasons: Map<string, number>; score?: number; best?: number }
const seconds = new Map<number, Second>();
const policy: Policy = {
  name: 'PayPulse',
  tick: (t) => inner.tick!(t),
  observe: (o: SimOutcome[]) => inner.observe(o),
  async choose(p: Payment) {
    const channel = await inner.choose(p);
    const sec = Math.floor(p.at / 1000);
    if (sec < fromSec || sec > toSec || !p.candidates.includes(watched)) return channel;
    const s: Second = seconds.get(sec) ?? { candidate: 0, sent: 0, reasons: new Map() };
    seconds.set(sec, s);
    s.candidate++;
    if (channel === watched) s.sent++;
    const d = inner.lastDecision!;
    s.reasons.set(d.reason, (s.reasons.get(d.reason) ?? 0) + 1);
    s.score = d.ranked.find((r) => r.channel === watched)?.rate;
    s.best = Math.max(...d.ranked.filter((r) => r.channel !== watched).map((r) => r.rate));
    return channel;
  },
};
await runScenario(world, policy);
for (const [sec, s] of [...seconds].sort((a, b) => a[0] - b[0])) {
  const rel = sec - Math.floor((event?.fromMs ?? world.startMs) / 1000);
  const rate = world.trueRate(watched, 'card', sec * 1000);
  const state = inner.routing.breakers.view(watched, '').state;
  process.stdout.write(`${String(rel).padStart(5)} s  true ${(rate * 100).toFixed(0).padStart(3)} %  sent ${String(s.sent).padStart(3)}/${String(s.candidate).padEnd(3)} score ${s.score?.toFixed(3)} vs ${s.best?.toFixed(3)}  ${[...s.reasons].map(([r, n]) => `${r}:${n}`).join(' ')}\n`);
}
await inner.close();
