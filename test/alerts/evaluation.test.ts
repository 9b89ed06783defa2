// Alert evaluation end to end on virtual time, on both engines, with four instances evaluating the same
// channels: each transition is notified exactly once across the fleet, whichever instance wins it.
import { describe, expect, it } from 'vitest';
import { dropAt, SteadyTraffic, type SteadyChannel } from '../../src/sim/steadyTraffic.js';
import { fleetEngines, fleetStart, type Fleet, type FleetOptions } from './fleet.js';

const engines = fleetEngines();
const evaluateEveryMs = 5_000;

/** Runs traffic second by second, evaluating every instance every 5 s, until `untilMs` after the start. */
async function drive(fleet: Fleet, traffic: SteadyTraffic, untilMs: number): Promise<void> {
  const end = fleetStart + untilMs;
  while (fleet.clock.now() < end) {
    const from = fleet.clock.now();
    fleet.clock.advance(1_000);
    const outcomes = traffic.between(from, fleet.clock.now());
    if (outcomes.length > 0) await fleet.instances[0]!.engine.recordMany(outcomes);
    if ((fleet.clock.now() - fleetStart) % evaluateEveryMs === 0) await fleet.evaluateAll();
  }
}

const minutes = (n: number) => n * 60_000;

async function withFleet(open: (o: FleetOptions) => Promise<Fleet>, options: FleetOptions, work: (fleet: Fleet) => Promise<void>) {
  const fleet = await open(options);
  try {
    await work(fleet);
  } finally {
    await fleet.close();
  }
}

const transitionsOf = (fleet: Fleet, id?: string) =>
  fleet.notifications().filter((n) => !id || n.id === id).map((n) => `${n.transition}:${n.level}`);

