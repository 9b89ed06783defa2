// The success-rate engine on Redis with a durable spill in `dataDir`, as createPulse({ redis, dataDir }) builds it.
import { join } from 'node:path';
import type { Clock } from '../../src/clock.js';
import { SuccessRateEngine } from '../../src/stats/engine.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { DurableSpill } from '../../src/stats/spill/durableSpill.js';
import { SpillJournal } from '../../src/stats/spill/journal.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';

export async function openSpillingEngine(options: { redisUrl: string; dataDir: string; namespace: string; clock: Clock }) {
  const settings = resolveSettings({ namespace: options.namespace, recordTimeoutMs: 200 });
  const connection = await RedisConnection.connect({ url: options.redisUrl, commandTimeoutMs: 500 });
  const spill = new DurableSpill(await SpillJournal.open({ dir: join(options.dataDir, 'spill') }));
  const engine = new SuccessRateEngine(new RedisStatsStore(connection, settings), settings, options.clock, undefined, undefined, { spill });
  return {
    engine,
    async close() {
      await engine.close();
      await connection.close();
    },
  };
}
