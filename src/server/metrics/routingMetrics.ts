// Routing's Prometheus metrics: decisions and what kind they were, breaker states as this instance knows
// them, and breaker changes it has seen. Channel labels are bounded like the service's other channel metrics.
import client from 'prom-client';
import type { Routing } from '../../routing/routing.js';
import type { BreakerView } from '../../routing/sharedBreakers.js';
import type { BreakerState } from '../../routing/types.js';
import { mirroredCounter } from './registry.js';

const maxBreakerSeries = 1_000;
const stateValue: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };

export interface RoutingMetrics {
  /** Routing's onChange hook: one breaker state change this instance saw. */
  countBreakerChange(view: BreakerView): void;
}

export function registerRoutingMetrics(registry: client.Registry, routing: Routing): RoutingMetrics {
  new client.Counter({
    name: 'paypulse_route_decisions_total',
    help: 'Routing decisions answered, by the channel chosen and why (best, explored, probe, fail-open, static, cold-start, breaker-open:<channel>, override:<channel>).',
    labelNames: ['channel', 'reason'],
    registers: [registry],
    collect() {
      // Mirrors the routing's own monotonic counts, so a scrape reads them without a hook on the decision path.
      this.reset();
      for (const [channel, reason, n] of routing.decisionsByChannel.entries()) this.inc({ channel, reason }, n);
    },
  });
  mirroredCounter(registry, 'paypulse_route_explored_total', 'Decisions spent exploring a candidate short of recent samples.', () => routing.counts.explored);
  mirroredCounter(registry, 'paypulse_route_probes_total', 'Decisions that sent a half-open channel one of its probe payments.', () => routing.counts.probes);
  mirroredCounter(registry, 'paypulse_route_fail_open_total', 'Decisions where every candidate was open (least bad channel answered).', () => routing.counts.failOpen);
  mirroredCounter(registry, 'paypulse_route_stale_total', 'Decisions answered from the last known health because the store could not be read.', () => routing.counts.stale);
  mirroredCounter(registry, 'paypulse_route_series_refused_total', 'Dims series not routed on because a per-channel limit was reached.', () => routing.refusedSeries);
  new client.Gauge({
    name: 'paypulse_breaker_state',
    help: 'Breaker state as this instance knows it: 0 closed, 1 half-open, 2 open.',
    labelNames: ['channel', 'scope', 'mode'],
    registers: [registry],
    collect() {
      this.reset();
      for (const view of routing.breakerStates().slice(0, maxBreakerSeries)) {
        this.set({ channel: view.channel, scope: view.scope, mode: view.mode }, stateValue[view.state]);
      }
    },
  });
  const changes = new client.Counter({
    name: 'paypulse_breaker_changes_total',
    help: 'Breaker state changes this instance has seen, by new state.',
    labelNames: ['to'],
    registers: [registry],
  });
  return { countBreakerChange: (view) => changes.inc({ to: view.state }) };
}
