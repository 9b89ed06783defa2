// The battery's real-time closed loop: a gateway calling the public API as a new user would — `pulse.route()` for
// each of 120 payments a second, the outcome recorded back with `pulse.recordMany()` 300–900 ms later, on the
// wall clock — beside decision-engine's scheme, static weights and the oracle fed the same payments and luck.
// Three acquirers: acq-a best until it falls to 0 % for 45 s and recovers at once, acq-b and acq-c near-equal
// and drifting ±2 points. Prints success, uplift captured, acq-a's share from 30 s after its fall, and the
// seconds until it regains half the traffic the oracle gives it. Never part of `npm test`.
// `npx tsx bench/routing/realtime/run.ts` (BENCH_REALTIME_SEED=1); about two minutes of wall time.
import { createPulse } from '../../../src/pulse.js';
import { poisson, seededRandom } from '../../../src/sim/random.js';
import type { Outcome } from '../../../src/types.js';
import { decisionEngine, oracle, staticWeights, type Payment, type Policy, type SimOutcome } from '../baselines.js';
import { formatTable } from '../table.js';

const seed = Number(process.env.BENCH_REALTIME_SEED ?? 1);
const perSecond = 120;
const tickMs = 100;
const durationMs = 130_000;
const measureFromMs = 20_000;
const downFromMs = 40_000;
const downToMs = 85_000;
const candidates = ['acq-a', 'acq-b', 'acq-c'];
const weights = [{ name: 'acq-a', weight: 40 }, { name: 'acq-b', weight: 30 }, { name: 'acq-c', weight: 30 }];

function rateOf(start: number) {
  return (channel: string, _method: string, at: number): number => {
    const t = at - start;
    if (channel === 'acq-a') return t >= downFromMs && t < downToMs ? 0 : 0.96;
    const phase = channel === 'acq-b' ? 0 : Math.PI;
    return 0.935 + 0.02 * Math.sin((2 * Math.PI * t) / 90_000 + phase);
  };
}

interface Tally { payments: number; successes: number; downCandidate: number; downSent: number; bestSent: number[]; bestAll: number[]; phase: number[][] }

async function main(): Promise<void> {
  const pulse = await createPulse({ routing: { channels: Object.fromEntries(weights.map((w) => [w.name, { weight: w.weight }])) } });
  const start = Date.now();
  const trueRate = rateOf(start);
  const traffic = seededRandom(seed * 7_001);
  const policies: Array<{ policy: Policy; pending: SimOutcome[]; tally: Tally }> = [
    staticWeights(seededRandom(seed + 2), weights),
    decisionEngine(seededRandom(seed + 4)),
    oracle({ trueRate }, seededRandom(seed + 9)),
  ].map((policy) => ({ policy, pending: [], tally: { payments: 0, successes: 0, downCandidate: 0, downSent: 0, bestSent: [], bestAll: [], phase: [[0, 0], [0, 0], [0, 0]] } }));
  const pp: Tally = { payments: 0, successes: 0, downCandidate: 0, downSent: 0, bestSent: [], bestAll: [], phase: [[0, 0], [0, 0], [0, 0]] };
  const ppPending: Array<Outcome & { dueAt: number }> = [];
  let seq = 0;
  const note = (tally: Tally, channel: string, success: boolean, at: number) => {
    const t = at - start;
    if (t < measureFromMs) return;
    tally.payments++;
    if (success) tally.successes++;
    const phase = tally.phase[t < downFromMs ? 0 : t < downToMs ? 1 : 2]!;
    phase[0]!++;
    if (success) phase[1]!++;
    if (t >= downFromMs + 30_000 && t < downToMs) {
      tally.downCandidate++;
      if (channel === 'acq-a') tally.downSent++;
    }
    if (t >= downToMs) {
      const k = Math.floor((t - downToMs) / 1000);
      tally.bestAll[k] = (tally.bestAll[k] ?? 0) + 1;
      if (channel === 'acq-a') tally.bestSent[k] = (tally.bestSent[k] ?? 0) + 1;
    }
  };
  const routeMicros: number[] = [];
  for (let next = start; next - start < durationMs; next += tickMs) {
    const now = Date.now();
    if (next > now) await new Promise((r) => setTimeout(r, next - now));
    const at = Date.now();
    const due = ppPending.filter((o) => o.dueAt <= at);
    if (due.length) {
      for (const o of due) ppPending.splice(ppPending.indexOf(o), 1);
      await pulse.recordMany(due.map(({ dueAt: _, ...o }) => o));
    }
    for (const p of policies) {
      const ready = p.pending.filter((o) => o.at <= at);
      if (ready.length) {
        p.pending = p.pending.filter((o) => o.at > at);
        await p.policy.observe(ready);
      }
    }
    const count = poisson(traffic, (perSecond * tickMs) / 1000);
    for (let i = 0; i < count; i++) {
      const luck = traffic();
      const latencyMs = 300 + Math.floor(traffic() * 600);
      const payment: Payment = { id: `rt${++seq}`, at, method: 'card', amount: 50, candidates };
      const t0 = performance.now();
      const decision = await pulse.route({ candidates, dims: { method: 'card' }, requestId: payment.id });
      routeMicros.push((performance.now() - t0) * 1000);
      const success = luck < trueRate(decision.channel, 'card', at);
      note(pp, decision.channel, success, at);
      ppPending.push({ channel: decision.channel, requestId: payment.id, status: success ? 'success' : 'failure', at: at + latencyMs, dims: { method: 'card' }, dueAt: at + latencyMs, ...(success ? {} : { code: 'do_not_honor' }) });
      for (const p of policies) {
        const channel = await p.policy.choose(payment);
        const ok = luck < trueRate(channel, 'card', at);
        note(p.tally, channel, ok, at);
        p.pending.push({ payment, channel, success: ok, at: at + latencyMs });
      }
    }
  }
  await pulse.close();
  const regain = (t: Tally): string => {
    for (let k = 0; k < t.bestAll.length; k++) {
      let all = 0;
      let sent = 0;
      for (let j = k; j < k + 5; j++) {
        all += t.bestAll[j] ?? 0;
        sent += t.bestSent[j] ?? 0;
      }
      if (all > 0 && sent >= 0.5 * all) return String(k);
    }
    return 'never';
  };
  const rate = (t: Tally) => t.successes / t.payments;
  const base = rate(policies[0]!.tally);
  const best = rate(policies[2]!.tally);
  const rows = [['PayPulse (pulse.route)', pp] as const, ...policies.map((p) => [p.policy.name, p.tally] as const)].map(([name, t]) => [
    name,
    (rate(t) * 100).toFixed(2),
    (((rate(t) - base) / (best - base)) * 100).toFixed(0),
    `${((t.downSent / Math.max(1, t.downCandidate)) * 100).toFixed(2)} %`,
    regain(t),
    t.phase.map(([n, s]) => ((s! / Math.max(1, n!)) * 100).toFixed(2)).join(' / '),
  ]);
  console.log(formatTable(['policy', 'success %', 'uplift captured %', 'acq-a share 30 s after its fall', 'regain s', 'success % before / during / after the fall'], rows));
  routeMicros.sort((a, b) => a - b);
  console.log(`\npulse.route() in this loop: ${routeMicros.length} calls, p50 ${routeMicros[Math.floor(routeMicros.length / 2)]!.toFixed(1)} µs, p99 ${routeMicros[Math.floor(routeMicros.length * 0.99)]!.toFixed(1)} µs`);
}

await main();
