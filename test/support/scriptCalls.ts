// How many script calls (EVAL and EVALSHA) every master has run: what a test of call grouping counts.
import type { RedisConnection } from '../../src/store/redis/connection.js';

export async function scriptCalls(conn: RedisConnection): Promise<number> {
  const infos = (await conn.onEveryMaster(['INFO', 'commandstats'])) as string[];
  return infos.reduce((sum, info) => sum + [...info.matchAll(/cmdstat_eval(?:sha)?:calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0), 0);
}
