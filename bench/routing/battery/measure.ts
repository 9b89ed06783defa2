// One scenario for one policy, in virtual time: every second the policy ticks, the outcomes completed by then
// are fed back, and that second's payments are routed. Arrivals, methods, latencies and each payment's luck
// come from the scenario's seed alone, so every policy meets the same payments and the same draws.
// Besides success it watches each event: the failed channel's share from 30 s after its true rate fell to the
// breaker's threshold (50 %), and how long a channel that recovers to best takes to regain half the traffic
// the oracle gives it.
import { poisson, seededRandom } from '../../../src/sim/random.js';
import type { Payment, Policy, SimOutcome } from '../baselines.js';
import type { Method } from '../world.js';
import type { RateEvent, ScenarioWorld } from './world.js';

export interface ScenarioResult {
  scenario: string;
  seed: number;
  policy: string;
  payments: number;
  successRate: number;
  /** Payments to a failed channel over the payments it was a candidate for, from 30 s after it failed; null without a failure. */
  failedShare: number | null;
  /** Worst over the recoveries: seconds until the channel held half its oracle traffic; null without one, Infinity when never. */
  regainSec: number | null;
  wallMs: number;
}

const failedAtOrBelow = 0.5;
const graceMs = 30_000;
/** Seconds of traffic the regain share is taken over. */
const regainWindowSec = 5;

interface FailureWatch {
  event: RateEvent;
  sinceMs?: number;
  candidate: number;
  sent: number;
}

interface RecoveryWatch {
  event: RateEvent;
  /** Second the channel became the oracle's best again after the event. */
  bestAgainSec?: number;
  /** Per second since bestAgainSec: payments it was best for, and those sent to it. */
  best: number[];
  sent: number[];
}

function applies(e: RateEvent, p: Payment): boolean {
  return p.candidates.includes(e.channel) && (!e.method || e.method === p.method);
}

/** While the event holds the channel's rate (its recovery included); a flapping channel's events take turns. */
function during(e: RateEvent, p: Payment): boolean {
  return p.at >= e.fromMs && p.at < e.toMs + (e.recoverMs ?? 0);
}

function watchFailure(w: FailureWatch, world: ScenarioWorld, p: Payment, channel: string): void {
  if (!applies(w.event, p) || !during(w.event, p) || world.trueRate(w.event.channel, p.method, p.at) > failedAtOrBelow) return;
  w.sinceMs ??= p.at;
  if (p.at - w.sinceMs < graceMs) return;
  w.candidate++;
  if (channel === w.event.channel) w.sent++;
}

function watchRecovery(w: RecoveryWatch, world: ScenarioWorld, p: Payment, channel: string): void {
  if (!applies(w.event, p) || p.at < w.event.toMs) return;
  const isBest = world.bestOf(p.method, p.at) === w.event.channel;
  if (w.bestAgainSec === undefined) {
    if (!isBest) return;
    w.bestAgainSec = Math.floor(p.at / 1000);
  }
  const k = Math.floor(p.at / 1000) - w.bestAgainSec;
  if (!isBest) return;
  w.best[k] = (w.best[k] ?? 0) + 1;
  if (channel === w.event.channel) w.sent[k] = (w.sent[k] ?? 0) + 1;
}

/** The first second from which the next few seconds gave the channel half the payments the oracle would. */
function regainOf(w: RecoveryWatch): number | undefined {
  if (w.bestAgainSec === undefined) return undefined;
  for (let k = 0; k < w.best.length; k++) {
    let best = 0;
    let sent = 0;
    for (let j = k; j < k + regainWindowSec; j++) {
      best += w.best[j] ?? 0;
      sent += w.sent[j] ?? 0;
    }
    if (best > 0 && sent >= 0.5 * best) return k;
  }
  return Infinity;
}

interface Arrival {
  payment: Payment;
  latencyMs: number;
  luck: number;
}

function arrivalsAt(world: ScenarioWorld, traffic: () => number, t: number, nextId: () => string): Arrival[] {
  const count = poisson(traffic, world.volumeAt(t));
  const out: Arrival[] = [];
  for (let i = 0; i < count; i++) {
    let u = traffic();
    let method: Method = world.methods[0]!;
    for (const m of world.methods) if ((u -= world.def.methodShare[m]!) < 0) { method = m; break; }
    const latencyMs = 300 + Math.floor(traffic() * 600);
    const luck = traffic();
    const at = t + Math.floor((i * 1000) / Math.max(count, 1));
    out.push({ payment: { id: nextId(), at, method, amount: 50, candidates: world.candidatesOf(method) }, latencyMs, luck });
  }
  return out;
}

export async function runScenario(world: ScenarioWorld, policy: Policy): Promise<ScenarioResult> {
  const started = performance.now();
  const traffic = seededRandom(world.seed * 65_537 + world.def.name.length);
  const completing = new Map<number, SimOutcome[]>();
  const failures: FailureWatch[] = (world.def.events ?? []).map((event) => ({ event, candidate: 0, sent: 0 }));
  const recoveries: RecoveryWatch[] = (world.def.events ?? []).map((event) => ({ event, best: [], sent: [] }));
  let payments = 0;
  let successes = 0;
  let seq = 0;
  const nextId = () => `p${(++seq).toString(36)}`;
  for (let t = world.startMs; t < world.startMs + world.durationMs; t += 1000) {
    const sec = t / 1000;
    await policy.tick?.(t);
    const due = completing.get(sec - 1);
    if (due) {
      completing.delete(sec - 1);
      await policy.observe(due);
    }
    for (const { payment, latencyMs, luck } of arrivalsAt(world, traffic, t, nextId)) {
      const channel = await policy.choose(payment);
      const success = luck < world.trueRate(channel, payment.method, payment.at);
      const doneSec = Math.floor((payment.at + latencyMs) / 1000);
      let list = completing.get(doneSec);
      if (!list) completing.set(doneSec, (list = []));
      list.push({ payment, channel, success, at: payment.at + latencyMs });
      if (t < world.def.measureFromMs) continue;
      payments++;
      if (success) successes++;
      for (const w of failures) watchFailure(w, world, payment, channel);
      for (const w of recoveries) watchRecovery(w, world, payment, channel);
    }
  }
  const watched = failures.filter((w) => w.candidate > 0);
  const regains = recoveries.map(regainOf).filter((r): r is number => r !== undefined);
  return {
    scenario: world.def.name,
    seed: world.seed,
    policy: policy.name,
    payments,
    successRate: successes / payments,
    failedShare: watched.length ? watched.reduce((s, w) => s + w.sent, 0) / watched.reduce((s, w) => s + w.candidate, 0) : null,
    regainSec: regains.length ? Math.max(...regains) : null,
    wallMs: performance.now() - started,
  };
}
