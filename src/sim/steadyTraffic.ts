// Traffic of a few channels at a fixed volume whose success probability follows a script (a drop at a
// given second, a silence): the controlled input the alert tests and `npm run bench:alerts` need, where the
// demo's rotating incidents would blur which change caused which notification.
import type { Outcome } from '../types.js';
import { pick, poisson, seededRandom } from './random.js';

export interface SteadyChannel {
  name: string;
  perMinute: number;
  /** Success probability at `at` (epoch ms); return null for silence (nothing completes). */
  successAt(at: number): number | null;
  /** Dims drawn per outcome; the failing share of an incident can be steered with `failingDims`. */
  dims?: Array<[Record<string, string>, number]>;
  /** When set, only outcomes with these dims follow `successAt`; the rest stay at `baseSuccess`. */
  failingDims?: Record<string, string>;
  baseSuccess?: number;
}

const codes: Array<[string, number]> = [['insufficient_funds', 4], ['do_not_honor', 3], ['issuer_unavailable', 2]];

export class SteadyTraffic {
  private readonly random: () => number;
  private seq = 0;

  private readonly idPrefix: string;

  constructor(private readonly channels: SteadyChannel[], seed = 1) {
    this.random = seededRandom(seed);
    this.idPrefix = seed.toString(36);
  }

  /** Terminal outcomes completing in [fromMs, toMs). */
  between(fromMs: number, toMs: number): Outcome[] {
    const out: Outcome[] = [];
    for (const channel of this.channels) {
      const mid = (fromMs + toMs) / 2;
      if (channel.successAt(mid) === null) continue;
      const count = poisson(this.random, (channel.perMinute * (toMs - fromMs)) / 60_000);
      for (let i = 0; i < count; i++) {
        const at = Math.floor(fromMs + this.random() * (toMs - fromMs));
        const dims = channel.dims ? pick(this.random, channel.dims) : undefined;
        const steered = !channel.failingDims || Object.entries(channel.failingDims).every(([k, v]) => dims?.[k] === v);
        const p = steered ? channel.successAt(at) ?? 0 : channel.baseSuccess ?? 0.97;
        const requestId = `${channel.name}-${this.idPrefix}-${(++this.seq).toString(36)}`;
        const ok = this.random() < p;
        out.push(ok
          ? { channel: channel.name, requestId, status: 'success', at, ...(dims ? { dims } : {}) }
          : { channel: channel.name, requestId, status: 'failure', at, code: pick(this.random, codes), ...(dims ? { dims } : {}) });
      }
    }
    return out;
  }
}

/** 97 % until `dropAt`, then `to` (or silence when `to` is null), optionally back at `recoverAt`. */
export function dropAt(dropAtMs: number, to: number | null, base = 0.97, recoverAtMs = Infinity): (at: number) => number | null {
  return (at) => (at >= dropAtMs && at < recoverAtMs ? to : base);
}
