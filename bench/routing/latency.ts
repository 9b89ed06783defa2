// Decision latency of the real router, in process: a warm cache (a simulated hour of traffic behind it),
// 4 candidates, dims {method}, default settings; each decide() timed on its own.
import { seededRandom } from '../../src/sim/random.js';
import { paypulsePolicy } from './paypulsePolicy.js';
import { simulate } from './simulate.js';
import { percentile } from './table.js';
import { candidatesOf, methods, World } from './world.js';

export interface LatencyResult {
  decisions: number;
  p50Us: number;
  p99Us: number;
  p999Us: number;
}

export async function measureDecisionLatency(decisions = 200_000): Promise<LatencyResult> {
  const world = new World(99, Date.UTC(2026, 0, 5), 3600_000);
  const policy = paypulsePolicy('latency', world.startMs, seededRandom(99), {});
  await simulate(world, policy);
  const times = new Float64Array(decisions);
  for (let i = 0; i < decisions; i++) {
    const method = methods[i % methods.length]!;
    const req = { candidates: candidatesOf[method], dims: { method }, requestId: `lat-${i}` };
    const t0 = performance.now();
    policy.routing.decide(req);
    times[i] = performance.now() - t0;
  }
  await policy.close();
  times.sort();
  return { decisions, p50Us: percentile(times, 50) * 1000, p99Us: percentile(times, 99) * 1000, p999Us: percentile(times, 99.9) * 1000 };
}
