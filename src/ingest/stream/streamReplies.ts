// The replies of the stream commands the consumer sends, read into plain shapes. Commands go as raw arrays
// through the store's connection so the same code runs on one server, Sentinel and Cluster; node-redis still
// turns some replies into objects (XREADGROUP by stream key, XINFO rows by field), so both forms are read.
import type { RedisReply } from '../../store/redis/connection.js';
import type { StreamEntry } from './entryFields.js';

function entriesOf(list: RedisReply): StreamEntry[] {
  if (!Array.isArray(list)) return [];
  const entries: StreamEntry[] = [];
  for (const item of list) {
    // XAUTOCLAIM on Redis 6.2 lists an entry trimmed while pending with nil fields.
    if (!Array.isArray(item) || typeof item[0] !== 'string') continue;
    entries.push({ id: item[0], fields: Array.isArray(item[1]) ? (item[1] as string[]) : [] });
  }
  return entries;
}

/** XREADGROUP … STREAMS <one key>: the entries read, or none (nil when BLOCK timed out). */
export function readGroupEntries(reply: RedisReply): StreamEntry[] {
  if (reply === null || typeof reply !== 'object') return [];
  if (!Array.isArray(reply)) return entriesOf((Object.values(reply)[0] as RedisReply | undefined) ?? null);
  const stream = reply[0];
  return Array.isArray(stream) ? entriesOf(stream[1] ?? null) : [];
}

/** XAUTOCLAIM: the cursor to continue from ('0-0' when the scan is complete) and the entries claimed. */
export function autoClaimReply(reply: RedisReply): { cursor: string; entries: StreamEntry[] } {
  if (!Array.isArray(reply)) return { cursor: '0-0', entries: [] };
  return { cursor: typeof reply[0] === 'string' ? reply[0] : '0-0', entries: entriesOf(reply[1] ?? null) };
}

/** A flat `[name, value, name, value …]` reply as an object (XINFO GROUPS / CONSUMERS rows). */
export function fieldMap(row: RedisReply): Map<string, RedisReply> {
  const map = new Map<string, RedisReply>();
  if (row !== null && typeof row === 'object' && !Array.isArray(row)) return new Map(Object.entries(row as Record<string, RedisReply>));
  if (!Array.isArray(row)) return map;
  for (let i = 0; i + 1 < row.length; i += 2) map.set(String(row[i]), row[i + 1]!);
  return map;
}

export interface GroupInfo {
  name: string;
  pending: number;
  lastDeliveredId: string;
  /** Entries not yet delivered to the group; null when Redis cannot tell (after a deletion or trim it must estimate). */
  lag: number | null;
}

export function groupInfos(reply: RedisReply): GroupInfo[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((row) => {
    const f = fieldMap(row);
    const lag = f.get('lag');
    return {
      name: String(f.get('name')),
      pending: Number(f.get('pending') ?? 0),
      lastDeliveredId: String(f.get('last-delivered-id') ?? '0-0'),
      lag: lag === null || lag === undefined ? null : Number(lag),
    };
  });
}

/** XPENDING <key> <group> (summary form): the smallest pending id, or null when nothing is pending. */
export function oldestPendingId(reply: RedisReply): string | null {
  return Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : null;
}

/** Stream ids compare as two integers, `ms-seq`. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1;
}
