// The mission end to end on virtual time: simulated traffic through the engine, one channel degrades,
// and its short-window rate shows it within seconds while the others stay healthy.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPulse } from '../../src/pulse.js';
import { createTraffic } from '../../src/sim/traffic.js';

describe('detecting a degraded channel', () => {
  it('sees the incident channel fall below 80 % within 45 s, the others stay above 90 %, and recovery', async () => {
    const start = Date.UTC(2026, 0, 1, 12);
    const clock = new ManualClock(start);
    const pulse = await createPulse({ clock, windows: ['30s', '1m', '5m'] });
    const traffic = createTraffic({ seed: 7, incidentEveryMs: 5 * 60_000 });
    const incident = traffic.incidentAt(start + 60_000)!;
    expect(incident).toBeDefined();

    const runUntil = async (until: number) => {
      while (clock.now() < until) {
        const from = clock.now();
        clock.advance(1000);
        await pulse.recordMany(traffic.between(from, clock.now()));
      }
    };

    await runUntil(incident.from + 45_000);
    const rates = await pulse.rates({ window: '30s' });
    for (const r of rates) {
      if (r.channel === incident.channel) expect(r.rate!).toBeLessThan(0.8);
      else expect(r.rate!).toBeGreaterThan(0.9);
    }
    expect(rates).toHaveLength(traffic.channels.length);

    await runUntil(incident.to + 60_000);
    expect((await pulse.rate(incident.channel, { window: '1m' })).rate!).toBeGreaterThan(0.9);
    await pulse.close();
  });

  it('is the same traffic for the same seed', () => {
    const a = createTraffic({ seed: 3 }).between(0, 5_000);
    const b = createTraffic({ seed: 3 }).between(0, 5_000);
    expect(a.length).toBeGreaterThan(100);
    expect(b).toEqual(a);
  });
});
