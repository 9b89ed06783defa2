// The battery's scenarios, each built from a seed: which channel is best, its rates, when an incident starts
// and the drifts' periods and amplitudes all follow from it. Every scenario but the cold start routes a warm-up
// of ten minutes first, unscored, so each policy enters the incident with the evidence it would have had.
import { seededRandom } from '../../../src/sim/random.js';
import type { Method } from '../world.js';
import type { BatteryChannel, Drift, RateEvent, ScenarioDefinition } from './world.js';
import { batteryStartMs } from './world.js';

const minute = 60_000;
const warmUpMs = 10 * minute;
/** Payments a second unless a scenario says otherwise. */
const defaultVolume = 30;

export type ScenarioBuilder = (seed: number) => ScenarioDefinition;

function channelsNamed(names: string[], random: () => number): BatteryChannel[] {
  return names.map((name) => ({ name, weight: 10 + Math.round(random() * 30), fixedFee: 0.1 + random() * 0.2, percentFee: 0.015 + random() * 0.015 }));
}

/** Three acquirers on card and wallet; the first is best on both by 1.5 to 4 points. */
function threeAcquirers(random: () => number) {
  const names = ['acq-a', 'acq-b', 'acq-c'];
  const base: Record<string, number> = {};
  for (const m of ['card', 'wallet'] as Method[]) {
    const best = 0.94 + random() * 0.03;
    base[`acq-a/${m}`] = best;
    base[`acq-b/${m}`] = best - 0.015 - random() * 0.025;
    base[`acq-c/${m}`] = best - 0.03 - random() * 0.04;
  }
  return {
    channels: channelsNamed(names, random),
    base,
    methodShare: { card: 0.7, wallet: 0.3 },
    candidatesOf: { card: names, wallet: names },
  };
}

/** An incident on the best channel after the warm-up and two minutes of steady traffic, ending `afterMs` later. */
function incidentScenario(name: string, seed: number, event: (fromMs: number) => Omit<RateEvent, 'channel' | 'fromMs'>, afterMs = 8 * minute, volume = defaultVolume): ScenarioDefinition {
  const random = seededRandom(seed * 104_729 + name.length);
  const world = threeAcquirers(random);
  const fromMs = batteryStartMs + warmUpMs + 2 * minute + Math.floor(random() * 60) * 1000;
  const e: RateEvent = { channel: 'acq-a', fromMs, ...event(fromMs) };
  const endMs = e.toMs + (e.recoverMs ?? 0) + afterMs;
  return { name, seed, ...world, events: [e], volume: () => volume, durationMs: endMs - batteryStartMs, measureFromMs: batteryStartMs + warmUpMs };
}

function outage(level: number, durationMs: number, label: string): [string, ScenarioBuilder] {
  const name = `outage to ${level * 100} %, ${label}`;
  return [name, (seed) => incidentScenario(name, seed, (from) => ({ toMs: from + durationMs, level }))];
}

function gradualRecovery(recoverMs: number, label: string): [string, ScenarioBuilder] {
  const name = `down 3 min, recovery over ${label}`;
  return [name, (seed) => incidentScenario(name, seed, (from) => ({ toMs: from + 3 * minute, level: 0, recoverMs }))];
}

function nearEqualDrift(seed: number): ScenarioDefinition {
  const random = seededRandom(seed * 7_919 + 17);
  const world = threeAcquirers(random);
  const base: Record<string, number> = {};
  const drifts: Drift[] = [];
  for (const c of world.channels) {
    for (const m of ['card', 'wallet']) base[`${c.name}/${m}`] = 0.93 + (random() - 0.5) * 0.01;
    drifts.push({ channel: c.name, amplitude: 0.02 + random() * 0.06, periodMs: (1 + random() * 29) * minute, phase: random() * 2 * Math.PI });
  }
  return { name: 'near-equal, drifting', seed, ...world, base, drifts, volume: () => defaultVolume, durationMs: warmUpMs + 30 * minute, measureFromMs: batteryStartMs + warmUpMs };
}

function flapping(seed: number): ScenarioDefinition {
  const name = 'flapping 30 s on / 30 s off';
  const def = incidentScenario(name, seed, (from) => ({ toMs: from + 30_000, level: 0 }), 5 * minute);
  const first = def.events![0]!;
  def.events = Array.from({ length: 10 }, (_, i) => ({ ...first, fromMs: first.fromMs + i * minute, toMs: first.toMs + i * minute }));
  def.durationMs += 9 * minute;
  return def;
}

