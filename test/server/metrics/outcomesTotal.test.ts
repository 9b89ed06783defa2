// paypulse_outcomes_total{channel, status, code}: every outcome handed to the store, its failure code a label
// bounded per channel (the first `maxCodeLabelsPerChannel` seen, then `other`), so the series stay at most
// channels × statuses × (K + 1) however many codes callers invent.
import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createPulseMetrics } from '../../../src/server/metrics/pulseMetrics.js';
import { boundedChannelLabels, maxCodeLabelsPerChannel } from '../../../src/server/metrics/registry.js';
import type { Outcome, RecordManyResult } from '../../../src/types.js';

const recorded = (n: number): RecordManyResult => ({ accepted: n, duplicates: 0, corrected: 0, stale: 0, buffered: 0, dropped: 0 });

async function seriesOf(registry: client.Registry): Promise<Array<{ labels: Record<string, string | number>; value: number }>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'paypulse_outcomes_total');
  return (metric?.values ?? []) as Array<{ labels: Record<string, string | number>; value: number }>;
}

describe('paypulse_outcomes_total', () => {
  it('counts each outcome once by channel, status and code: no code on a success, `unknown` on a failure without one', async () => {
    const registry = new client.Registry();
    const { onRecord } = createPulseMetrics(registry, boundedChannelLabels());
    const outcomes: Outcome[] = [
      { channel: 'acq-a', requestId: '1', status: 'success', at: 1 },
      { channel: 'acq-a', requestId: '2', status: 'success', at: 1 },
      { channel: 'acq-a', requestId: '3', status: 'failure', at: 1, code: 'do_not_honor' },
      { channel: 'acq-a', requestId: '4', status: 'failure', at: 1 },
      { channel: 'acq-a', requestId: '5', status: 'pending', at: 1 },
    ];
    onRecord(outcomes, 0.001, recorded(outcomes.length));
    const text = await registry.metrics();
    expect(text).toContain('paypulse_outcomes_total{channel="acq-a",status="success"} 2');
    expect(text).toContain('paypulse_outcomes_total{channel="acq-a",status="failure",code="do_not_honor"} 1');
    expect(text).toContain('paypulse_outcomes_total{channel="acq-a",status="failure",code="unknown"} 1');
    expect(text).toContain('paypulse_outcomes_total{channel="acq-a",status="pending"} 1');
    expect(text).not.toContain('paypulse_failure_codes_total');
  });

  it('stays within channels × statuses × (K + 1) series under many random codes, the overflow counted as `other`', async () => {
    const registry = new client.Registry();
    const { onRecord } = createPulseMetrics(registry, boundedChannelLabels());
    const channels = Array.from({ length: 20 }, (_, i) => `ch-${i}`);
    const statuses = ['success', 'failure', 'pending'] as const;
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    let sent = 0;
    for (let batch = 0; batch < 20; batch++) {
      const outcomes: Outcome[] = Array.from({ length: 500 }, (_, i) => {
        const status = statuses[Math.floor(random() * 3)]!;
        return {
          channel: channels[Math.floor(random() * channels.length)]!, requestId: `${batch}-${i}`, status, at: 1,
          ...(status === 'failure' && random() < 0.95 ? { code: `code-${Math.floor(random() * 1e9).toString(36)}` } : {}),
        };
      });
      sent += outcomes.length;
      onRecord(outcomes, 0.001, recorded(outcomes.length));
    }
    const series = await seriesOf(registry);
    expect(series.length).toBeLessThanOrEqual(channels.length * statuses.length * (maxCodeLabelsPerChannel + 1));
    for (const channel of channels) {
      const codes = series.filter((s) => s.labels.channel === channel && s.labels.status === 'failure').map((s) => s.labels.code);
      expect(codes.length).toBeLessThanOrEqual(maxCodeLabelsPerChannel + 1);
      expect(codes).toContain('other');
    }
    // Nothing is lost to the bound: the counts add up to what was sent.
    expect(series.reduce((sum, s) => sum + s.value, 0)).toBe(sent);
  });
});
