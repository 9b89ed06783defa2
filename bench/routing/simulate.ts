// One simulated day for one policy: every second, the policy ticks (PayPulse refreshes its health snapshot),
// outcomes completed by then are fed back, and that second's payments are routed. The traffic — arrivals,
// methods, amounts, latencies and each payment's luck — comes from the seed alone, so every policy faces the
// same payments and the same draws (common random numbers).
import { poisson, seededRandom } from '../../src/sim/random.js';
import type { Payment, Policy, SimOutcome } from './baselines.js';
import { candidatesOf, methods, methodShare, simChannels, type Method, type World } from './world.js';

export interface RunResult {
  policy: string;
  seed: number;
  payments: number;
  successes: number;
  successRate: number;
  /** Fees paid on successful payments, per successful payment. */
  costPerSuccess: number;
  /** Payments sent to a channel while its true success rate was 0. */
  sentWhileDown: number;
  /**
   * Worst over the day's outages: the channel's share of the payments it was a candidate for, from 30 s after
   * its observed failure rate over 30 s crossed 50 % until the outage ended.
   */
  downShareAfter30s: number;
  wallMs: number;
}

const fees = new Map(simChannels.map((c) => [c.name, c]));
const breakerWindowSec = 30;

function pickMethod(u: number): Method {
  let r = u;
  for (const m of methods) if ((r -= methodShare[m]) < 0) return m;
  return 'card';
}

interface OutageWatch {
  channel: string;
  fromSec: number;
  toSec: number;
  crossedAtSec?: number;
  /** Per second since the outage began: outcomes on the channel by completion. */
  success: number[];
  failure: number[];
  sentAfter: number;
  candidateAfter: number;
}

/** Called for each payment the down-share counts against a down channel (the bar's numerator). */
export type SentAfterHook = (payment: Payment, channel: string) => void;

function watchPayment(w: OutageWatch, sec: number, payment: Payment, channel: string, success: boolean, doneSec: number, hook?: SentAfterHook): void {
  if (sec < w.fromSec || sec >= w.toSec || !payment.candidates.includes(w.channel)) return;
  if (w.crossedAtSec !== undefined && sec >= w.crossedAtSec + breakerWindowSec) {
    w.candidateAfter++;
    if (channel === w.channel) {
      w.sentAfter++;
      hook?.(payment, channel);
    }
  }
  if (channel === w.channel) {
    const counts = success ? w.success : w.failure;
    counts[doneSec - w.fromSec] = (counts[doneSec - w.fromSec] ?? 0) + 1;
  }
}

function watchCrossing(w: OutageWatch, sec: number): void {
  if (w.crossedAtSec !== undefined || sec < w.fromSec || sec >= w.toSec) return;
  let s = 0;
  let f = 0;
  for (let k = Math.max(0, sec - w.fromSec - breakerWindowSec + 1); k <= sec - w.fromSec; k++) {
    s += w.success[k] ?? 0;
    f += w.failure[k] ?? 0;
  }
  // Crossing the threshold, or a full window with nothing sent: a router that never tried counts from here.
  if ((s + f > 0 && f / (s + f) >= 0.5) || sec - w.fromSec >= breakerWindowSec) w.crossedAtSec = sec;
}

/** One payment of the traffic, with what decides its fate besides the channel: its latency and its luck. */
export interface Arrival {
  payment: Payment;
  latencyMs: number;
  luck: number;
}

/** The payments of the second starting at `t`, drawn from the seed's traffic stream alone. */
export function arrivalsAt(world: World, traffic: () => number, t: number, nextId: () => string): Arrival[] {
  const count = poisson(traffic, world.volumeAt(t));
  const out: Arrival[] = [];
  for (let i = 0; i < count; i++) {
    const method = pickMethod(traffic());
    const amount = Math.round(Math.exp(3.2 + 0.9 * (traffic() + traffic() + traffic() - 1.5)) * 100) / 100;
    const latencyMs = 300 + Math.floor(traffic() * 600);
    const luck = traffic();
    const at = t + Math.floor((i * 1000) / Math.max(count, 1));
    out.push({ payment: { id: nextId(), at, method, amount, candidates: candidatesOf[method] }, latencyMs, luck });
  }
  return out;
}

/**
 * `span` replays part of the day: before it the traffic is drawn (so every payment is the one the whole day
 * has) but not routed. One outage with the hour before it reproduces that outage in seconds.
 */
export async function simulate(world: World, policy: Policy, span?: { fromMs: number; toMs: number; onSentAfter?: SentAfterHook }): Promise<RunResult> {
  const started = performance.now();
  const traffic = seededRandom(world.seed);
  const completing = new Map<number, SimOutcome[]>();
  const watches: OutageWatch[] = world.incidents
    .filter((i) => i.kind !== 'degraded')
    .map((i) => ({
      channel: i.channel,
      fromSec: Math.floor(i.fromMs / 1000),
      // The slow recovery is down for its first 10 minutes only.
      toSec: Math.floor((i.kind === 'down' ? i.toMs : i.fromMs + 10 * 60_000) / 1000),
      success: [],
      failure: [],
      sentAfter: 0,
      candidateAfter: 0,
    }));
  let payments = 0;
  let successes = 0;
  let fees$ = 0;
  let sentWhileDown = 0;
  let seq = 0;
  const endMs = span?.toMs ?? world.startMs + world.durationMs;
  const nextId = () => `p${(++seq).toString(36)}`;
  for (let t = world.startMs; t < endMs; t += 1000) {
    const sec = t / 1000;
    const arrivals = arrivalsAt(world, traffic, t, nextId);
    if (span && t < span.fromMs) continue;
    await policy.tick?.(t);
    const due = completing.get(sec - 1);
    if (due) {
      completing.delete(sec - 1);
      await policy.observe(due);
    }
    for (const { payment, latencyMs, luck } of arrivals) {
      const channel = await policy.choose(payment);
      const success = luck < world.trueRate(channel, payment.method, payment.at);
      payments++;
      if (success) {
        successes++;
        const f = fees.get(channel)!;
        fees$ += f.fixedFee + f.percentFee * payment.amount;
      }
      if (world.isDown(channel, payment.at)) sentWhileDown++;
      const doneAt = payment.at + latencyMs;
      const doneSec = Math.floor(doneAt / 1000);
      let list = completing.get(doneSec);
      if (!list) completing.set(doneSec, (list = []));
      list.push({ payment, channel, success, at: doneAt });
      for (const w of watches) watchPayment(w, sec, payment, channel, success, doneSec, span?.onSentAfter);
    }
    for (const w of watches) watchCrossing(w, sec);
  }
  const shares = watches.map((w) => (w.candidateAfter ? w.sentAfter / w.candidateAfter : 0));
  return {
    policy: policy.name,
    seed: world.seed,
    payments,
    successes,
    successRate: successes / payments,
    costPerSuccess: fees$ / successes,
    sentWhileDown,
    downShareAfter30s: Math.max(0, ...shares),
    wallMs: performance.now() - started,
  };
}
