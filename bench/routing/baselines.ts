// The schemes PayPulse's router is compared with, each fed the same payments and the same outcomes:
// round-robin, static weights, greedy last-N, decision-engine's published scheme, and the oracle.
import { simChannels, type Method, type World } from './world.js';

export interface Payment {
  id: string;
  at: number;
  method: Method;
  amount: number;
  candidates: string[];
}

export interface SimOutcome {
  payment: Payment;
  channel: string;
  success: boolean;
  /** Completion time. */
  at: number;
}

export interface Policy {
  readonly name: string;
  /** Called once a simulated second, before that second's decisions. */
  tick?(nowMs: number): Promise<void> | void;
  choose(p: Payment): Promise<string> | string;
  /** Outcomes completed by now, in completion order. */
  observe(outcomes: SimOutcome[]): Promise<void> | void;
}

export function roundRobin(): Policy {
  let next = 0;
  return { name: 'round-robin', choose: (p) => p.candidates[next++ % p.candidates.length]!, observe() {} };
}

export function staticWeights(random: () => number, channels: ReadonlyArray<{ name: string; weight: number }> = simChannels): Policy {
  const weight = new Map(channels.map((c) => [c.name, c.weight]));
  return {
    name: 'static weights',
    choose(p) {
      const total = p.candidates.reduce((s, c) => s + weight.get(c)!, 0);
      let r = random() * total;
      for (const c of p.candidates) if ((r -= weight.get(c)!) < 0) return c;
      return p.candidates.at(-1)!;
    },
    observe() {},
  };
}

/** Per channel and method, the list of the newest `size` outcomes as 1/0. */
class OutcomeLists {
  private readonly lists = new Map<string, { bits: Uint8Array; next: number; count: number; sum: number }>();
  constructor(
    private readonly size: number,
    private readonly seedWithOnes: boolean,
  ) {}

  private listOf(key: string) {
    let l = this.lists.get(key);
    if (!l) {
      const bits = new Uint8Array(this.size).fill(this.seedWithOnes ? 1 : 0);
      l = { bits, next: 0, count: this.seedWithOnes ? this.size : 0, sum: this.seedWithOnes ? this.size : 0 };
      this.lists.set(key, l);
    }
    return l;
  }

  push(key: string, success: boolean): void {
    const l = this.listOf(key);
    if (l.count === this.size) l.sum -= l.bits[l.next]!;
    else l.count++;
    l.bits[l.next] = success ? 1 : 0;
    l.sum += l.bits[l.next]!;
    l.next = (l.next + 1) % this.size;
  }

  /** The list's mean; undefined before any outcome (never when seeded). */
  mean(key: string): number | undefined {
    const l = this.listOf(key);
    return l.count === 0 ? undefined : l.sum / l.count;
  }
}

function argmax(candidates: string[], score: (c: string) => number, random: () => number): string {
  let best: string[] = [];
  let bestScore = -Infinity;
  for (const c of candidates) {
    const s = score(c);
    if (s > bestScore) {
      bestScore = s;
      best = [c];
    } else if (s === bestScore) best.push(c);
  }
  return best[Math.floor(random() * best.length)]!;
}

/** Greedy: the best mean of the last 100 outcomes per channel and method, no exploration (untried channels first). */
export function lastNGreedy(random: () => number, n = 100): Policy {
  const lists = new OutcomeLists(n, false);
  return {
    name: 'last-100, no exploration',
    choose: (p) => argmax(p.candidates, (c) => lists.mean(`${c}/${p.method}`) ?? 1, random),
    observe(outcomes) {
      for (const o of outcomes) lists.push(`${o.channel}/${o.payment.method}`, o.success);
    },
  };
}

/**
 * decision-engine's scheme as its documentation and constants describe it: per gateway and payment method a
 * list of the last 125 outcomes (new ones seeded with ones); with probability 5 % ("hedging") every eligible
 * gateway scores equal, otherwise the highest list mean wins; an elimination score per gateway, ×0.95 on a
 * failure and ×1.0526 on a success (capped at 1), excludes the gateway while below 0.35, and resets once its
 * key expires, `coolOffMs` after its last update (defaultScoreKeysTTL, 9,000,000 ms).
 */
export function decisionEngine(random: () => number, coolOffMs = 9_000_000): Policy {
  const lists = new OutcomeLists(125, true);
  const elimination = new Map<string, { score: number; updatedAt: number }>();
  const eliminationOf = (channel: string, now: number) => {
    const e = elimination.get(channel);
    if (!e || now - e.updatedAt >= coolOffMs) return 1;
    return e.score;
  };
  return {
    name: 'decision-engine scheme',
    choose(p) {
      let eligible = p.candidates.filter((c) => eliminationOf(c, p.at) >= 0.35);
      // With every gateway eliminated decision-engine still answers with one: the full list.
      if (eligible.length === 0) eligible = p.candidates;
      if (random() < 0.05) return eligible[Math.floor(random() * eligible.length)]!;
      return argmax(eligible, (c) => lists.mean(`${c}/${p.method}`)!, random);
    },
    observe(outcomes) {
      for (const o of outcomes) {
        lists.push(`${o.channel}/${o.payment.method}`, o.success);
        const score = eliminationOf(o.channel, o.at) * (o.success ? 1.0526 : 0.95);
        elimination.set(o.channel, { score: Math.min(1, score), updatedAt: o.at });
      }
    },
  };
}

/** Always the channel with the highest true success rate at the moment of the payment. */
export function oracle(world: Pick<World, 'trueRate'>, random: () => number): Policy {
  return {
    name: 'oracle',
    choose: (p) => argmax(p.candidates, (c) => world.trueRate(c, p.method, p.at), random),
    observe() {},
  };
}
