// The stream consumer of `paypulse serve` (docs/ingestion.md): reads the outcome streams as one member of a
// consumer group shared by the fleet, records each batch through the pulse, acknowledges what was recorded,
// dead-letters what can never be, takes over the entries of consumers that died (XAUTOCLAIM), and trims
// the streams below what every group acknowledged. It fails open: while Redis fails it backs off, says so
// once, and carries on when Redis is back; nothing of it reaches the HTTP path.
import { deadLetterStreamKey, outcomeStreamKey } from '../../store/keys/ingestStream.js';
import type { RedisArg, RedisConnection } from '../../store/redis/connection.js';
import { loadScript } from '../../store/redis/scripts.js';
import type { PulseLogger } from '../../types.js';
import { ingestEntries, type BatchRecorder, type DeadLetter, type DeadLetterClass } from './entryBatch.js';
import type { StreamEntry } from './entryFields.js';
import { autoClaimReply, readGroupEntries } from './streamReplies.js';
import type { StreamSettings } from './streamSettings.js';
import { removeStaleConsumers, trimAcknowledged } from './streamTrim.js';

const deadLetterScript = loadScript('ingestDeadLetter-2.lua');
/** Backoff while Redis fails: short at first (a blip), then at most this long between attempts. */
const maxBackoffMs = 5_000;
/** Claimed entries taken in one XAUTOCLAIM scan before the next read, so new entries are never starved. */
const maxClaimRounds = 10;

export interface StreamConsumerStats {
  recorded: number;
  deadLetters: Record<DeadLetterClass, number>;
  /** Entries left pending for a later delivery (store failing, or only a memory buffer took them). */
  unsettled: number;
  reclaimed: number;
  trimmed: number;
  errors: number;
  /** Per stream key: entries not yet delivered to the group (null: Redis cannot tell) and pending with it. */
  streams: Map<string, { lag: number | null; pending: number }>;
}

export interface StreamConsumerOptions {
  redis: Pick<RedisConnection, 'command' | 'runScript'>;
  recorder: BatchRecorder;
  namespace: string;
  settings: StreamSettings & { consumer: string };
  /** A data folder is configured: outcomes the store could not take go to the fsync'd journal. */
  spillIsDurable: boolean;
  logger?: PulseLogger;
  /** Commands other than the blocking read; the read waits blockMs more. */
  commandTimeoutMs?: number;
}

export interface StreamConsumer {
  readonly consumerName: string;
  readonly keys: string[];
  stats(): StreamConsumerStats;
  /** Finishes the batch in hand (recorded and acknowledged), then stops reading. */
  stop(): Promise<void>;
}

export function startStreamConsumer(options: StreamConsumerOptions): StreamConsumer {
  return new GroupConsumer(options);
}

class GroupConsumer implements StreamConsumer {
  readonly keys: string[];
  readonly consumerName: string;
  private readonly counts: StreamConsumerStats = { recorded: 0, deadLetters: { validation: 0, limit: 0 }, unsettled: 0, reclaimed: 0, trimmed: 0, errors: 0, streams: new Map() };
  private stopping = false;
  private readonly loops: Promise<void>[];
  private readonly groupReady = new Set<string>();
  private failingSince: number | null = null;
  private readonly nextShard: number[];
  private nextClaimAt = 0;
  private nextTrimAt = 0;
  private readonly wakers = new Set<() => void>();

  constructor(private readonly options: StreamConsumerOptions) {
    this.consumerName = options.settings.consumer;
    this.keys = Array.from({ length: options.settings.shards }, (_, shard) => outcomeStreamKey(options.namespace, shard));
    this.nextShard = Array.from({ length: options.settings.concurrentBatches }, () => 0);
    this.loops = this.nextShard.map((_, worker) => this.run(worker));
  }

