// The layouts TypeScript and Lua share (src/store/redis/layouts.ts) are what the Lua side uses: the
// positions by reading the scripts, the packed numbers by a round trip through a real Redis.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type LocalRedis } from '../support/redisServer.js';
import { hashId } from '../../src/stats/hash.js';
import { resolveSettings } from '../../src/stats/settings.js';
import { channelPrefix } from '../../src/store/keys/stats.js';
import { RecordCode, StatusCode, type StoredOutcome } from '../../src/store/ports/stats.js';
import { RedisConnection } from '../../src/store/redis/connection.js';
import { channelScriptArgv, lastNRecord, ledgerField, ledgerState, recordBatch } from '../../src/store/redis/layouts.js';
import { luaDir } from '../../src/store/redis/scripts.js';
import { RedisStatsStore } from '../../src/store/redis/statsStore.js';
import type { Strategy } from '../../src/types.js';

const include = (name: string) => readFileSync(join(luaDir, 'includes', name), 'utf8');

describe('positions, read from the Lua', () => {
  it('tally-keys.lua writes out each counter field’s second names as the field’s letter and the second', () => {
    const tally = include('tally-keys.lua');
    const letters = /^local SUCCESSES, FAILURES, STARTED, OPEN_PENDING = (.+)$/m.exec(tally)![1]!.split(', ').map((l) => l.replace(/'/g, ''));
    const table = /^local secondFields = \{\n([\s\S]*?)\n\}$/m.exec(tally)![1]!;
    const names = new Map([...table.matchAll(/\[(\w+)\] = \{ \[0\] = ([^}]*)\}/g)].map((m) => [m[1], m[2]!.match(/'\w+'/g)!.map((n) => n.slice(1, -1))]));
    ['SUCCESSES', 'FAILURES', 'STARTED', 'OPEN_PENDING'].forEach((field, i) => {
      expect(names.get(field)).toEqual(Array.from({ length: 60 }, (_, second) => `${letters[i]}${second}`));
    });
  });

  it('header.lua reads each setting from the ARGV position layouts.ts gives it', () => {
    // The Lua locals drop the unit the TypeScript names carry.
    const luaName: Record<string, string> = { pendingTimeoutMs: 'pendingTimeout', horizonMs: 'horizon', retentionMs: 'retention', skewToleranceMs: 'skew' };
    const header = include('header.lua');
    const reads = new Map([...header.matchAll(/^local (\w+) = (?:tonumber\()?ARGV\[(\d+)\]\)?$/gm)].map((m) => [Number(m[2]), m[1]]));
    expect(reads.size).toBeGreaterThanOrEqual(channelScriptArgv.length - 1);
    for (const [position, name] of reads) expect([position, name]).toEqual([position, luaName[channelScriptArgv[position - 1]] ?? channelScriptArgv[position - 1]]);
    // The one setting the script does not read is still documented in its place.
    const documented = new Map([...header.matchAll(/\[(\d+)\] (\w+)/g)].map((m) => [Number(m[1]), m[2]]));
    channelScriptArgv.forEach((name, i) => expect([i + 1, documented.get(i + 1)]).toEqual([i + 1, name]));
    expect(Number(/^local OP_ARGS = (\d+)$/m.exec(header)?.[1])).toBe(channelScriptArgv.length + 1);
  });

  it("record.lua reads the record batch's values where layouts.ts puts them", () => {
    const ops = include('record.lua');
    const [, clientCountValues, outcomeValues, plainValues] = /local CLIENT_COUNT_VALUES, OUTCOME_VALUES, PLAIN_VALUES = (\d+), (\d+), (\d+)/.exec(ops)!;
    expect(Number(clientCountValues)).toBe(recordBatch.clientCountValues.length);
    expect(Number(outcomeValues)).toBe(recordBatch.outcomeValues.length);
    // A plain success ends with its status: its code and group are left out.
    expect(Number(plainValues)).toBe(recordBatch.outcomeValues.indexOf('status') + 1);
    expect(Number(/local PLAIN_SUCCESS = (\d+)/.exec(ops)![1])).toBe(recordBatch.plainSuccess);
    expect([StatusCode.Pending, StatusCode.Failure, StatusCode.Success]).not.toContain(recordBatch.plainSuccess);
    // Each outcome value, by the Lua local it lands in.
    const luaName: Record<string, string> = { ledgerState: 'newState', ledgerField: 'field', ledgerShard: 'clientShard', ledgerKey: 'clientKey', seriesGroup: 'group' };
    const offsets = new Map<string, number>();
    for (const m of ops.matchAll(/^\s*(?:local )?(\w[\w, ]*) = ((?:batch\[k(?: \+ \d)?\](?:, )?)+)$/gm)) {
      const names = m[1].split(', ');
      [...m[2].matchAll(/batch\[k(?: \+ (\d))?\]/g)].forEach((b, i) => offsets.set(names[i], Number(b[1] ?? 0)));
    }
    recordBatch.outcomeValues.forEach((name, i) => expect([name, offsets.get(luaName[name] ?? name)]).toEqual([name, i]));
    // Client counts: the call passes batch[i + 1 … 5] to count-buckets' addClientCounts in its order.
    expect(ops).toMatch(/addClientCounts\(groups\[batch\[i \+ 1\]\], batch\[i \+ 2\], batch\[i \+ 3\], batch\[i \+ 4\], batch\[i \+ 5\]\)/);
    const params = /local function addClientCounts\(([^)]*)\)/.exec(include('count-buckets-writes.lua'))![1].split(', ');
    const paramName: Record<string, string> = { seriesGroup: 'seriesList', second: 'sec' };
    expect(params).toEqual(recordBatch.clientCountValues.map((n) => paramName[n] ?? n));
  });
});

