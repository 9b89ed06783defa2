// The simulated world of the routing benchmark: five channels whose true success rates differ by payment
// method and drift over the day, three kinds of incident (a channel at 30 % for 10 minutes, a channel fully
// down, a slow recovery), per-channel costs and a day-shaped payment volume. Everything follows from the seed.
import { seededRandom } from '../../src/sim/random.js';

export const methods = ['card', 'wallet', 'bank'] as const;
export type Method = (typeof methods)[number];
export const methodShare: Record<Method, number> = { card: 0.6, wallet: 0.25, bank: 0.15 };

export interface SimChannel {
  name: string;
  fixedFee: number;
  percentFee: number;
  /** The user's static weight (the static baseline and the experiment's static arm). */
  weight: number;
}

export const simChannels: SimChannel[] = [
  { name: 'acq-a', fixedFee: 0.3, percentFee: 0.029, weight: 30 },
  { name: 'acq-b', fixedFee: 0.25, percentFee: 0.025, weight: 25 },
  { name: 'acq-c', fixedFee: 0.1, percentFee: 0.018, weight: 20 },
  { name: 'acq-d', fixedFee: 0.2, percentFee: 0.022, weight: 15 },
  { name: 'acq-e', fixedFee: 0.05, percentFee: 0.015, weight: 10 },
];

/** Channels that take each method: the candidates of a payment. */
export const candidatesOf: Record<Method, string[]> = {
  card: ['acq-a', 'acq-b', 'acq-c', 'acq-d'],
  wallet: ['acq-a', 'acq-b', 'acq-e', 'acq-c'],
  bank: ['acq-c', 'acq-d', 'acq-e', 'acq-b'],
};

export type IncidentKind = 'degraded' | 'down' | 'slow-recovery';

export interface Incident {
  kind: IncidentKind;
  channel: string;
  fromMs: number;
  toMs: number;
}

interface Drift {
  base: number;
  amplitude: number;
  periodMs: number;
  phase: number;
}

export const dayMs = 24 * 3600_000;

export class World {
  readonly incidents: Incident[] = [];
  private readonly drift = new Map<string, Drift>();
  readonly startMs: number;

  constructor(
    readonly seed: number,
    startMs: number,
    readonly durationMs = dayMs,
  ) {
    this.startMs = startMs;
    const random = seededRandom(seed * 7919 + 1);
    for (const c of simChannels) {
      for (const m of methods) {
        this.drift.set(`${c.name}/${m}`, {
          base: 0.84 + random() * 0.12,
          amplitude: 0.01 + random() * 0.03,
          periodMs: (3 + random() * 6) * 3600_000,
          phase: random() * 2 * Math.PI,
        });
      }
    }
    // Each kind twice a day, at seeded times, never overlapping: one incident at a time keeps the
    // down-channel measurement about one channel.
    const kinds: Array<[IncidentKind, number]> = [['degraded', 10 * 60_000], ['down', 20 * 60_000], ['slow-recovery', 60 * 60_000]];
    const slots = Math.floor(durationMs / (4 * 3600_000));
    const order = Array.from({ length: slots }, (_, i) => i).sort(() => random() - 0.5);
    let slot = 0;
    for (let round = 0; round < 2; round++) {
      for (const [kind, lengthMs] of kinds) {
        if (slot >= order.length) break;
        const from = startMs + order[slot++]! * 4 * 3600_000 + Math.floor(random() * 2 * 3600_000);
        const channel = simChannels[Math.floor(random() * simChannels.length)]!.name;
        this.incidents.push({ kind, channel, fromMs: from, toMs: from + lengthMs });
      }
    }
  }

  private incidentAt(channel: string, at: number): Incident | undefined {
    return this.incidents.find((i) => i.channel === channel && at >= i.fromMs && at < i.toMs);
  }

  /** The true success probability of a payment of `method` on `channel` at `at`. */
  trueRate(channel: string, method: Method, at: number): number {
    const d = this.drift.get(`${channel}/${method}`)!;
    const normal = Math.min(0.995, d.base + d.amplitude * Math.sin((2 * Math.PI * (at - this.startMs)) / d.periodMs + d.phase));
    const incident = this.incidentAt(channel, at);
    if (!incident) return normal;
    if (incident.kind === 'degraded') return 0.3;
    if (incident.kind === 'down') return 0;
    // Slow recovery: down for its first 10 minutes, then back to normal linearly over the rest.
    const downMs = 10 * 60_000;
    if (at < incident.fromMs + downMs) return 0;
    return normal * ((at - incident.fromMs - downMs) / (incident.toMs - incident.fromMs - downMs));
  }

  isDown(channel: string, at: number): boolean {
    return this.trueRate(channel, 'card', at) === 0;
  }

  /** Mean payments a second at `at`: a day's curve from 8 at night to 32 at the peak. */
  volumeAt(at: number): number {
    const hour = ((at - this.startMs) / 3600_000) % 24;
    return 20 - 12 * Math.cos((2 * Math.PI * (hour - 2)) / 24);
  }
}
