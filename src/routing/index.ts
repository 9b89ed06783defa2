// How createPulse wires routing, in two steps: plan (settings, the series the snapshot must read, the windows
// it must hold) before the health snapshot exists, then start Routing over the snapshot and the coordination
// store (docs/routing.md).
import type { Clock } from '../clock.js';
import { PayPulseError } from '../errors.js';
import type { HealthSnapshots } from '../stats/healthSnapshot.js';
import type { ResolvedSettings } from '../stats/settings.js';
import type { CoordinationStore } from '../store/ports/coordination.js';
import type { PulseLogger } from '../types.js';
import { Routing } from './routing.js';
import { resolveRoutingSettings, routingWindows, type RoutingSettings } from './settings.js';
import { SeriesRegistry } from './seriesRegistry.js';
import type { BreakerTransition, BreakerView } from './sharedBreakers.js';
import type { RoutingOptions } from './types.js';

export interface RoutingPlan {
  settings: RoutingSettings;
  /** The snapshot's series source: the dims series decisions ask about, with their excused twins. */
  series: SeriesRegistry;
  /** Windows the snapshot must hold besides the configured ones. */
  windows: string[];
}

/** The routing settings of `options` for a stats engine so configured; throws PP_ERR_CONFIG naming the field. */
export function routingSettingsFor(options: RoutingOptions, stats: Pick<ResolvedSettings, 'dimensions' | 'excusedCodes'>): RoutingSettings {
  // Excused codes given to the pulse itself count for routing too: one list, as the stats engine keeps it.
  const settings = resolveRoutingSettings({ ...options, excusedCodes: [...new Set([...(options.excusedCodes ?? []), ...stats.excusedCodes])] });
  const known = new Set(stats.dimensions.map((set) => [...new Set(set)].sort().join(',')));
  settings.breaker.dims.forEach((set, i) => {
    if (!known.has(set.join(','))) {
      throw new PayPulseError('PP_ERR_CONFIG', `routing.breaker.dims[${i}] must be one of the configured dimensions, got [${set.join(', ')}]`, {
        field: `routing.breaker.dims[${i}]`,
      });
    }
  });
  return settings;
}

export function planRouting(options: RoutingOptions, stats: Pick<ResolvedSettings, 'dimensions' | 'excusedCodes'>): RoutingPlan {
  const settings = routingSettingsFor(options, stats);
  return { settings, series: new SeriesRegistry({ withExcused: settings.excusedCodes.size > 0 }), windows: routingWindows(settings) };
}

export interface StartRoutingDeps {
  snapshots: HealthSnapshots;
  coordination: CoordinationStore;
  stats: Pick<ResolvedSettings, 'dimensions' | 'minSamples' | 'namespace'>;
  clock: Clock;
  logger?: PulseLogger;
  onTransition?: (t: BreakerTransition) => void;
  onChange?: (view: BreakerView) => void;
  keepOverride?: (view: BreakerView) => Promise<void>;
}

/** Builds Routing; it follows the snapshot once `start()` is called (the pulse does on first use). */
export function startRouting(plan: RoutingPlan, deps: StartRoutingDeps): Routing {
  return new Routing({
    settings: plan.settings,
    snapshots: deps.snapshots,
    coordination: deps.coordination,
    namespace: deps.stats.namespace,
    clock: deps.clock,
    dimensions: deps.stats.dimensions,
    minSamples: deps.stats.minSamples,
    series: plan.series,
    logger: deps.logger,
    onTransition: deps.onTransition,
    onChange: deps.onChange,
    keepOverride: deps.keepOverride,
  });
}

export { Routing, type BreakerHandle } from './routing.js';
export type { RoutingSettings } from './settings.js';
export type { BreakerTransition, BreakerView } from './sharedBreakers.js';
export type { ExperimentReport } from './experiment.js';
export * from './types.js';