  stats(): StreamConsumerStats {
    return this.counts;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.wakers) wake();
    await Promise.all(this.loops);
  }

  private get timeoutMs(): number {
    return this.options.commandTimeoutMs ?? 2_000;
  }

  /**
   * Worker 0 keeps the group (creation, takeover, trim) and alone blocks on an empty stream: the workers share
   * one connection, where a blocking read holds up every command queued behind it. The others poll.
   */
  private async run(worker: number): Promise<void> {
    let backoffMs = 100;
    while (!this.stopping) {
      try {
        await this.step(worker);
        // Worker 0 alone reports the outage and its end: the workers share one connection, and a poller's
        // turn can pass without a command, so theirs would flap.
        if (worker === 0 && this.failingSince !== null) {
          this.options.logger?.info({ downMs: Date.now() - this.failingSince }, 'paypulse: stream consumer reading again');
          this.failingSince = null;
        }
        backoffMs = 100;
      } catch (err) {
        this.counts.errors++;
        if (isNoGroup(err)) {
          // The stream or the group went away (a flushed or restarted Redis): create it again at once.
          this.groupReady.clear();
          continue;
        }
        if (worker === 0 && this.failingSince === null) {
          this.failingSince = Date.now();
          this.options.logger?.warn({ err: String(err), streams: this.keys }, 'paypulse: stream consumer cannot reach Redis; backing off until it can');
        }
        await this.pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** One turn: upkeep when due, then one read of each shard, and a wait for new entries when all were empty. */
  private async step(worker: number): Promise<void> {
    if (worker > 0) return this.poll(worker);
    const now = Date.now();
    for (const key of this.keys) if (!this.groupReady.has(key)) await this.createGroup(key);
    if (now >= this.nextClaimAt) {
      this.nextClaimAt = now + this.options.settings.claimIntervalMs;
      for (const key of this.keys) await this.reclaim(key);
    }
    if (now >= this.nextTrimAt) {
      this.nextTrimAt = now + this.options.settings.trimIntervalMs;
      for (const key of this.keys) await this.trim(key);
    }
    if ((await this.readEachShard(worker)) || this.stopping) return;
    // Every shard empty: wait on one for new entries, the next one next time.
    const key = this.keys[this.nextShard[worker]!]!;
    const entries = await this.read(key, true);
    if (entries.length > 0) await this.settle(key, entries);
  }

  private async poll(worker: number): Promise<void> {
    if (this.groupReady.size < this.keys.length) return this.pause(100);
    if (!(await this.readEachShard(worker)) && !this.stopping) await this.pause(Math.min(this.options.settings.blockMs, 100));
  }

  /** One non-blocking read of every shard, starting one further each turn; true when any had entries. */
  private async readEachShard(worker: number): Promise<boolean> {
    let found = false;
    const first = this.nextShard[worker]!;
    for (let i = 0; i < this.keys.length && !this.stopping; i++) {
      const key = this.keys[(first + i) % this.keys.length]!;
      const entries = await this.read(key, false);
      if (entries.length > 0) {
        found = true;
        await this.settle(key, entries);
      }
    }
    this.nextShard[worker] = (first + 1) % this.keys.length;
    return found;
  }

  /** Created at id 0, so entries a gateway wrote before the first instance started are consumed too. */
  private async createGroup(key: string): Promise<void> {
    try {
      await this.options.redis.command(key, ['XGROUP', 'CREATE', key, this.options.settings.group, '0', 'MKSTREAM'], this.timeoutMs);
    } catch (err) {
      if (!String(err).includes('BUSYGROUP')) throw err;
    }
    this.groupReady.add(key);
  }

  private async read(key: string, block: boolean): Promise<StreamEntry[]> {
    const { group, batchSize, blockMs, shards } = this.options.settings;
    // With several shards a long block on one would delay the others' entries.
    const waitMs = shards === 1 ? blockMs : Math.min(blockMs, 100);
    const args: RedisArg[] = ['XREADGROUP', 'GROUP', group, this.consumerName, 'COUNT', batchSize];
    if (block) args.push('BLOCK', waitMs);
    args.push('STREAMS', key, '>');
    return readGroupEntries(await this.options.redis.command(key, args, this.timeoutMs + (block ? waitMs : 0)));
  }

  /** Takes over entries pending longer than claimIdleMs with any consumer, this one included (its unsettled ones). */
  private async reclaim(key: string): Promise<void> {
    const { group, claimIdleMs, batchSize } = this.options.settings;
    let cursor = '0-0';
    for (let round = 0; round < maxClaimRounds && !this.stopping; round++) {
      const reply = autoClaimReply(
        await this.options.redis.command(key, ['XAUTOCLAIM', key, group, this.consumerName, claimIdleMs, cursor, 'COUNT', batchSize], this.timeoutMs),
      );
      if (reply.entries.length > 0) {
        this.counts.reclaimed += reply.entries.length;
        await this.settle(key, reply.entries);
      }
      cursor = reply.cursor;
      if (cursor === '0-0') return;
    }
  }

  private async trim(key: string): Promise<void> {
    const { group, staleConsumerMs } = this.options.settings;
    const report = await trimAcknowledged(this.options.redis, key, group);
    this.counts.trimmed += report.trimmed;
    if (report.own) this.counts.streams.set(key, { lag: report.own.lag, pending: report.own.pending });
    await removeStaleConsumers(this.options.redis, key, group, this.consumerName, staleConsumerMs);
  }

  /** Records a batch; acknowledges what was recorded, dead-letters what never can be, leaves the rest pending. */
  private async settle(key: string, entries: StreamEntry[]): Promise<void> {
    const verdict = await ingestEntries(entries, this.options.recorder, this.options.spillIsDurable);
    if (verdict.dead.length > 0) await this.deadLetter(key, verdict.dead);
    if (verdict.recorded.length > 0) {
      await this.options.redis.command(key, ['XACK', key, this.options.settings.group, ...verdict.recorded.map((e) => e.id)], this.timeoutMs);
      this.counts.recorded += verdict.recorded.length;
    }
    if (verdict.unsettled.length > 0) {
      this.counts.unsettled += verdict.unsettled.length;
      if (verdict.error) throw verdict.error;
    }
  }

  private async deadLetter(key: string, dead: DeadLetter[]): Promise<void> {
    const { group, deadLetterMaxLen } = this.options.settings;
    const args: RedisArg[] = [group, deadLetterMaxLen];
    for (const letter of dead) {
      const items = deadLetterFields(key, letter);
      args.push(letter.entry.id, items.length, ...items);
    }
    const shard = this.keys.indexOf(key);
    await this.options.redis.runScript(deadLetterScript, [key, deadLetterStreamKey(this.options.namespace, shard)], args, this.timeoutMs);
    for (const letter of dead) this.counts.deadLetters[letter.reasonClass]++;
  }
}

/** The original fields, then why: the first bad field and its reason, every issue, and where the entry was. */
function deadLetterFields(key: string, { entry, reasonClass, issues }: DeadLetter): string[] {
  const first = issues[0];
  return [
    ...entry.fields,
    'paypulse.field', first?.field ?? '',
    'paypulse.reason', first?.reason ?? '',
    'paypulse.class', reasonClass,
    'paypulse.issues', JSON.stringify(issues.map(({ field, reason }) => ({ field, reason }))),
    'paypulse.stream', key,
    'paypulse.id', entry.id,
  ];
}

function isNoGroup(err: unknown): boolean {
  return String(err).includes('NOGROUP');
}
