// Metrics of stream ingestion (docs/ingestion.md): how far the group is behind, what it holds unacknowledged,
// and what it could not accept. Named paypulse_ingest_stream_*: paypulse_stream_* is the dashboard's SSE stream.
import client from 'prom-client';
import type { StreamConsumerStats } from '../../ingest/stream/streamConsumer.js';
import { mirroredCounter } from './registry.js';

export function registerIngestStreamMetrics(registry: client.Registry, stats: () => StreamConsumerStats | undefined): void {
  new client.Gauge({
    name: 'paypulse_ingest_stream_lag_entries',
    help: 'Entries of the outcome stream not yet delivered to the consumer group (XINFO GROUPS lag), at the last upkeep.',
    labelNames: ['stream'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [stream, s] of stats()?.streams ?? []) if (s.lag !== null) this.set({ stream }, s.lag);
    },
  });
  new client.Gauge({
    name: 'paypulse_ingest_stream_pending_entries',
    help: 'Entries delivered to the consumer group and not yet acknowledged, at the last upkeep.',
    labelNames: ['stream'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [stream, s] of stats()?.streams ?? []) this.set({ stream }, s.pending);
    },
  });
  const seen = { validation: 0, limit: 0 };
  new client.Counter({
    name: 'paypulse_ingest_stream_dead_letters_total',
    help: 'Stream entries moved to the dead-letter stream by this instance, by reason class (validation, limit).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      const now = stats()?.deadLetters;
      if (!now) return;
      for (const reason of ['validation', 'limit'] as const) {
        const delta = now[reason] - seen[reason];
        seen[reason] = now[reason];
        if (delta > 0) this.inc({ reason }, delta);
      }
    },
  });
  mirroredCounter(registry, 'paypulse_ingest_stream_recorded_entries_total', 'Stream entries recorded (or durably spilled) and acknowledged by this instance.', () => stats()?.recorded);
  mirroredCounter(registry, 'paypulse_ingest_stream_unsettled_entries_total', 'Stream entries left pending for a later delivery: the store failed, or only the memory buffer took them.', () => stats()?.unsettled);
  mirroredCounter(registry, 'paypulse_ingest_stream_reclaimed_entries_total', 'Entries taken over from consumers idle past claimIdleMs (XAUTOCLAIM).', () => stats()?.reclaimed);
  mirroredCounter(registry, 'paypulse_ingest_stream_trimmed_entries_total', 'Entries trimmed from the outcome streams after every group acknowledged them.', () => stats()?.trimmed);
  mirroredCounter(registry, 'paypulse_ingest_stream_errors_total', 'Failed stream commands (Redis unreachable or a missing group, recreated).', () => stats()?.errors);
}
