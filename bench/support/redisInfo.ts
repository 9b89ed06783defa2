// Reads the numbers a benchmark compares from a Redis server's INFO; every benchmark reads INFO through here.
import type { RedisConnection } from '../../src/store/redis/connection.js';

export interface RedisSample {
  cpuSec: number;
  usedMemory: number;
  evalUsec: number;
  evalCalls: number;
  /** Commands the server has run (INFO stats total_commands_processed). */
  commands: number;
  keys: number;
}

function textField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];
}

function field(info: string, name: string): number {
  const match = /^[0-9.]+/.exec(textField(info, name) ?? '');
  return match ? Number(match[0]) : 0;
}

function commandStat(info: string, command: string): { calls: number; usec: number } {
  const match = new RegExp(`^cmdstat_${command}:calls=(\\d+),usec=(\\d+)`, 'm').exec(info);
  return match ? { calls: Number(match[1]), usec: Number(match[2]) } : { calls: 0, usec: 0 };
}

/** Sums over every master (one on a standalone server). */
export async function sampleRedis(redis: RedisConnection): Promise<RedisSample> {
  const infos = (await redis.onEveryMaster(['INFO', 'all'])) as string[];
  const sample: RedisSample = { cpuSec: 0, usedMemory: 0, evalUsec: 0, evalCalls: 0, commands: 0, keys: 0 };
  for (const info of infos) {
    sample.cpuSec += field(info, 'used_cpu_user') + field(info, 'used_cpu_sys');
    sample.usedMemory += field(info, 'used_memory');
    sample.commands += field(info, 'total_commands_processed');
    sample.keys += Number(/^db0:keys=(\d+)/m.exec(info)?.[1] ?? 0);
    for (const cmd of ['evalsha', 'eval']) {
      const stat = commandStat(info, cmd);
      sample.evalUsec += stat.usec;
      sample.evalCalls += stat.calls;
    }
  }
  return sample;
}

/** The server's version, for the result file (the first master's on a cluster). */
export async function redisVersion(redis: RedisConnection): Promise<string> {
  const [info] = (await redis.onEveryMaster(['INFO', 'server'])) as string[];
  return textField(info ?? '', 'redis_version') ?? 'unknown';
}
