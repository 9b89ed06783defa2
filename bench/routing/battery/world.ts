// One scenario of the routing battery: channels with a base success rate per method, optional drifts, and
// events that change a channel's rate for a while (an outage to a level, a slow degradation, a gradual
// recovery). Everything a run needs — rates, volume, candidates, what counts as a failure or a recovery —
// follows from the scenario's definition, which follows from its seed.
import type { Method } from '../world.js';

export interface BatteryChannel {
  name: string;
  /** The user's static weight (the static baseline). */
  weight: number;
  fixedFee: number;
  percentFee: number;
}

export interface Drift {
  channel: string;
  /** Points of success rate either side of the base (0.05 = ±5 points). */
  amplitude: number;
  periodMs: number;
  phase: number;
}

/**
 * A channel's rate changed for a while. During [fromMs, toMs) it goes from normal to `level` over `rampDownMs`
 * (0: abruptly) and stays; from toMs it climbs back to normal over `recoverMs` (0: at once). `method` limits the
 * event to one payment method.
 */
export interface RateEvent {
  channel: string;
  method?: Method;
  fromMs: number;
  toMs: number;
  level: number;
  rampDownMs?: number;
  recoverMs?: number;
}

export interface ScenarioDefinition {
  name: string;
  seed: number;
  durationMs: number;
  channels: BatteryChannel[];
  methodShare: Partial<Record<Method, number>>;
  candidatesOf: Partial<Record<Method, string[]>>;
  /** Base rate by `${channel}/${method}`. */
  base: Record<string, number>;
  drifts?: Drift[];
  events?: RateEvent[];
  /** Mean payments a second at a time since the start. */
  volume: (sinceStartMs: number) => number;
  /** Measurement starts here: the warm-up before it is routed but not scored. */
  measureFromMs: number;
}

export const batteryStartMs = Date.UTC(2026, 0, 5);

function eventFactor(e: RateEvent, at: number, normal: number): number | undefined {
  if (at < e.fromMs) return undefined;
  if (at < e.toMs) {
    const ramp = e.rampDownMs ?? 0;
    if (ramp > 0 && at < e.fromMs + ramp) return normal + (e.level - normal) * ((at - e.fromMs) / ramp);
    return e.level;
  }
  const recover = e.recoverMs ?? 0;
  if (recover > 0 && at < e.toMs + recover) return e.level + (normal - e.level) * ((at - e.toMs) / recover);
  return undefined;
}

export class ScenarioWorld {
  readonly startMs = batteryStartMs;
  readonly seed: number;
  readonly durationMs: number;
  readonly methods: Method[];
  private readonly driftsOf = new Map<string, Drift[]>();

  constructor(readonly def: ScenarioDefinition) {
    this.seed = def.seed;
    this.durationMs = def.durationMs;
    this.methods = Object.keys(def.methodShare) as Method[];
    for (const d of def.drifts ?? []) this.driftsOf.set(d.channel, [...(this.driftsOf.get(d.channel) ?? []), d]);
  }

  /** The rate without events: base plus drifts. */
  normalRate(channel: string, method: Method, at: number): number {
    let r = this.def.base[`${channel}/${method}`] ?? 0;
    for (const d of this.driftsOf.get(channel) ?? []) r += d.amplitude * Math.sin((2 * Math.PI * (at - this.startMs)) / d.periodMs + d.phase);
    return Math.min(0.995, Math.max(0, r));
  }

  trueRate(channel: string, method: Method, at: number): number {
    const normal = this.normalRate(channel, method, at);
    for (const e of this.def.events ?? []) {
      if (e.channel !== channel || (e.method && e.method !== method)) continue;
      const r = eventFactor(e, at, normal);
      if (r !== undefined) return r;
    }
    return normal;
  }

  candidatesOf(method: Method): string[] {
    return this.def.candidatesOf[method]!;
  }

  volumeAt(at: number): number {
    return this.def.volume(at - this.startMs);
  }

  /** The oracle's channel: the highest true rate (the first on a tie, as the oracle's own tie-break is random). */
  bestOf(method: Method, at: number): string {
    let best = '';
    let bestRate = -1;
    for (const c of this.candidatesOf(method)) {
      const r = this.trueRate(c, method, at);
      if (r > bestRate) [best, bestRate] = [c, r];
    }
    return best;
  }
}