describe('packed numbers, through Redis', () => {
  let redis: LocalRedis;
  let conn: RedisConnection;
  beforeAll(async () => {
    redis = await startRedis();
    conn = await RedisConnection.connect({ url: redis.url });
  });
  afterAll(async () => {
    await conn?.close();
    await redis?.stop();
  });

  const now = Date.UTC(2026, 0, 1, 12, 0, 30);
  let namespaces = 0;
  function storeFor(strategy: Strategy) {
    const settings = resolveSettings({ strategy, namespace: `layout${++namespaces}` });
    const store = new RedisStatsStore(conn, settings);
    const prefix = channelPrefix(settings.namespace, 'c');
    // A channel this small has one ledger shard: 0.
    const key = `${prefix}lh:0`;
    const fieldOf = (requestId: string) => ledgerField.encode(hashId(requestId), requestId);
    const outcome = (requestId: string, status: StatusCode, at: number): StoredOutcome => ({ requestId, status, at, code: '', series: [''], hash: hashId(requestId) });
    const record = (...outcomes: StoredOutcome[]) => store.recordBatch('c', outcomes, now, 5_000);
    const stateOf = async (requestId: string) => ledgerState.decode(Number(await conn.command(key, ['HGET', key, fieldOf(requestId)])), now);
    const setState = (requestId: string, state: number) => conn.command(key, ['HSET', key, fieldOf(requestId), String(state)]);
    return { store, prefix, outcome, record, stateOf, setState };
  }

  it.each(['buckets'] as const)('%s: Lua writes the ledger state layouts.ts decodes, and decodes what it encodes', async (strategy) => {
    const s = storeFor(strategy);
    expect(await s.record(s.outcome('sent', StatusCode.Pending, now - 2_000))).toEqual([RecordCode.Accepted]);
    expect(await s.stateOf('sent')).toEqual({ at: now - 2_000, started: true, status: StatusCode.Pending });
    expect(await s.record(s.outcome('sent', StatusCode.Failure, now - 1_000))).toEqual([RecordCode.Accepted]);
    expect(await s.stateOf('sent')).toEqual({ at: now - 1_000, started: true, status: StatusCode.Failure });

    // States written by TypeScript: the script must read each status back.
    await s.setState('failed', ledgerState.encode(now - 5_000, false, StatusCode.Failure));
    await s.setState('paid', ledgerState.encode(now - 5_000, false, StatusCode.Success));
    await s.setState('waiting', ledgerState.encode(now - 5_000, true, StatusCode.Pending));
    expect(
      await s.record(
        s.outcome('failed', StatusCode.Success, now - 500),
        s.outcome('paid', StatusCode.Failure, now - 500),
        s.outcome('waiting', StatusCode.Pending, now - 500),
      ),
    ).toEqual([RecordCode.Corrected, RecordCode.Duplicate, RecordCode.Duplicate]);
    expect(await s.stateOf('failed')).toEqual({ at: now - 500, started: false, status: StatusCode.Success });
  });

  /** The bytes of a string key as numbers: a string reply would be decoded as UTF-8. */
  const bytesOf = async (key: string) => (await conn.command(key, ['EVAL', "return { string.byte(redis.call('GET', KEYS[1]), 1, -1) }", 1, key])) as number[];
  const keysLike = async (pattern: string) => ((await conn.command(pattern, ['SCAN', 0, 'MATCH', pattern, 'COUNT', 10_000])) as [string, string[]])[1];
  const byMs = (a: { msInSecond: number; removed: boolean }, b: { msInSecond: number; removed: boolean }) => a.msInSecond - b.msInSecond || Number(a.removed) - Number(b.removed);

  it("buckets: the script's last-N records, and the client's, decode with layouts.ts (a quiet second: in its minute's detail)", async () => {
    const s = storeFor('buckets');
    const sec = Math.floor(now / 1000) - 1;
    // A failure (client record), then its correction: the script adds a `removed` record for the failure.
    await s.record(s.outcome('r', StatusCode.Failure, sec * 1000 + 123));
    expect(await s.record(s.outcome('r', StatusCode.Success, sec * 1000 + 456))).toEqual([RecordCode.Corrected]);
    expect(await keysLike(`${s.prefix}d:*`)).toEqual([]);
    const keys = await keysLike(`${s.prefix}dm:*`);
    expect(keys).toEqual([`${s.prefix}dm::${Math.floor(sec / 60)}`]);
    const bytes = await bytesOf(keys[0]);
    const tagged = lastNRecord.bytes + 1;
    expect(bytes.length % tagged).toBe(0);
    const records = [];
    for (let i = 0; i < bytes.length; i += tagged) {
      expect(bytes[i]).toBe(sec % 60);
      records.push(lastNRecord.decode(bytes[i + 1], bytes[i + 2]));
    }
    expect(records.sort(byMs)).toEqual([
      { msInSecond: 123, success: false, removed: false },
      { msInSecond: 123, success: false, removed: true },
      { msInSecond: 456, success: true, removed: false },
    ]);
    // And the script reads them as layouts.ts means them: the failure is gone, the success newest.
    expect(await s.store.readLastN('c', '', 5, now)).toEqual({ success: 1, failure: 0 });
  });

  it("buckets: a busy second's records go to the second's own detail, and reads merge both", async () => {
    const s = storeFor('buckets');
    const sec = Math.floor(now / 1000) - 1;
    const busy = Array.from({ length: 40 }, (_, i) => s.outcome(`b${i}`, i < 37 ? StatusCode.Success : StatusCode.Failure, sec * 1000 + 100 + i));
    await s.record(...busy);
    await s.record(s.outcome('late', StatusCode.Failure, sec * 1000 + 999));
    const bytes = await bytesOf(`${s.prefix}d::${sec}`);
    expect(bytes.length).toBe(40 * lastNRecord.bytes);
    expect(lastNRecord.decode(bytes[0], bytes[1])).toEqual({ msInSecond: 100, success: true, removed: false });
    expect((await bytesOf(`${s.prefix}dm::${Math.floor(sec / 60)}`)).length).toBe(lastNRecord.bytes + 1);
    // The newest 4 of that second: the late failure (minute detail), then b39, b38, b37 (failures).
    expect(await s.store.readLastN('c', '', 4, now)).toEqual({ success: 0, failure: 4 });
    expect(await s.store.readLastN('c', '', 6, now)).toEqual({ success: 2, failure: 4 });
  });

  it('encode and decode are inverse within 37 hours of the reader', () => {
    const day = 86_400_000;
    for (const [at, started, status] of [[now, true, 3], [now - 2 * 3600_000, false, 1], [now + 60_000, false, 2]] as const) {
      expect(ledgerState.encode(at, started, status)).toBeLessThan(2 ** 31); // Redis's 4-byte integers
      // Readers whose clocks are a day and a half apart from the writer's all read the same time back.
      for (const readerNow of [at, at - 1.5 * day, at + 1.5 * day]) {
        expect(ledgerState.decode(ledgerState.encode(at, started, status), readerNow)).toEqual({ at, started, status });
      }
    }
    for (const ms of [0, 1, 500, 999]) {
      for (const success of [false, true]) {
        const v = lastNRecord.encode(ms, success, !success);
        expect(lastNRecord.decode(v >> 8, v & 0xff)).toEqual({ msInSecond: ms, success, removed: !success });
      }
    }
  });
});
