// The Redis server's health as gauges (pulse.storeServer, sampled every 15 s from INFO and SLOWLOG), for the
// rules `paypulse rules` prints: memory over 80 %/90 % of maxmemory, clients over 80 % of maxclients,
// more than 10 slow commands a minute from other clients, replication lag over 1 s. Absent on the embedded store.
import client from 'prom-client';
import type { RedisServerHealth } from '../../store/redis/serverHealth.js';

type Pick = (h: RedisServerHealth) => number | null;

const gauges: Array<[string, string, Pick]> = [
  ['paypulse_redis_memory_used_bytes', 'Memory Redis uses (INFO used_memory, all masters).', (h) => h.usedMemoryBytes],
  ['paypulse_redis_memory_max_bytes', 'Redis maxmemory (all masters); 0 when a master has no limit.', (h) => h.maxMemoryBytes],
  ['paypulse_redis_memory_used_ratio', "The fullest master's used_memory / maxmemory; absent without a limit.", (h) => h.memoryRatio],
  ['paypulse_redis_connected_clients', 'Clients connected to Redis (all masters).', (h) => h.connectedClients],
  ['paypulse_redis_max_clients', 'Redis maxclients (all masters).', (h) => h.maxClients],
  ['paypulse_redis_clients_ratio', "The busiest master's connected_clients / maxclients.", (h) => h.clientsRatio],
  ['paypulse_redis_slow_commands_per_minute', 'Other clients\' slow-log entries added per minute between the last two samples.', (h) => h.slowCommandsPerMinute],
  ['paypulse_redis_own_slow_calls_per_minute', 'Slow-log entries of PayPulse\'s own calls per minute between the last two samples.', (h) => h.ownSlowCallsPerMinute],
  ['paypulse_redis_replication_lag_seconds', 'Worst replica lag behind its primary, in seconds; 0 without replicas.', (h) => h.replicationLagSeconds],
  ['paypulse_redis_keyspace_hit_ratio', 'keyspace_hits / (hits + misses) between the last two samples; absent without lookups.', (h) => h.keyspaceHitRatio],
  ['paypulse_redis_info_sampled_seconds', 'Wall-clock time of the last INFO sample, epoch seconds: a stale one means Redis did not answer.', (h) => h.sampledAt / 1000],
];

export function registerRedisServerMetrics(registry: client.Registry, latest: () => RedisServerHealth | undefined): void {
  for (const [name, help, pick] of gauges) {
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        const sample = latest();
        const value = sample ? pick(sample) : null;
        if (value !== null) this.set(value);
      },
    });
  }
}
