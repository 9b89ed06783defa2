// The Redis server's own health, read periodically from INFO and SLOWLOG on every master (docs/storage.md,
// "Redis health"): memory against maxmemory, clients against maxclients, slow commands per minute (other
// clients' apart from our own calls),
// replication lag and the keyspace hit rate — what an operator alerts on before Redis starts refusing writes.
import { ownClientName, type RedisConnection, type RedisReply } from './connection.js';

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
  /** Other clients' slow-log entries added since the previous sample, per minute; null on the first sample. */
  slowCommandsPerMinute: number | null;
  /** Our own calls' slow-log entries (connections named `paypulse`) per minute; null on the first sample. */
  ownSlowCallsPerMinute: number | null;
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

/** Slow-log entries read per master and sample: past it, the entries not read count as other clients'. */
const slowEntriesRead = 128;

interface SlowLog {
  /** The newest entry's id (ids only grow while the server runs), or -1 when the log is empty. */
  newestId: number;
  /** Ids of the entries read that our own connections made. */
  ownIds: number[];
}

/** SLOWLOG GET n → its newest id and which of its entries are ours (an entry's sixth field is the client name). */
function slowLogOf(reply: RedisReply): SlowLog {
  const entries = Array.isArray(reply) ? reply.filter(Array.isArray) : [];
  const first = entries[0];
  const ownIds = entries.filter((e) => e[5] === ownClientName && typeof e[0] === 'number').map((e) => e[0] as number);
  return { newestId: first && typeof first[0] === 'number' ? first[0] : -1, ownIds };
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
      this.redis.onEveryMaster(['SLOWLOG', 'GET', String(slowEntriesRead)]),
    ]);
    const nodes = infos.map(parseNodeInfo);
    const logs = slowLogs.map(slowLogOf);
    const slowIds = logs.map((l) => l.newestId);
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
      ...slowRates(previous, logs, now),
      replicationLagSeconds: Math.max(0, ...nodes.map((n) => n.lagSeconds)),
      keyspaceHitRatio: previous ? hitRatio(hits - previous.hits, misses - previous.misses) : null,
    };
  }
}

function slowRates(previous: Previous | undefined, logs: SlowLog[], now: number): Pick<RedisServerHealth, 'slowCommandsPerMinute' | 'ownSlowCallsPerMinute'> {
  if (!previous) return { slowCommandsPerMinute: null, ownSlowCallsPerMinute: null };
  let added = 0;
  let own = 0;
  logs.forEach((log, i) => {
    // A restarted server (or a changed master list) starts its ids again: count what it holds now.
    const before = log.newestId >= (previous.slowIds[i] ?? -1) ? (previous.slowIds[i] ?? -1) : -1;
    added += log.newestId - before;
    own += log.ownIds.filter((id) => id > before).length;
  });
  const minutes = Math.max(now - previous.at, 1) / 60_000;
  return { slowCommandsPerMinute: (added - own) / minutes, ownSlowCallsPerMinute: own / minutes };
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
