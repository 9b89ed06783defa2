// One small seam over node-redis: standalone, Cluster and Sentinel look the same to the engines.
// Every script call names its first key, so on a cluster it goes to the node owning that key's slot;
// all keys of one call share a `{channel}` hash tag, so no call is ever cross-slot.
// Nothing waits for Redis to start (docs/architecture.md, fail open): the connection is made in the
// background and every command fails at once until it is ready, so callers buffer or answer stale.
import { createClient, createCluster, createSentinel, type RedisClientType, type RedisClusterType, type RedisSentinelType } from 'redis';
import { StoreUnavailableError } from '../../errors.js';
import type { PulseLogger } from '../../types.js';
import { ConnectionWatch, type ConnectionStatus } from './connectionWatch.js';
import { describeTarget, parseRedisTarget, type RedisTarget } from './redisTarget.js';
import type { LuaScript } from './scripts.js';

export type RedisArg = string | number | Buffer;
export type RedisReply = null | number | string | RedisReply[];
export type AnyClient = RedisClientType | RedisClusterType | RedisSentinelType;

export interface RedisConnectionOptions {
  /**
   * `redis://host:port`; several URLs (comma separated) mean a Redis Cluster;
   * `redis+sentinel://host:26379,host:26380/mymaster` a primary found through Redis Sentinel.
   */
  url: string;
  cluster?: boolean;
  /** Per-command timeout; the payment path must not wait on a slow Redis (fail open). */
  commandTimeoutMs?: number;
  /** Called on connection errors, so the owner can count them; the connection logs them itself, sparingly. */
  onError?: (err: Error) => void;
  /** Receives "waiting for Redis at …" once, again at a slow interval, and "connected" when it is. */
  logger?: PulseLogger;
  /** Reject when Redis is not ready within this long (fail fast); without it, connect() returns at once. */
  connectTimeoutMs?: number;
  /** How often a long wait or outage is logged again. Default 30 s. */
  repeatLogMs?: number;
  /**
   * Without connectTimeoutMs, connect() still waits this long at most for the first attempt's verdict (a refused
   * connection answers in a millisecond), so a Redis that is up is ready when connect() returns. Default 1 s.
   */
  firstAttemptWaitMs?: number;
}

const clusterSlots = 16_384;

/** Buffers go as they are (binary arguments); numbers as their decimal text. */
function toWire(arg: RedisArg): string | Buffer {
  return typeof arg === 'string' || Buffer.isBuffer(arg) ? arg : String(arg);
}

// Reconnect quickly and forever; offline commands fail at once so callers can fall back.
const socket = { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000), connectTimeout: 2000 };
/** Cluster and Sentinel discovery fail as a whole and are tried again after this long (doubling, at most 5 s). */
const discoveryRetryMs = 250;
// A command's deadline is ours alone (withTimeout). node-redis's default one (5 s, on the wait before a
// command is written, which ours covers as well) armed an AbortSignal timer for every command, whose garbage
// collections fell among the queries (docs/decisions/091-command-deadlines-are-ours.md).
const commandOptions = { timeout: 0 };
/**
 * Every connection of ours names itself (CLIENT SETNAME), so Redis's slow log tells our own calls from other
 * clients' commands: the slow-command alert is for what slows our calls, not for our calls themselves.
 */
export const ownClientName = 'paypulse';

function createFor(target: RedisTarget): AnyClient {
  if (target.kind === 'cluster') {
    return createCluster({ rootNodes: target.urls.map((url) => ({ url })), commandOptions, defaults: { socket, disableOfflineQueue: true, name: ownClientName } }) as unknown as AnyClient;
  }
  if (target.kind === 'sentinel') {
    const { username, password, database } = target;
    return createSentinel({
      name: target.primaryName,
      sentinelRootNodes: target.sentinels,
      commandOptions,
      nodeClientOptions: { socket, disableOfflineQueue: true, username, password, database, name: ownClientName },
      sentinelClientOptions: { socket },
    }) as unknown as AnyClient;
  }
  return createClient({ url: target.url, socket, disableOfflineQueue: true, commandOptions, name: ownClientName }) as AnyClient;
}

