// Simulated payment traffic: several channels at realistic volumes and success rates, with callback
// retries (duplicates), late upgrades, requests recorded as sent (pending) and a scripted incident:
// every few minutes one channel degrades — its success rate falls and part of its requests never
// get an answer — then recovers. Deterministic for a seed; runs on any clock, so the demo uses real
// time and tests and benchmarks use virtual time.
import type { Outcome } from '../types.js';
import { pick, poisson, seededRandom } from './random.js';

export interface ChannelProfile {
  name: string;
  /** Terminal outcomes per second. */
  perSecond: number;
  /** Success probability in normal times. */
  success: number;
  methods: Array<[string, number]>;
  currencies: Array<[string, number]>;
  /** Typical time from sending to the callback. */
  latencyMs: number;
}

export const demoChannels: ChannelProfile[] = [
  { name: 'alipay', perSecond: 40, success: 0.985, methods: [['wallet', 9], ['card', 1]], currencies: [['CNY', 9], ['USD', 1]], latencyMs: 800 },
  { name: 'wechatpay', perSecond: 30, success: 0.98, methods: [['wallet', 1]], currencies: [['CNY', 1]], latencyMs: 900 },
  { name: 'stripe-card', perSecond: 20, success: 0.97, methods: [['card', 1]], currencies: [['USD', 6], ['EUR', 3], ['GBP', 1]], latencyMs: 1500 },
  { name: 'adyen-card', perSecond: 12, success: 0.965, methods: [['card', 1]], currencies: [['EUR', 6], ['USD', 4]], latencyMs: 1700 },
  { name: 'paypal', perSecond: 8, success: 0.97, methods: [['wallet', 1]], currencies: [['USD', 7], ['EUR', 3]], latencyMs: 2500 },
  { name: 'bank-transfer', perSecond: 3, success: 0.99, methods: [['bank', 1]], currencies: [['CNY', 1]], latencyMs: 4000 },
];

const failureCodes: Array<[string, number]> = [['insufficient_funds', 4], ['do_not_honor', 3], ['issuer_unavailable', 2], ['fraud_suspected', 1]];

export interface TrafficOptions {
  seed?: number;
  channels?: ChannelProfile[];
  /** One incident starts every this often (round robin over channels). Default 5 min; 0 = none. */
  incidentEveryMs?: number;
  /** How long an incident lasts. Default 90 s. */
  incidentMs?: number;
  /** Share of outcomes preceded by a `pending` record when the payment is sent. Default 0.3. */
  pendingShare?: number;
  /** Share of callbacks delivered twice. Default 0.02. */
  duplicateShare?: number;
  /** Scales every channel's volume. Default 1. */
  volume?: number;
}

export interface Incident {
  channel: string;
  from: number;
  to: number;
}

export class Traffic {
  readonly channels: ChannelProfile[];
  private readonly random: () => number;
  private seq = 0;
  private readonly incidentEveryMs: number;
  private readonly incidentMs: number;

  constructor(private readonly options: TrafficOptions = {}) {
    this.channels = options.channels ?? demoChannels;
    this.random = seededRandom(options.seed ?? 1);
    this.incidentEveryMs = options.incidentEveryMs ?? 5 * 60_000;
    this.incidentMs = options.incidentMs ?? 90_000;
  }

  /** The incident in force at `at`, if any: it starts 1 min into each period. */
  incidentAt(at: number): Incident | undefined {
    if (this.incidentEveryMs <= 0) return undefined;
    const period = Math.floor(at / this.incidentEveryMs);
    const from = period * this.incidentEveryMs + 60_000;
    if (at < from || at >= from + this.incidentMs) return undefined;
    return { channel: this.channels[period % this.channels.length].name, from, to: from + this.incidentMs };
  }

  /** The true success probability of a channel at `at`: what PayPulse should find. */
  successAt(channel: ChannelProfile, at: number): number {
    const incident = this.incidentAt(at);
    if (incident?.channel !== channel.name) return channel.success;
    // Ramps down over 20 s to 40 % and back up in the last 20 s, like a real acquirer outage.
    const ramp = Math.min(1, (at - incident.from) / 20_000, (incident.to - at) / 20_000);
    return channel.success - (channel.success - 0.4) * Math.max(0, ramp);
  }

  /** Outcomes completing in [fromMs, toMs), in arrival order (callbacks are not sorted by time). */
  between(fromMs: number, toMs: number): Outcome[] {
    const out: Outcome[] = [];
    const volume = this.options.volume ?? 1;
    const pendingShare = this.options.pendingShare ?? 0.3;
    const duplicateShare = this.options.duplicateShare ?? 0.02;
    for (const channel of this.channels) {
      const count = poisson(this.random, (channel.perSecond * volume * (toMs - fromMs)) / 1000);
      for (let i = 0; i < count; i++) {
        const at = Math.floor(fromMs + this.random() * (toMs - fromMs));
        const requestId = `${channel.name}-${(++this.seq).toString(36)}`;
        const dims = { method: pick(this.random, channel.methods), currency: pick(this.random, channel.currencies) };
        const sentAt = at - Math.floor(channel.latencyMs * (0.5 + this.random()));
        const incident = this.incidentAt(at)?.channel === channel.name;
        // During an incident a quarter of the sent requests never get an answer: they will time out.
        const silent = incident && this.random() < 0.25;
        if (silent || this.random() < pendingShare) out.push({ channel: channel.name, requestId, status: 'pending', at: sentAt, dims });
        if (silent) continue;
        const ok = this.random() < this.successAt(channel, at);
        const outcome: Outcome = ok
          ? { channel: channel.name, requestId, status: 'success', at, dims, latencyMs: at - sentAt }
          : { channel: channel.name, requestId, status: 'failure', at, dims, code: pick(this.random, failureCodes), latencyMs: at - sentAt };
        out.push(outcome);
        if (this.random() < duplicateShare) out.push({ ...outcome });
      }
    }
    return out;
  }
}

export function createTraffic(options: TrafficOptions = {}): Traffic {
  return new Traffic(options);
}