describe.each(engines)('alert evaluation on $name, 2 to 4 instances', (engine) => {
  it('fires once on a drop to 40 %, escalates once per level, resolves once after recovery', async () => {
    const drop = fleetStart + minutes(6);
    const channel: SteadyChannel = { name: 'acq-a', perMinute: 600, successAt: dropAt(drop, 0.4, 0.97, drop + minutes(3)) };
    const traffic = new SteadyTraffic([channel], 11);
    await withFleet(engine.open, { instances: 4 }, async (fleet) => {
      await drive(fleet, traffic, minutes(6));
      expect(fleet.notifications()).toEqual([]);
      await drive(fleet, traffic, minutes(9));
      const during = fleet.notifications();
      expect(during[0]!.transition).toBe('firing');
      expect(during[0]!.at - drop).toBeLessThanOrEqual(20_000);
      expect(transitionsOf(fleet)).toEqual(['firing:warn', 'escalated:major', 'escalated:critical']);
      for (const i of fleet.instances) expect(i.evaluator.active().map((a) => `${a.id}:${a.level}`)).toEqual(['rate/@acq-a:critical']);
      const firing = during[0]!;
      expect(firing.evidence.failedRequests.length).toBe(10);
      expect(firing.evidence.topCodes[0]!.count).toBeGreaterThan(0);
      expect(firing.rate!.high!).toBeLessThan(0.95);
      expect(firing.dashboardUrl).toContain('channel=acq-a');
      // The window named is the one quoted, in the notification and in what every instance shows.
      for (const n of during) expect(n.window).toBe(n.rate!.window);
      for (const a of fleet.instances[0]!.evaluator.active()) expect(a.window).toBe(a.rate!.window);
      await drive(fleet, traffic, minutes(16));
      const all = transitionsOf(fleet);
      expect(all.slice(3).at(-1)).toMatch(/^resolved:/);
      expect(all.filter((t) => t.startsWith('resolved'))).toHaveLength(1);
      for (const i of fleet.instances) expect(i.evaluator.active()).toEqual([]);
    });
  }, 240_000);

  it('raises nothing below minSamples, honours per-channel levels, and names the failing dims series', async () => {
    const drop = fleetStart + minutes(3);
    const dims: SteadyChannel['dims'] = [[{ method: 'card', currency: 'BRL' }, 1], [{ method: 'wallet', currency: 'BRL' }, 3]];
    const channels: SteadyChannel[] = [
      { name: 'std', perMinute: 600, successAt: dropAt(drop, 0.86), dims: [[{ method: 'wallet', currency: 'USD' }, 1]] },
      { name: 'bank-x', perMinute: 600, successAt: dropAt(drop, 0.86) },
      { name: 'tiny', perMinute: 60, successAt: dropAt(drop, 0.5) },
      { name: 'mixed', perMinute: 600, successAt: dropAt(drop, 0.1), dims, failingDims: { method: 'card' }, baseSuccess: 0.97 },
    ];
    const options: FleetOptions = {
      instances: 2,
      dimensions: [['method']],
      knownDims: [{ method: 'card' }, { method: 'wallet' }],
      alerts: {
        channels: { 'bank-x': { thresholds: { warn: 0.8, major: 0.6, critical: 0.3 } }, tiny: { minSamples: 1_000 } },
        silent: false,
      },
    };
    const traffic = new SteadyTraffic(channels, 21);
    await withFleet(engine.open, options, async (fleet) => {
      await drive(fleet, traffic, minutes(7));
      const byId = (id: string) => transitionsOf(fleet, id);
      expect(byId('rate/@std')).toEqual(['firing:warn']);
      expect(byId('rate/@bank-x')).toEqual([]);
      expect(byId('rate/@tiny')).toEqual([]);
      expect(byId('rate/method=card@mixed')).toEqual(['firing:warn', 'escalated:major', 'escalated:critical']);
      expect(byId('rate/method=wallet@mixed')).toEqual([]);
      const channelAlert = fleet.notifications().find((n) => n.id === 'rate/@mixed')!;
      expect(channelAlert.evidence.concentration[0]!.dims).toEqual({ method: 'card' });
    });
  }, 240_000);

  it('raises `silent` when a busy channel stops completing payments, and resolves when it is back', async () => {
    const stop = fleetStart + minutes(15);
    const channel: SteadyChannel = { name: 'quiet', perMinute: 600, successAt: (at) => (at >= stop && at < stop + minutes(4) ? null : 0.97) };
    const traffic = new SteadyTraffic([channel], 31);
    await withFleet(engine.open, { instances: 2 }, async (fleet) => {
      await drive(fleet, traffic, minutes(21));
      const silent = fleet.notifications().filter((n) => n.rule === 'silent');
      expect(silent.map((n) => `${n.transition}:${n.level}`)).toEqual(['firing:critical', 'resolved:critical']);
      expect(silent[0]!.at - stop).toBeLessThanOrEqual(60_000);
    });
  }, 240_000);

  it('fires a burn-rate pair only when both windows burn faster than the factor', async () => {
    const channel: SteadyChannel = { name: 'burner', perMinute: 200, successAt: dropAt(fleetStart + minutes(30), 0.2) };
    const alerts = { silent: false as const, burnRate: { target: 0.95, pairs: [['1h', '5m', 14.4]] as Array<[string, string, number]> } };
    const traffic = new SteadyTraffic([channel], 41);
    await withFleet(engine.open, { instances: 2, alerts }, async (fleet) => {
      await drive(fleet, traffic, minutes(34));
      // 5 m burns at 16× within a minute, but the hour (half of it healthy) does not burn 14.4× yet.
      expect(transitionsOf(fleet, 'burn:1h:5m/@burner')).toEqual([]);
      await drive(fleet, traffic, minutes(75));
      // The hour is three quarters at 20 %: errors 61 % = 12× the budget.
      expect(transitionsOf(fleet, 'burn:1h:5m/@burner')).toEqual([]);
      await drive(fleet, traffic, minutes(95));
      expect(transitionsOf(fleet, 'burn:1h:5m/@burner')).toEqual(['firing:critical']);
    });
  }, 300_000);

  it('shows a muted alert without notifying it, and reminds once when the mute ends; reminders every repeatEvery', async () => {
    const drop = fleetStart + minutes(2);
    const channel: SteadyChannel = { name: 'maint', perMinute: 600, successAt: dropAt(drop, 0.3) };
    const traffic = new SteadyTraffic([channel], 51);
    await withFleet(engine.open, { instances: 2, alerts: { silent: false, repeatEvery: '5m' } }, async (fleet) => {
      await fleet.instances[0]!.evaluator.mute('maint', fleetStart + minutes(6));
      expect(await fleet.instances[1]!.evaluator.muteOf('maint')).toBe(fleetStart + minutes(6));
      await drive(fleet, traffic, minutes(5));
      expect(fleet.notifications()).toEqual([]);
      for (const i of fleet.instances) expect(i.evaluator.active().map((a) => [a.level, a.muted])).toEqual([['critical', true]]);
      await drive(fleet, traffic, minutes(6.5));
      expect(transitionsOf(fleet)).toEqual(['reminder:critical']);
      await drive(fleet, traffic, minutes(11.5));
      expect(transitionsOf(fleet)).toEqual(['reminder:critical', 'reminder:critical']);
    });
  }, 240_000);
});
