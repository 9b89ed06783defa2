// The `seed` lane: the plain sorted-set design PayPulse started from (a published write-up of real-time
// channel success rates on Redis sorted sets), kept exactly as that write-up gives it, as the baseline the
// strategies are judged against (docs/benchmarks.md, Engine): per terminal outcome `ZADD all` and, on
// success, `ZADD succ`, member `channel:requestId`, score the completion time (ms), one pipeline per batch,
// no Lua on the write path; its read is one Lua call (trim both sets below the window, then ZCOUNT both).
// Its keys are the design's own, built here because this lane is not PayPulse and must not go through
// PayPulse's key module.
import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import type { Outcome } from '../../src/types.js';

const rateSource = `
local startMs, endMs = ARGV[1], ARGV[2]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. startMs)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. startMs)
return { redis.call('ZCOUNT', KEYS[1], startMs, endMs), redis.call('ZCOUNT', KEYS[2], startMs, endMs) }
`;
const rateSha = createHash('sha1').update(rateSource).digest('hex');

function seedKeys(channel: string): { all: string; succ: string } {
  return { all: `bench:payflow:{${channel}}:window:all`, succ: `bench:payflow:{${channel}}:window:succ` };
}

export class SeedLane {
  private constructor(private readonly client: RedisClientType) {}

  static async open(url: string): Promise<SeedLane> {
    const client = createClient({ url }) as RedisClientType;
    await client.connect();
    await client.sendCommand(['SCRIPT', 'LOAD', rateSource]);
    return new SeedLane(client);
  }

  /**
   * The design's write path; pendings are not terminal, so the seed writes nothing for them.
   * Returns how many outcomes were already in `all` (ZADD answers 0): the requests it deduplicated.
   */
  async recordMany(outcomes: Outcome[]): Promise<number> {
    const pipeline = this.client.multi();
    for (const o of outcomes) {
      if (o.status === 'pending') continue;
      const keys = seedKeys(o.channel);
      const member = `${o.channel}:${o.requestId}`;
      pipeline.addCommand(['ZADD', keys.all, String(o.at), member]);
      if (o.status === 'success') pipeline.addCommand(['ZADD', keys.succ, String(o.at), member]);
    }
    const replies = (await pipeline.execAsPipeline()) as unknown as number[];
    let known = 0, reply = 0;
    for (const o of outcomes) {
      if (o.status === 'pending') continue;
      if (replies[reply] === 0) known++;
      reply += o.status === 'success' ? 2 : 1;
    }
    return known;
  }

  /** The design's window read over [now − windowMs, now]: total and successes. */
  async rate(channel: string, windowMs: number, now: number): Promise<{ total: number; success: number }> {
    const keys = seedKeys(channel);
    const [total, success] = (await this.client.sendCommand(['EVALSHA', rateSha, '2', keys.all, keys.succ, String(now - windowMs), String(now)])) as number[];
    return { total, success };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
