// Where a lane's bytes go: every key's MEMORY USAGE, summed by kind (the part of the key after the
// hash tag up to the next ':', e.g. `l` ledger shards, `d` last-N details, `window` the seed's sets).
import type { RedisConnection } from '../../src/store/redis/connection.js';

export interface KindUsage {
  kind: string;
  keys: number;
  bytes: number;
}

function kindOf(key: string): string {
  const tagEnd = key.indexOf('}:');
  const rest = tagEnd >= 0 ? key.slice(tagEnd + 2) : key.slice(key.indexOf(':') + 1);
  return rest.split(':')[0];
}

export async function usageByKind(redis: RedisConnection): Promise<KindUsage[]> {
  const byKind = new Map<string, KindUsage>();
  let cursor = '0';
  do {
    const [next, keys] = (await redis.command('', ['SCAN', cursor, 'COUNT', 1000])) as [string, string[]];
    cursor = next;
    const sizes = await Promise.all(keys.map((k) => redis.command(k, ['MEMORY', 'USAGE', k, 'SAMPLES', 0]) as Promise<number>));
    keys.forEach((key, i) => {
      const kind = kindOf(key);
      const usage = byKind.get(kind) ?? { kind, keys: 0, bytes: 0 };
      usage.keys += 1;
      usage.bytes += sizes[i] ?? 0;
      byKind.set(kind, usage);
    });
  } while (cursor !== '0');
  return [...byKind.values()].sort((a, b) => b.bytes - a.bytes);
}
