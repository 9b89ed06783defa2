// A failure with an excused code counts in its series and in their excused twins; the success that corrects it
// takes it back from all of them, twins included, whatever series the success names. Store level: the twins
// are read by routing, not through the public rate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings, strategies } from '../../../src/stats/settings.js';
import { excusedSeriesId } from '../../../src/stats/series.js';
import { MemoryStatsStore } from '../../../src/store/memory/statsStore.js';
import { RecordCode, StatusCode, type StatsStore, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import type { Strategy } from '../../../src/types.js';
import { startRedis, type LocalRedis } from '../../support/redisServer.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 30);
let redis: LocalRedis | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let sequence = 0;
const engines: Array<{ name: string; open(): Promise<{ store: StatsStore; close(): Promise<void> }> }> = [
  { name: 'memory', open: async () => ({ store: new MemoryStatsStore(resolveSettings({})), close: async () => undefined }) },
  ...strategies.map((strategy) => ({
    name: `redis/${strategy}`,
    open: async () => {
      const connection = await RedisConnection.connect({ url: redis!.url, commandTimeoutMs: 5_000 });
      const store = new RedisStatsStore(connection, resolveSettings({ namespace: `x${process.pid}-${++sequence}`, strategy }));
      return { store, close: () => connection.close() };
    },
  })),
];

const card = 'method=card';
const wallet = 'method=wallet';
const outcome = (status: StatusCode, at: number, series: string[], code = ''): StoredOutcome => ({ requestId: 'n1', status, at, code, series, hash: hashId('n1') });

describe.each(engines)('an excused failure corrected on $name', (engine) => {
  it('leaves no failure in the series or the twins it was counted in', async () => {
    const { store, close } = await engine.open();
    try {
      const counted = ['', card, excusedSeriesId(''), excusedSeriesId(card)];
      expect(await store.recordBatch('c', [outcome(StatusCode.Failure, now - 2_000, counted, 'issuer_down')], now, 5_000)).toEqual([RecordCode.Accepted]);
      expect(await store.recordBatch('c', [outcome(StatusCode.Success, now - 1_000, ['', wallet])], now, 5_000)).toEqual([RecordCode.Corrected]);
      const read = async (series: string) => {
        const [w] = await store.readWindows('c', series, [60], now);
        return [w!.success, w!.failure];
      };
      expect({
        channel: await read(''),
        twin: await read(excusedSeriesId('')),
        card: await read(card),
        cardTwin: await read(excusedSeriesId(card)),
        wallet: await read(wallet),
      }).toEqual({ channel: [1, 0], twin: [0, 0], card: [0, 0], cardTwin: [0, 0], wallet: [1, 0] });
    } finally {
      await close();
    }
  });
});
