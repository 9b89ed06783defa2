// The bar of stream ingestion at test size (the benchmark runs the 200,000 at 5,000/s): two service
// processes share the group, one is SIGKILLed and restarted while the gateway writes; every outcome is
// counted exactly once, nothing stays pending, and only the planted invalid entries are dead letters.
import { describe, expect, it } from 'vitest';
import { runFleetScenario } from './streamFleet.js';

describe('stream ingestion across a fleet with a crash', () => {
  it('counts every outcome once, leaves nothing pending, dead-letters only the planted entries', async () => {
    const report = await runFleetScenario({ outcomes: 6_000, perSecond: 1_000, invalid: 12, killAt: 0.3, restartAt: 0.5, settleTimeoutMs: 20_000 });
    expect(report.counted).toBe(report.written);
    expect(report.written).toBe(6_000);
    expect(report.pending).toBe(0);
    expect(report.lag).toBe(0);
    expect(report.deadLetterIds).toEqual(report.plantedIds);
    expect(report.plantedIds).toHaveLength(12);
  }, 60_000);
});
