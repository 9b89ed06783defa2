// The record batch's MessagePack, read back by the reader that matters: Redis's own cmsgpack in Lua.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { PackWriter } from '../../../src/store/redis/msgpack.js';

let redis: LocalRedis;
let conn: RedisConnection;
beforeAll(async () => {
  redis = await startRedis();
  conn = await RedisConnection.connect({ url: redis.url });
});
afterAll(async () => {
  await conn.close();
  await redis.stop();
});

/**
 * What Lua reads: each value as text, numbers through %d (large integers stay exact), strings as
 * their byte values (the reply would otherwise be read as UTF-8).
 */
async function luaReads(packed: Buffer): Promise<string[]> {
  const script = `local out = {}
for i, v in ipairs(cmsgpack.unpack(ARGV[1])) do
  out[i] = type(v) == 'number' and ('n' .. string.format('%d', v)) or ('s' .. table.concat({ string.byte(v, 1, -1) }, ','))
end
return out`;
  const reply = (await conn.command('', ['EVAL', script, 0, packed])) as Array<string | Buffer>;
  return reply.map(String);
}

describe('PackWriter', () => {
  it('writes integers, decimal text, strings and bytes that Lua reads back exactly', async () => {
    const ids = ['ord_0000000000000001', 'заказ-№7', 'ascii then é', '订单🙂', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(86), 'y'.repeat(300), ''];
    const numbers = [0, 1, 127, 128, 255, 256, 0xffff, 0x10000, 0xffffffff, 0x100000000, 14_150_995_200_003, Number.MAX_SAFE_INTEGER];
    const decimals = [0, 7, 9, 10, 99, 100, 16_383, 99_999_999, 100_000_000, 100_000_001, 10_000_000_000_000, 14_150_995_200_003, Number.MAX_SAFE_INTEGER];
    const w = new PackWriter(16); // small on purpose: the buffer has to grow
    for (const id of ids) w.str(id);
    for (const n of numbers) w.int(n);
    for (const d of decimals) w.decimal(d);
    w.bytes(Buffer.from([0, 1, 10, 127, 128, 255]));
    const bytesOf = (b: Buffer) => `s${[...b].join(',')}`;
    expect(await luaReads(w.finish())).toEqual([
      ...ids.map((id) => bytesOf(Buffer.from(id))),
      ...numbers.map((n) => `n${n}`),
      ...decimals.map((d) => bytesOf(Buffer.from(String(d)))),
      bytesOf(Buffer.from([0, 1, 10, 127, 128, 255])),
    ]);
  });
});
