// The trim rule (docs/decisions/110): a stream is cut below the oldest entry some group still needs, and
// never further. For each group that is its oldest pending entry, or, with nothing pending, its last
// delivered id (everything at or before it was acknowledged); the stream keeps every entry from the
// smallest of those on. Entries not yet delivered are all above every group's last delivered id, so they
// are never cut. Read-then-trim is safe without a transaction: a group's oldest pending id and its last
// delivered id only move forward, so a bound read a moment ago is still a bound when XTRIM runs.
// With no group at all nothing is trimmed: the gateway may write before the first instance starts.
import type { RedisConnection } from '../../store/redis/connection.js';
import { compareIds, fieldMap, groupInfos, oldestPendingId, type GroupInfo } from './streamReplies.js';

export interface TrimReport {
  /** The consumer group's own view, for the lag and pending metrics. */
  own?: GroupInfo;
  /** Entries removed by this trim. */
  trimmed: number;
  /** The id below which entries were removed; null when nothing could be trimmed. */
  minId: string | null;
}

type Commands = Pick<RedisConnection, 'command'>;

export async function trimAcknowledged(redis: Commands, key: string, ownGroup: string): Promise<TrimReport> {
  const groups = groupInfos(await redis.command(key, ['XINFO', 'GROUPS', key]));
  const own = groups.find((g) => g.name === ownGroup);
  if (groups.length === 0) return { own, trimmed: 0, minId: null };
  let minId: string | null = null;
  for (const group of groups) {
    const needed = group.pending > 0 ? oldestPendingId(await redis.command(key, ['XPENDING', key, group.name])) : null;
    const bound = needed ?? group.lastDeliveredId;
    if (minId === null || compareIds(bound, minId) < 0) minId = bound;
  }
  if (minId === null || minId === '0-0') return { own, trimmed: 0, minId: null };
  const trimmed = Number(await redis.command(key, ['XTRIM', key, 'MINID', minId]));
  return { own, trimmed, minId };
}

/**
 * Each restart joins the group under a new name. A consumer with nothing pending that has not read for
 * `staleMs` is gone; removing it loses nothing (DELCONSUMER drops only pending entries, and it has none),
 * and keeps the group's consumer list bounded. A live consumer reads every blockMs, far below `staleMs`.
 */
export async function removeStaleConsumers(redis: Commands, key: string, group: string, self: string, staleMs: number): Promise<number> {
  const rows = await redis.command(key, ['XINFO', 'CONSUMERS', key, group]);
  if (!Array.isArray(rows)) return 0;
  let removed = 0;
  for (const row of rows) {
    const f = fieldMap(row);
    const name = String(f.get('name'));
    if (name === self || Number(f.get('pending') ?? 0) > 0 || Number(f.get('idle') ?? 0) < staleMs) continue;
    await redis.command(key, ['XGROUP', 'DELCONSUMER', key, group, name]);
    removed++;
  }
  return removed;
}
