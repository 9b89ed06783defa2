// A pulse on Redis with a durable spill in `dataDir`.
import type { Clock } from '../../src/clock.js';
import { createPulse } from '../../src/index.js';

export async function openSpillingEngine(options: { redisUrl: string; dataDir: string; namespace: string; clock: Clock }) {
  const pulse = await createPulse({ redis: options.redisUrl, dataDir: options.dataDir, namespace: options.namespace, clock: options.clock, recordTimeoutMs: 200 });
  return { engine: pulse, close: () => pulse.close() };
}
