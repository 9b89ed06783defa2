// Metrics of the operator state kept outside Redis (src/operatorState/): restores after Redis forgot, what each
// restored, durable writes that failed (and wait for a retry), and alerts resolved because their state was lost.
import client from 'prom-client';
import type { OperatorStateStats } from '../../operatorState/index.js';
import type { KeptKind } from '../../store/ports/operatorState.js';
import { mirroredCounter } from './registry.js';

const kinds: KeptKind[] = ['breaker', 'mute', 'alert'];

export function registerOperatorStateMetrics(registry: client.Registry, stats: () => OperatorStateStats | undefined): void {
  mirroredCounter(registry, 'paypulse_operator_state_restores_total', 'Times this instance found the live store without the operator state it restored (a Redis restarted empty, or this instance starting) and wrote it back.', () => stats()?.restores);
  const seen = new Map<KeptKind, number>();
  new client.Counter({
    name: 'paypulse_operator_state_restored_total',
    help: 'Keys this instance wrote back into the live store, by kind (breaker override, mute, alert).',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const restored = stats()?.restored;
      if (!restored) return;
      for (const kind of kinds) {
        const now = restored[kind];
        const delta = now >= (seen.get(kind) ?? 0) ? now - (seen.get(kind) ?? 0) : now;
        seen.set(kind, now);
        if (delta > 0) this.inc({ kind }, delta);
      }
    },
  });
  mirroredCounter(registry, 'paypulse_operator_state_restore_failures_total', 'Restores that failed (the database or the store unreachable); retried.', () => stats()?.restoreFailures);
  mirroredCounter(registry, 'paypulse_operator_state_write_failures_total', 'Durable writes of an override, mute or alert state that failed; each is retried.', () => stats()?.writeFailures);
  mirroredCounter(registry, 'paypulse_alert_orphans_resolved_total', 'Firing alerts whose live state was gone for good, resolved with a notification by this instance.', () => stats()?.orphansResolved);
  new client.Gauge({
    name: 'paypulse_operator_state_unsaved',
    help: 'Operator state changes waiting for a durable write retry.',
    registers: [registry],
    collect() {
      const s = stats();
      if (s) this.set(s.unsaved);
    },
  });
}
