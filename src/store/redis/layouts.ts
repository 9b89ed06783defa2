// The binary layouts the Redis engine shares with its Lua scripts, each defined here once.
// test/store/luaLayouts.test.ts checks the Lua side against these: the ARGV and batch positions by
// reading the scripts, the two packed numbers by a round trip through a real Redis.
import type { EngineSettings, StatusCode } from '../ports/stats.js';

/**
 * A request's ledger state, one integer `(at mod 2²⁸)·8 + started·4 + status` (status 1–3 in the low two
 * bits, started in bit 2): below 2³¹, which Redis keeps as a 4-byte signed integer where an epoch ms takes
 * 8. The reader takes the `at` with those low bits nearest to its own clock, exact within 37 hours either
 * side (header.lua: stateAt, packState). Sent as text, which Lua uses as it is.
 */
const STATE_SPAN = 2 ** 28;
export const ledgerState = {
  encode(at: number, started: boolean, status: StatusCode): number {
    return (at % STATE_SPAN) * 8 + (started ? 4 : 0) + status;
  },
  decode(state: number, now: number): { at: number; started: boolean; status: StatusCode } {
    const ref = now + STATE_SPAN / 2;
    const low = Math.floor(state / 8);
    return { at: ref - (((ref - low) % STATE_SPAN) + STATE_SPAN) % STATE_SPAN, started: Math.floor(state / 4) % 2 === 1, status: (state % 4) as StatusCode };
  },
};

/**
 * A request's field in its channel's ledger: the low 24 bits of its hash (hashId) in 3 bytes, high byte
 * first, then the id. The script finds the request's shard from those bits as the ledger grows (ledger.lua:
 * 18 of them address up to 4⁹ shards, the top 4 pick the new requests that check their shard's length), and
 * moves an entry to its new shard by its field alone.
 */
export const ledgerField = {
  hashBytes: 3,
  hashBits(hash: number): number {
    return hash & 0xffffff;
  },
  encode(hash: number, requestId: string): Buffer {
    const id = Buffer.from(requestId, 'utf8');
    const field = Buffer.allocUnsafe(3 + id.length);
    field.writeUIntBE(hash & 0xffffff, 0, 3);
    id.copy(field, 3);
    return field;
  },
};

/**
 * A request's ledger shard after `splits` splits (ledger.lua's setSplits and shardOf: linear hashing, each
 * split turning one shard into four, up to `maxShards`), and its key. The client sends both with each
 * outcome, from the split count of the channel's last reply, and that count once per channel; the script
 * takes them as sent while the channel has that many splits, and finds them otherwise.
 */
export const ledgerShard = {
  layout(splits: number, maxShards: number): { levelSize: number; splitNext: number } {
    let levelSize = 1;
    let splitNext = splits;
    while (splitNext >= levelSize && levelSize < maxShards) {
      splitNext -= levelSize;
      levelSize *= 4;
    }
    return { levelSize, splitNext };
  },
  of(hashBits: number, layout: { levelSize: number; splitNext: number }): number {
    const shard = hashBits % layout.levelSize;
    return shard < layout.splitNext ? hashBits % (layout.levelSize * 4) : shard;
  },
  key(prefix: string, shard: number): string {
    return `${prefix}lh:${shard}`;
  },
};

/**
 * One outcome in a second's last-N detail string, 2 bytes big-endian: `ms·4 + success·2 + removed`,
 * ms within the second (0–999, so at most 3,997: 12 bits). `removed` takes back an earlier record of
 * the same outcome (an upgraded failure). Written by clientCounts.ts and count-buckets-writes.lua, read by
 * lastn-seconds.lua.
 */
export const lastNRecord = {
  bytes: 2,
  /** The record as one number; its high byte goes first (no array per outcome on the record path). */
  encode(msInSecond: number, success: boolean, removed: boolean): number {
    return msInSecond * 4 + (success ? 2 : 0) + (removed ? 1 : 0);
  },
  decode(hi: number, lo: number): { msInSecond: number; success: boolean; removed: boolean } {
    const value = hi * 256 + lo;
    return { msInSecond: value >> 2, success: (value & 2) !== 0, removed: (value & 1) !== 0 };
  },
};

/** ARGV[1..8] of every channel script (header.lua), in order; the operation's own arguments follow. */
export const channelScriptArgv = [
  'now',
  'pendingTimeoutMs',
  'horizonMs',
  'retentionMs',
  'lastNMax',
  'failuresMax',
  'ledgerShards',
  'skewToleranceMs',
] as const;

type SettingName = Exclude<(typeof channelScriptArgv)[number], 'now'>;
const settingNames = channelScriptArgv.slice(1) as SettingName[];

/** The positional ARGV of one channel script call. */
export function channelScriptArgs(now: number, settings: EngineSettings): Array<string | number> {
  const args: Array<string | number> = [now];
  for (const name of settingNames) args.push(settings[name]);
  return args;
}

/**
 * The channels of an operation for several (recordMany, windowsMany, windowsDelta; channels.lua's channelList):
 * the number of slots, each slot's count of channels, then their prefixes, a slot's together.
 */
export function channelListArgs(prefixesBySlot: string[][]): Array<string | number> {
  return [prefixesBySlot.length, ...prefixesBySlot.map((slot) => slot.length), ...prefixesBySlot.flat()];
}

/** The `record` operation's MessagePack batch (record.lua): values per client count, then per outcome. */
export const recordBatch = {
  clientCountValues: ['seriesGroup', 'second', 'successes', 'failures', 'records'],
  // No requestId: the script takes it from the ledger field, after the hash bytes (record.lua).
  outcomeValues: ['ledgerState', 'ledgerField', 'ledgerShard', 'ledgerKey', 'status', 'code', 'seriesGroup'],
  /** The status of a success without a code in the first series group, sent without its code and group. */
  plainSuccess: 0,
} as const;