function tenCandidates(seed: number): ScenarioDefinition {
  const random = seededRandom(seed * 3_571 + 10);
  const names = Array.from({ length: 10 }, (_, i) => `acq-${i}`);
  const base: Record<string, number> = {};
  names.forEach((n, i) => (base[`${n}/card`] = i === 0 ? 0.95 + random() * 0.02 : 0.85 + random() * 0.09));
  const fromMs = batteryStartMs + warmUpMs + 2 * minute + Math.floor(random() * 60) * 1000;
  const events: RateEvent[] = [{ channel: 'acq-0', fromMs, toMs: fromMs + 2 * minute, level: 0 }];
  return {
    name: 'ten candidates, the best down 2 min', seed, channels: channelsNamed(names, random), base, events,
    methodShare: { card: 1 }, candidatesOf: { card: names }, volume: () => defaultVolume,
    durationMs: fromMs + 10 * minute - batteryStartMs, measureFromMs: batteryStartMs + warmUpMs,
  };
}

function methodOutage(seed: number): ScenarioDefinition {
  const name = 'wallet down on the best channel, 3 min';
  return incidentScenario(name, seed, (from) => ({ toMs: from + 3 * minute, level: 0, method: 'wallet' }));
}

function lowVolume(seed: number): ScenarioDefinition {
  const volume = 1 + seededRandom(seed)() * 4;
  const name = 'low volume (1–5/s), down 2 min';
  return incidentScenario(name, seed, (from) => ({ toMs: from + 2 * minute, level: 0 }), 8 * minute, volume);
}

/** Two hours from the night's trough (2/s) to the morning (30/s), an outage in the quiet, slow drifts. */
function hourOfDay(seed: number): ScenarioDefinition {
  const random = seededRandom(seed * 2_003 + 24);
  const world = threeAcquirers(random);
  const drifts = world.channels.map((c) => ({ channel: c.name, amplitude: 0.01 + random() * 0.02, periodMs: (40 + random() * 80) * minute, phase: random() * 2 * Math.PI }));
  const fromMs = batteryStartMs + 25 * minute + Math.floor(random() * 10) * minute;
  const events: RateEvent[] = [{ channel: 'acq-a', fromMs, toMs: fromMs + 3 * minute, level: 0 }];
  const volume = (t: number) => 2 + 28 * Math.max(0, (t - 20 * minute) / (100 * minute)) ** 1.5;
  return { name: 'volume following the hour (2→30/s), down 3 min at night', seed, ...world, drifts, events, volume, durationMs: 120 * minute, measureFromMs: batteryStartMs + warmUpMs };
}

/** No history at all: 97 % against 95 % and 90 %, from the first payment. */
function coldStart(seed: number): ScenarioDefinition {
  const random = seededRandom(seed * 613 + 1);
  const names = ['acq-a', 'acq-b', 'acq-c'];
  const base: Record<string, number> = {};
  for (const m of ['card', 'wallet']) Object.assign(base, { [`acq-a/${m}`]: 0.97, [`acq-b/${m}`]: 0.95, [`acq-c/${m}`]: 0.9 });
  return {
    name: 'cold start (97 / 95 / 90 %)', seed, channels: channelsNamed(names, random), base,
    methodShare: { card: 0.7, wallet: 0.3 }, candidatesOf: { card: names, wallet: names },
    volume: () => defaultVolume, durationMs: 5 * minute, measureFromMs: batteryStartMs,
  };
}

export const scenarios: Array<[string, ScenarioBuilder]> = [
  outage(0, 30_000, '30 s'),
  outage(0, 2 * minute, '2 min'),
  outage(0, 20 * minute, '20 min'),
  outage(0.3, 30_000, '30 s'),
  outage(0.3, 2 * minute, '2 min'),
  outage(0.3, 20 * minute, '20 min'),
  outage(0.6, 30_000, '30 s'),
  outage(0.6, 2 * minute, '2 min'),
  outage(0.6, 20 * minute, '20 min'),
  ['gradual degradation to 40 % over 5 min', (seed) => incidentScenario('gradual degradation to 40 % over 5 min', seed, (from) => ({ toMs: from + 15 * minute, level: 0.4, rampDownMs: 5 * minute }))],
  gradualRecovery(30_000, '30 s'),
  gradualRecovery(2 * minute, '2 min'),
  gradualRecovery(10 * minute, '10 min'),
  ['near-equal, drifting', nearEqualDrift],
  ['flapping 30 s on / 30 s off', flapping],
  ['low volume (1–5/s), down 2 min', lowVolume],
  ['ten candidates, the best down 2 min', tenCandidates],
  ['wallet down on the best channel, 3 min', methodOutage],
  ['volume following the hour (2→30/s), down 3 min at night', hourOfDay],
  ['cold start (97 / 95 / 90 %)', coldStart],
];
