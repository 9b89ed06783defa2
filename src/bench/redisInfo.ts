// Reads the numbers a benchmark compares from a Redis server's INFO.
import type { RedisConnection } from '../store/redis/connection.js';

export interface RedisSample {
  cpuSec: number;
  usedMemory: number;
  evalUsec: number;
  evalCalls: number;
}

function field(info: string, name: string): number {
  const match = new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info);
  return match ? Number(match[1]) : 0;
}

function commandStat(info: string, command: string): { calls: number; usec: number } {
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+),usec=(\\d+)`, 'm').exec(info);
  return match ? { calls: Number(match[1]), usec: Number(match[2]) } : { calls: 0, usec: 0 };
}

/** Sums over every master (one on a standalone server). */
export async function sampleRedis(redis: RedisConnection): Promise<RedisSample> {
  const infos = (await redis.onEveryMaster(['INFO', 'all'])) as string[];
  const sample: RedisSample = { cpuSec: 0, usedMemory: 0, evalUsec: 0, evalCalls: 0 };
  for (const info of infos) {
    sample.cpuSec += field(info, 'used_cpu_user') + field(info, 'used_cpu_sys');
    sample.usedMemory += field(info, 'used_memory');
    for (const cmd of ['evalsha', 'eval']) {
      const stat = commandStat(info, cmd);
      sample.evalUsec += stat.usec;
      sample.evalCalls += stat.calls;
    }
  }
  return sample;
}
