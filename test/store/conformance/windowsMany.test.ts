// readWindowsMany, the health snapshot's read, answers exactly what per-series readWindows answers, on every
// engine and strategy: many channels in a call (several calls, several channels in one slot on a cluster),
// dims series, partial minutes at the windows' edges, corrections, duplicates, and pending requests whose
// timeouts are due in a channel that is not the call's first.
import { describe, expect, it } from 'vitest';
import { hashId } from '../../../src/stats/hash.js';
import { resolveSettings, strategies } from '../../../src/stats/settings.js';
import { clusterSlot } from '../../../src/store/keys/clusterSlot.js';
import { MemoryStatsStore } from '../../../src/store/memory/statsStore.js';
import { StatusCode, type ChannelSeries, type StatsStore, type StoredOutcome } from '../../../src/store/ports/stats.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisStatsStore } from '../../../src/store/redis/statsStore.js';
import type { Strategy } from '../../../src/types.js';
import { useRedisServers } from '../../support/statsEngines.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 30, 500); // mid-minute: every window has partial minutes at its edges
const windowsSec = [10, 60, 300, 3600];
const seriesIds = ['', 'currency=BRL', 'method=card'];
const pendingTimeoutMs = 60_000;
/** Channels per script call in these tests, so 11 channels take several calls. */
const channelsPerCall = 4;

/** A name other than `name` in the same cluster slot, so one call carries two channels on a cluster. */
function slotTwin(name: string, namespace: string): string {
  const slot = clusterSlot(`${namespace}:{${name}}:`);
  for (let i = 0; ; i++) if (clusterSlot(`${namespace}:{twin${i}}:`) === slot) return `twin${i}`;
}

let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

const outcome = (requestId: string, status: StatusCode, at: number, series: string[]): StoredOutcome => ({
  requestId,
  status,
  at,
  code: status === StatusCode.Failure ? 'E51' : '',
  series,
  hash: hashId(requestId),
});

/**
 * Traffic over the last 69 minutes, then a pending request not yet due at `now`; odd channels also hold two
 * pendings whose deadline passes between their record call and `now`.
 */
async function record(store: StatsStore, channel: string, index: number): Promise<void> {
  const outcomes: StoredOutcome[] = [];
  for (let i = 0; i < 40; i++) {
    const at = now - 31_000 - Math.floor(random() * 68 * 60_000);
    const series = random() < 0.5 ? ['', 'currency=BRL'] : ['', 'currency=BRL', 'method=card'];
    const status = random() < 0.8 ? StatusCode.Success : StatusCode.Failure;
    outcomes.push(outcome(`${channel}-r${i}`, status, at, series));
    if (status === StatusCode.Failure && i % 3 === 0) outcomes.push(outcome(`${channel}-r${i}`, StatusCode.Success, at + 2_000, series)); // corrected
    if (i % 7 === 0) outcomes.push(outcome(`${channel}-r${i}`, status, at, series)); // duplicate
  }
  outcomes.sort((a, b) => a.at - b.at);
  for (let i = 0; i < outcomes.length; i += 10) {
    const batch = outcomes.slice(i, i + 10);
    await store.recordBatch(channel, batch, batch.at(-1)!.at, 5_000);
  }
  const pendings = [outcome(`${channel}-waiting`, StatusCode.Pending, now - 30_000, ['', 'currency=BRL'])];
  if (index % 2 === 1) {
    pendings.push(outcome(`${channel}-late1`, StatusCode.Pending, now - 70_000, ['', 'method=card']));
    pendings.push(outcome(`${channel}-late2`, StatusCode.Pending, now - 65_000, ['']));
  }
  await store.recordBatch(channel, pendings, now - 30_000, 5_000); // before the late ones' deadlines
}

interface EngineCase {
  name: string;
  open(namespace: string): Promise<{ store: StatsStore; close(): Promise<void> }>;
}

const servers = useRedisServers();

const settingsFor = (namespace: string, strategy: Strategy = 'buckets') => resolveSettings({ namespace, strategy, pendingTimeoutMs, windows: ['10s', '1m', '5m', '1h'] });
const onRedis = (url: () => string, strategy: Strategy) => async (namespace: string) => {
  const connection = await RedisConnection.connect({ url: url(), commandTimeoutMs: 5_000, connectTimeoutMs: 10_000 });
  return { store: new RedisStatsStore(connection, settingsFor(namespace, strategy), channelsPerCall), close: () => connection.close() };
};
const engines: EngineCase[] = [
  { name: 'memory', open: async (namespace) => ({ store: new MemoryStatsStore(settingsFor(namespace)), close: async () => undefined }) },
  ...strategies.map((s) => ({ name: `redis/${s}`, open: onRedis(() => servers.redis!.url, s) })),
  ...strategies.map((s) => ({ name: `cluster/${s}`, open: onRedis(() => servers.cluster!.urls.join(','), s) })),
];