export class RedisConnection {
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly primaryListeners: Array<() => void> = [];
  private readonly readyListeners: Array<() => void> = [];

  private constructor(
    private readonly client: AnyClient,
    readonly kind: RedisTarget['kind'],
    private readonly commandTimeoutMs: number,
    private readonly watch: ConnectionWatch,
  ) {}

  get isCluster(): boolean {
    return this.kind === 'cluster';
  }

  /** The address of the master serving `slot` as the client last heard ('' off a cluster, or while unknown). */
  masterOfSlot(slot: number): string {
    return this.kind === 'cluster' ? ((this.client as RedisClusterType).slots[slot]?.master.address ?? '') : '';
  }

  /**
   * Share (0–1) of the keyspace this client cannot reach now. On a cluster: the slots whose master has no ready
   * connection, or no master at all, in the client's slot map (which a failover or a restarted node updates);
   * on one server or a Sentinel primary: 0 when ready, else 1.
   */
  unreachableSlotShare(): number {
    if (this.kind !== 'cluster') return this.isReady ? 0 : 1;
    if (this.watch.status.state !== 'ready') return 1;
    const slots = (this.client as RedisClusterType).slots;
    let unreachable = 0;
    for (let slot = 0; slot < clusterSlots; slot++) if (!slots[slot]?.master.client?.isReady) unreachable++;
    return unreachable / clusterSlots;
  }

  /** Returns at once and connects in the background, unless `connectTimeoutMs` asks to wait for Redis. */
  static async connect(options: RedisConnectionOptions): Promise<RedisConnection> {
    const target = parseRedisTarget(options.url, options.cluster);
    const watch = new ConnectionWatch({ target: describeTarget(target), logger: options.logger, onError: options.onError, repeatLogMs: options.repeatLogMs });
    const connection = new RedisConnection(createFor(target), target.kind, options.commandTimeoutMs ?? 1000, watch);
    connection.start();
    if (options.connectTimeoutMs !== undefined) await connection.readyWithin(options.connectTimeoutMs);
    else await connection.firstVerdict(options.firstAttemptWaitMs ?? 1_000);
    return connection;
  }

  private start(): void {
    this.client.on('error', (err: Error) => this.watch.error(err));
    if (this.kind === 'standalone') {
      // A standalone client retries its first connection forever by itself (reconnectStrategy).
      this.client.on('ready', () => this.ready());
      this.client.connect().catch(() => undefined);
      return;
    }
    this.client.on('ready', () => this.ready());
    if (this.kind === 'sentinel') {
      this.client.on('topology-change', (event: { type: string; node?: { host: string; port: number } }) => {
        if (event.type !== 'MASTER_CHANGE') return;
        this.watch.primaryChanged(event.node ? `${event.node.host}:${event.node.port}` : 'unknown');
        for (const listener of this.primaryListeners) listener();
      });
    }
    this.discover(0);
  }

  /** Sentinel only: called when the Sentinels name a new primary (after a failover). */
  onPrimaryChange(listener: () => void): void {
    this.primaryListeners.push(listener);
  }

  /** Called at every connection made, the first and each reconnect: the server may have restarted empty. */
  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  private ready(): void {
    this.watch.ready();
    for (const listener of this.readyListeners) listener();
  }

  /** Cluster and Sentinel clients give up when discovery fails; try again until it works or we close. */
  private discover(attempt: number): void {
    if (this.closed) return;
    this.client.connect().then(
      () => this.ready(),
      (err: unknown) => {
        if (this.closed) return;
        this.watch.error(err instanceof Error ? err : new Error(String(err)));
        this.retryTimer = setTimeout(() => this.discover(attempt + 1), Math.min(discoveryRetryMs * 2 ** attempt, 5000));
        this.retryTimer.unref();
      },
    );
  }

