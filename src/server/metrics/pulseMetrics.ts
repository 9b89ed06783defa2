// The pulse's own work as metrics: ingest calls, store-backed calls and the store's write batches. The
// returned observer is given to createPulse, so whoever calls the pulse is counted.
import client from 'prom-client';
import { alertNotificationMetrics } from './alertMetrics.js';
import type { PulseObserver } from '../../observer.js';
import type { Outcome, RecordManyResult } from '../../types.js';
import { boundedCodeLabels, maxCodeLabelsPerChannel, type ChannelLabel } from './registry.js';

function ingestMetrics(registry: client.Registry, channelLabel: ChannelLabel): Required<PulseObserver>['onRecord'] {
  // Every outcome by channel, status and decline code: `sum by (channel, status)` is the traffic, the failures
  // `by (code)` are what an incident is made of, from one counter. A success or a pending request has no code,
  // so it carries no code label; the codes are bounded per channel (registry.ts), so the series stay at most
  // channels × statuses × (K + 1) (docs/decisions/180-one-outcomes-counter-with-codes.md).
  const outcomesTotal = new client.Counter({
    name: 'paypulse_outcomes_total',
    help: `Outcomes handed to the store (before de-duplication), by channel, status and code: failures only, the first ${maxCodeLabelsPerChannel} codes a channel, then other; unknown: no code.`,
    labelNames: ['channel', 'status', 'code'],
    registers: [registry],
  });
  // Kept beside it: the Prometheus rules `paypulse rules` generated read it, and a rule over a metric that
  // vanished never fires, silently. It equals `sum without (code) (paypulse_outcomes_total)`.
  const received = new client.Counter({
    name: 'paypulse_outcomes_received_total',
    help: 'Outcomes handed to the store, by channel and status (before de-duplication); sum without (code) of paypulse_outcomes_total, kept for the rules that read it.',
    labelNames: ['channel', 'status'],
    registers: [registry],
  });
  const codeLabel = boundedCodeLabels();
  const recorded = new client.Counter({
    name: 'paypulse_outcomes_recorded_total',
    help: 'What the store did with received outcomes: accepted, duplicate, corrected, stale, buffered.',
    labelNames: ['result'],
    registers: [registry],
  });
  const batchSize = new client.Histogram({
    name: 'paypulse_ingest_batch_outcomes',
    help: 'Outcomes per ingest call.',
    buckets: [1, 10, 50, 100, 500, 1_000, 2_500, 5_000, 10_000],
    registers: [registry],
  });
  const ingestSeconds = new client.Histogram({
    name: 'paypulse_ingest_duration_seconds',
    help: 'Time to record one ingest call in the store.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const ingestErrors = new client.Counter({
    name: 'paypulse_ingest_errors_total',
    help: 'Ingest calls that failed (nothing of them recorded).',
    registers: [registry],
  });
  return (outcomes: readonly Outcome[], seconds: number, result: RecordManyResult | undefined) => {
    batchSize.observe(outcomes.length);
    ingestSeconds.observe(seconds);
    if (!result) {
      ingestErrors.inc();
      return;
    }
    // Count per (label, status) locally first: one prom-client call per label pair, not per outcome nor per
    // channel past the label limit (a batch of new channels past it made a call each,
    // docs/decisions/067-long-tasks-yield.md).
    const counts = new Map<string, number>();
    for (const o of outcomes) {
      const channel = channelLabel(o.channel);
      const key = o.status === 'failure' ? `${channel}\u0000failure\u0000${codeLabel(channel, o.code)}` : `${channel}\u0000${o.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const [key, n] of counts) {
      const [channel, status, code] = key.split('\u0000') as [string, string, string | undefined];
      outcomesTotal.inc(code === undefined ? { channel, status } : { channel, status, code }, n);
      received.inc({ channel, status }, n);
    }
    recorded.inc({ result: 'accepted' }, result.accepted);
    recorded.inc({ result: 'duplicate' }, result.duplicates);
    recorded.inc({ result: 'corrected' }, result.corrected);
    recorded.inc({ result: 'stale' }, result.stale);
    recorded.inc({ result: 'buffered' }, result.buffered);
  };
}

/** Store calls as the service sees them (Redis round trip plus script time on Redis). */
function storeCallMetrics(registry: client.Registry): Required<PulseObserver>['onStoreCall'] {
  const storeSeconds = new client.Histogram({
    name: 'paypulse_store_operation_duration_seconds',
    help: 'Duration of store-backed library calls, by operation.',
    labelNames: ['operation'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
    registers: [registry],
  });
  const storeCallErrors = new client.Counter({
    name: 'paypulse_store_operation_errors_total',
    help: 'Store-backed library calls that threw, by operation.',
    labelNames: ['operation'],
    registers: [registry],
  });
  // Label children looked up once: every read observes one, so hashing the label set each time would be
  // paid thousands of times a second.
  const storeTimers = new Map<string, client.Histogram.Internal<'operation'>>();
  return (operation: string, seconds: number, failed: boolean) => {
    let timer = storeTimers.get(operation);
    if (!timer) storeTimers.set(operation, (timer = storeSeconds.labels({ operation })));
    timer.observe(seconds);
    if (failed) storeCallErrors.inc({ operation });
  };
}

/** The library's own view of each write: one store call (a Lua script on Redis) per batch, after merging. */
function storeBatchMetrics(registry: client.Registry): Required<PulseObserver>['onBatch'] {
  const storeBatchSeconds = new client.Histogram({
    name: 'paypulse_store_write_duration_seconds',
    help: 'Duration of one record batch at the store (one Redis script call on Redis).',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  const storeBatchSize = new client.Histogram({
    name: 'paypulse_store_write_batch_outcomes',
    help: 'Outcomes per record batch at the store (concurrent ingest calls are merged).',
    buckets: [1, 10, 50, 100, 500, 1_000, 2_500, 5_000],
    registers: [registry],
  });
  return (size: number, ms: number) => {
    storeBatchSize.observe(size);
    storeBatchSeconds.observe(ms / 1000);
  };
}

export function createPulseMetrics(registry: client.Registry, channelLabel: ChannelLabel): Required<PulseObserver> {
  return {
    onRecord: ingestMetrics(registry, channelLabel),
    onStoreCall: storeCallMetrics(registry),
    onBatch: storeBatchMetrics(registry),
    onAlertNotification: alertNotificationMetrics(registry),
  };
}