let namespaces = 0;

describe.each(engines)('readWindowsMany: $name', (engine) => {
  it('answers, channel by channel and series by series, what readWindows answers', async () => {
    const namespace = `wm${process.pid}-${++namespaces}`;
    const { store, close } = await engine.open(namespace);
    try {
      const written = ['alipay', 'заказ-№42', ...Array.from({ length: 7 }, (_, i) => `ch${i}`)];
      written.push(slotTwin('ch1', namespace));
      for (const [i, channel] of written.entries()) await record(store, channel, i);
      const channels = [...written, 'never-written'];
      const reads: ChannelSeries[] = channels.map((channel) => ({ channel, series: seriesIds }));
      const memoryChannels = store instanceof MemoryStatsStore ? store.channelCount : 0;

      const many = await store.readWindowsMany(reads, windowsSec, now);
      const single = await Promise.all(reads.map((r) => Promise.all(r.series.map((s) => store.readWindows(r.channel, s, windowsSec, now)))));
      expect(many).toEqual(single);

      // Not vacuous: counts in every window of a written channel, and the due pendings became failures
      // (the per-series read after the batch would still see them pending had the batch not swept them).
      const hour = windowsSec.indexOf(3600);
      expect(many[0]![0]![hour]!.success).toBeGreaterThan(0);
      const late = channels.indexOf('ch1'); // odd: its due pendings are read in a call that is not its own
      expect(many[late]![0]![hour]).toMatchObject({ pending: 1 });
      expect(many[late]![2]![hour]!.failure).toBeGreaterThan(0);
      expect(many.at(-1)).toEqual(seriesIds.map(() => windowsSec.map(() => ({ success: 0, failure: 0, started: 0, pending: 0 }))));
      if (store instanceof MemoryStatsStore) expect(store.channelCount).toBe(memoryChannels); // the unknown name left no state
    } finally {
      await close();
    }
  }, 60_000);

  it('turns the first channel’s due timeouts into failures before it counts them', async () => {
    const namespace = `wm${process.pid}-${++namespaces}`;
    const { store, close } = await engine.open(namespace);
    try {
      const channels = ['ch0', 'ch1', 'ch2']; // the first test's indexes 2–4: ch1, odd, has timeouts due at `now`
      for (const [i, channel] of channels.entries()) await record(store, channel, i + 2);
      const reads: ChannelSeries[] = ['ch1', 'ch0', 'ch2'].map((channel) => ({ channel, series: seriesIds }));

      const many = await store.readWindowsMany(reads, windowsSec, now);
      const hour = windowsSec.indexOf(3600);
      expect(many[0]![0]![hour]).toMatchObject({ pending: 1 });
      expect(many[0]![2]![hour]!.failure).toBeGreaterThan(0);
      const single = await Promise.all(reads.map((r) => Promise.all(r.series.map((s) => store.readWindows(r.channel, s, windowsSec, now)))));
      expect(many).toEqual(single);
    } finally {
      await close();
    }
  }, 60_000);

  it('answers an empty list, and a channel asked for no series, with nothing', async () => {
    const { store, close } = await engine.open(`wm${process.pid}-${++namespaces}`);
    try {
      expect(await store.readWindowsMany([], windowsSec, now)).toEqual([]);
      expect(await store.readWindowsMany([{ channel: 'a', series: [] }, { channel: 'b', series: [''] }], windowsSec, now)).toEqual([
        [],
        [windowsSec.map(() => ({ success: 0, failure: 0, started: 0, pending: 0 }))],
      ]);
    } finally {
      await close();
    }
  });
});

describe('clusterSlot', () => {
  it('agrees with CLUSTER KEYSLOT, hash tags included', async () => {
    const connection = await RedisConnection.connect({ url: servers.cluster!.urls.join(','), connectTimeoutMs: 10_000 });
    try {
      for (const key of ['ns:{alipay}:', 'ns:{заказ-№42}:b:', 'plain', '{}x', 'a{}{b}', 'x{y', '🙂{🙂}']) {
        expect({ key, slot: clusterSlot(key) }).toEqual({ key, slot: await connection.command(key, ['CLUSTER', 'KEYSLOT', key]) });
      }
    } finally {
      await connection.close();
    }
  });
});
