// The Alertmanager round trip against the real one: a drop evaluated by 4 instances reaches Alertmanager's
// API v2 with our labels and evidence, keeps being re-sent while it fires, and ends after it resolves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotifier } from '../../src/alerts/notifier.js';
import { resolveAlertRules } from '../../src/alerts/rules.js';
import { dropAt, SteadyTraffic } from '../../src/sim/steadyTraffic.js';
import { startAlertmanager, type LocalAlertmanager } from './alertmanagerServer.js';
import { fleetEngines, fleetStart, type Fleet } from './fleet.js';

let am: LocalAlertmanager;
beforeAll(async () => {
  am = await startAlertmanager();
}, 30_000);
afterAll(async () => am?.stop());

const memory = fleetEngines()[0]!;
const minute = 60_000;

/** Traffic second by second from `startMs`, every instance evaluating every 5 s, until `startMs + untilMs`. */
async function drive(fleet: Fleet, traffic: SteadyTraffic, startMs: number, untilMs: number): Promise<void> {
  while (fleet.clock.now() < startMs + untilMs) {
    const from = fleet.clock.now();
    fleet.clock.advance(1_000);
    await fleet.instances[0]!.engine.recordMany(traffic.between(from, fleet.clock.now()));
    if ((fleet.clock.now() - startMs) % 5_000 === 0) await fleet.evaluateAll();
  }
}

describe('Alertmanager receiver against prometheus-alertmanager', () => {
  it('shows the firing alert with labels, evidence and generatorURL, and ends it after resolution', async () => {
    const input = { alertmanager: { url: am.url, resendEvery: '10m' }, silent: false as const, log: false, dashboardUrl: 'http://paypulse.test/' };
    const notifier = createNotifier(resolveAlertRules(input), { backoffMs: 5 });
    // Alertmanager judges endsAt by its wall clock, so virtual time ends near real now: the run starts 30
    // minutes ago, firing alerts are valid 4 × 10 min ahead, and the resolution lands in the real past.
    const startMs = Math.floor((Date.now() - 30 * minute) / 5_000) * 5_000;
    const drop = startMs + 20 * minute;
    const traffic = new SteadyTraffic([{ name: 'bank-x', perMinute: 600, successAt: dropAt(drop, 0.3, 0.97, drop + 3 * minute) }], 5);
    const fleet = await memory.open({ instances: 4, alerts: input, forward: notifier });
    fleet.clock.set(startMs);
    try {
      await drive(fleet, traffic, startMs, 23 * minute);
      await notifier.idle();
      const firing = (await am.alerts()).filter((a) => a.labels.channel === 'bank-x');
      expect(firing.map((a) => [a.labels.alertname, a.labels.severity, a.labels.rule, a.status.state])).toEqual([
        ['PayPulseSuccessRateLow', 'critical', 'rate', 'active'],
      ]);
      const alert = firing[0]!;
      expect(alert.annotations.failed_request_ids!.split(',')).toHaveLength(10);
      expect(alert.annotations.summary).toContain('bank-x');
      expect(alert.annotations.rate).toMatch(/^\d+\.\d %$/);
      expect(parseFloat(alert.annotations.rate!)).toBeLessThan(50);
      expect(alert.generatorURL).toBe('http://paypulse.test/?channel=bank-x');
      expect(Date.parse(alert.startsAt)).toBeGreaterThan(drop);
      await drive(fleet, traffic, startMs, 29.5 * minute);
      expect(fleet.notifications().at(-1)!.transition).toBe('resolved');
      await notifier.idle();
      expect((await am.alerts()).filter((a) => a.labels.channel === 'bank-x')).toEqual([]);
    } finally {
      await fleet.close();
    }
  }, 60_000);
});