  private async firstVerdict(waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.watch.whenSettled(), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  private async readyWithin(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.watch.whenReady(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailableError(`${this.watch.describe()}; gave up after connectTimeoutMs ${timeoutMs}`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      await this.close();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** State of the connection for /readyz and metrics. */
  get status(): Readonly<ConnectionStatus> {
    return this.watch.status;
  }

  /** One sentence on the connection, e.g. "waiting for Redis at redis://… since …". */
  describe(): string {
    return this.watch.describe();
  }

  private withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
    let timer: NodeJS.Timeout;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RedisTimeoutError(timeoutMs)), timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  /** A raw command routed by `routingKey` (ignored on a standalone server). */
  command(routingKey: string, args: RedisArg[], timeoutMs = this.commandTimeoutMs): Promise<RedisReply> {
    const { state, lastError } = this.watch.status;
    if (this.closed) return Promise.reject(new RedisNotReadyError(this.watch.describe()));
    if (state === 'connecting') {
      // Just created: the first attempt may still succeed, so a command waits for it within its own timeout.
      // Once an attempt failed there is nobody to ask; a cluster or Sentinel client would not say so at once.
      if (lastError !== undefined) return Promise.reject(new RedisNotReadyError(this.watch.describe()));
      const deadline = Date.now() + timeoutMs;
      return this.withTimeout(this.watch.whenSettled(), timeoutMs).then(() =>
        this.command(routingKey, args, Math.max(1, deadline - Date.now())),
      );
    }
    const strArgs = args.map(toWire);
    const sent =
      this.kind === 'cluster'
        ? (this.client as RedisClusterType).sendCommand(routingKey, false, strArgs)
        : this.kind === 'sentinel'
          ? (this.client as RedisSentinelType).sendCommand(false, strArgs)
          : (this.client as RedisClientType).sendCommand(strArgs);
    return this.withTimeout(sent as unknown as Promise<RedisReply>, timeoutMs);
  }

  /** EVALSHA, falling back to EVAL once when the server does not know the script yet (NOSCRIPT). */
  async runScript(
    script: LuaScript,
    keys: string[],
    args: RedisArg[],
    timeoutMs = this.commandTimeoutMs,
  ): Promise<RedisReply> {
    // `-<n>.lua` is the keys every call passes; a channel script's read of many channels passes one per channel.
    if (keys.length < script.numberOfKeys) {
      throw new Error(`${script.name} takes at least ${script.numberOfKeys} keys, got ${keys.length}`);
    }
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.command(keys[0], ['EVALSHA', script.sha, ...tail], timeoutMs);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.command(keys[0], ['EVAL', script.source, ...tail], timeoutMs);
    }
  }

  /** Commands for every master (INFO, FLUSHALL in tests…): one reply per node. */
  async onEveryMaster(args: RedisArg[]): Promise<RedisReply[]> {
    const strArgs = args.map(toWire);
    if (this.kind !== 'cluster') return [await this.command('', args)];
    const cluster = this.client as RedisClusterType;
    return Promise.all(
      cluster.masters.map(async (master) => {
        const node = await cluster.nodeClient(master);
        return (await node.sendCommand(strArgs)) as RedisReply;
      }),
    );
  }

  /** The underlying client, for the pub/sub and other features that need it directly. */
  get raw(): AnyClient {
    return this.client;
  }

  get isReady(): boolean {
    return this.kind === 'cluster' ? this.watch.status.state === 'ready' : this.client.isReady;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.watch.closed();
    try {
      await this.client.close();
    } catch {
      this.client.destroy();
    }
  }
}

export class RedisTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Redis did not answer within ${timeoutMs} ms`);
    this.name = 'RedisTimeoutError';
  }
}

export class RedisNotReadyError extends Error {
  constructor(description: string) {
    super(description);
    this.name = 'RedisNotReadyError';
  }
}
