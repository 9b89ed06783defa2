// The Redis server's own health, read periodically from INFO and SLOWLOG on every master (docs/storage.md,
// "Redis health"): memory against maxmemory, clients against maxclients, slow commands per minute,
// replication lag and the keyspace hit rate — what an operator alerts on before Redis starts refusing writes.
import type { RedisConnection, RedisReply } from './connection.js';

export interface RedisServerHealth {
  /** Clock time of the sample (wall clock: it describes a real server). */
  sampledAt: number;
  usedMemoryBytes: number;
  /** 0 when some master has no limit: memory is then bounded by the machine only. */
  maxMemoryBytes: number;
  /** The fullest master's used / maxmemory; null when a master has no limit. */
  memoryRatio: number | null;
  connectedClients: number;
  maxClients: number;
  /** The busiest master's clients / maxclients. */
  clientsRatio: number;
  /** Slow-log entries added since the previous sample, per minute; null on the first sample. */
  slowCommandsPerMinute: number | null;
  /** Worst replica lag behind its primary in seconds (INFO replication); 0 without replicas. */
  replicationLagSeconds: number;
  /** keyspace_hits / (hits + misses) since the previous sample; null without lookups or on the first sample. */
  keyspaceHitRatio: number | null;
}

interface NodeInfo {
  used: number;
  max: number;
  clients: number;
  maxClients: number;
  hits: number;
  misses: number;
  lagSeconds: number;
}

function numberField(info: string, name: string): number {
  const match = new RegExp(`^${name}:(-?[0-9.]+)`, 'm').exec(info);
  return match ? Number(match[1]) : 0;
}

/** The worst lag a primary reports of its replicas (`slaveN:…,lag=S`), or a replica's time since it last heard its primary. */
function lagOf(info: string): number {
  const replicaLags = [...info.matchAll(/^slave\d+:.*\blag=(\d+)/gm)].map((m) => Number(m[1]));
  if (/^role:slave/m.test(info)) replicaLags.push(numberField(info, 'master_last_io_seconds_ago'));
  return replicaLags.length > 0 ? Math.max(...replicaLags) : 0;
}

export function parseNodeInfo(info: string): NodeInfo {
  return {
    used: numberField(info, 'used_memory'),
    max: numberField(info, 'maxmemory'),
    clients: numberField(info, 'connected_clients'),
    maxClients: numberField(info, 'maxclients'),
    hits: numberField(info, 'keyspace_hits'),
    misses: numberField(info, 'keyspace_misses'),
    lagSeconds: lagOf(info),
  };
}

/** SLOWLOG GET 1 → the newest entry's id (ids only grow while the server runs), or -1 when the log is empty. */
function newestSlowId(reply: RedisReply): number {
  const first = Array.isArray(reply) ? reply[0] : undefined;
  return Array.isArray(first) && typeof first[0] === 'number' ? first[0] : -1;
}

interface Previous {
  at: number;
  slowIds: number[];
  hits: number;
  misses: number;
}

/** Takes samples on demand; each compares with the previous one for the per-minute and since-last figures. */
export class RedisServerHealthReader {
  private previous: Previous | undefined;

  constructor(private readonly redis: Pick<RedisConnection, 'onEveryMaster'>) {}

  async sample(now = Date.now()): Promise<RedisServerHealth> {
    const [infos, slowLogs] = await Promise.all([
      this.redis.onEveryMaster(['INFO']) as Promise<string[]>,
      this.redis.onEveryMaster(['SLOWLOG', 'GET', '1']),
    ]);
    const nodes = infos.map(parseNodeInfo);
    const slowIds = slowLogs.map(newestSlowId);
    const sum = (pick: (n: NodeInfo) => number) => nodes.reduce((total, n) => total + pick(n), 0);
    const hits = sum((n) => n.hits);
    const misses = sum((n) => n.misses);
    const previous = this.previous;
    this.previous = { at: now, slowIds, hits, misses };
    return {
      sampledAt: now,
      usedMemoryBytes: sum((n) => n.used),
      maxMemoryBytes: nodes.some((n) => n.max === 0) ? 0 : sum((n) => n.max),
      memoryRatio: nodes.some((n) => n.max === 0) ? null : Math.max(...nodes.map((n) => n.used / n.max)),
      connectedClients: sum((n) => n.clients),
      maxClients: sum((n) => n.maxClients),
      clientsRatio: Math.max(0, ...nodes.map((n) => (n.maxClients > 0 ? n.clients / n.maxClients : 0))),
      slowCommandsPerMinute: previous ? slowPerMinute(previous, slowIds, now) : null,
      replicationLagSeconds: Math.max(0, ...nodes.map((n) => n.lagSeconds)),
      keyspaceHitRatio: previous ? hitRatio(hits - previous.hits, misses - previous.misses) : null,
    };
  }
}

function slowPerMinute(previous: Previous, slowIds: number[], now: number): number {
  // A restarted server (or a changed master list) starts its ids again: count what it holds now.
  const added = slowIds.reduce((total, id, i) => total + (id >= (previous.slowIds[i] ?? -1) ? id - (previous.slowIds[i] ?? -1) : id + 1), 0);
  const minutes = Math.max(now - previous.at, 1) / 60_000;
  return added / minutes;
}

function hitRatio(hits: number, misses: number): number | null {
  // A restart resets the counters: no honest ratio for this interval.
  if (hits < 0 || misses < 0 || hits + misses === 0) return null;
  return hits / (hits + misses);
}

export interface ServerHealthSampler {
  /** The newest sample, or undefined before the first one succeeded. */
  latest(): RedisServerHealth | undefined;
  /** Samples now (tests, and a scrape that finds no sample yet). */
  sampleNow(): Promise<RedisServerHealth | undefined>;
  stop(): void;
}

/** INFO every `intervalMs` (default 15 s: a Prometheus scrape's pace, one small command per master each time). */
export function startServerHealthSampler(reader: RedisServerHealthReader, intervalMs = 15_000): ServerHealthSampler {
  let latest: RedisServerHealth | undefined;
  let running: Promise<RedisServerHealth | undefined> | null = null;
  // A store outage is reported by the store's own metrics; the last sample stays, its sampledAt says how old.
  const sampleNow = () =>
    (running ??= reader
      .sample()
      .then((sample) => (latest = sample))
      .catch(() => latest)
      .finally(() => {
        running = null;
      }));
  const timer = setInterval(() => void sampleNow(), intervalMs);
  timer.unref();
  void sampleNow();
  return { latest: () => latest, sampleNow, stop: () => clearInterval(timer) };
}
