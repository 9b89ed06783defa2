// One small seam over node-redis: standalone and Cluster look the same to the engines.
// Every script call names its first key, so on a cluster it goes to the node owning that key's slot;
// all keys of one call share a `{channel}` hash tag, so no call is ever cross-slot.
import { createClient, createCluster, type RedisClientType, type RedisClusterType } from 'redis';
import type { LuaScript } from './scripts.js';

export type RedisArg = string | number | Buffer;
export type RedisReply = null | number | string | RedisReply[];

export interface RedisConnectionOptions {
  /** `redis://host:port`; several URLs (comma separated) mean a Redis Cluster. */
  url: string;
  cluster?: boolean;
  /** Per-command timeout; the payment path must not wait on a slow Redis (fail open). */
  commandTimeoutMs?: number;
  /** Called on connection errors, so the owner can log and count them. */
  onError?: (err: Error) => void;
}

/** Buffers go as they are (binary arguments); numbers as their decimal text. */
function toWire(arg: RedisArg): string | Buffer {
  return typeof arg === 'string' || Buffer.isBuffer(arg) ? arg : String(arg);
}

export class RedisConnection {
  private constructor(
    private readonly client: RedisClientType | RedisClusterType,
    readonly isCluster: boolean,
    private readonly commandTimeoutMs: number,
  ) {}

  static async connect(options: RedisConnectionOptions): Promise<RedisConnection> {
    const urls = options.url.split(',').map((u) => u.trim()).filter(Boolean);
    const isCluster = options.cluster ?? urls.length > 1;
    const timeout = options.commandTimeoutMs ?? 1000;
    // Reconnect quickly and forever; offline commands fail at once so callers can fall back.
    const socket = { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000), connectTimeout: 2000 };
    const client = isCluster
      ? createCluster({
          rootNodes: urls.map((url) => ({ url })),
          defaults: { socket, disableOfflineQueue: true },
        })
      : createClient({ url: urls[0], socket, disableOfflineQueue: true });
    client.on('error', (err: Error) => options.onError?.(err));
    await client.connect();
    return new RedisConnection(client as RedisClientType | RedisClusterType, isCluster, timeout);
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
    const strArgs = args.map(toWire);
    const sent = this.isCluster
      ? (this.client as RedisClusterType).sendCommand(routingKey, false, strArgs)
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
    if (keys.length !== script.numberOfKeys) {
      throw new Error(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
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
    if (!this.isCluster) return [(await (this.client as RedisClientType).sendCommand(strArgs)) as RedisReply];
    const cluster = this.client as RedisClusterType;
    return Promise.all(
      cluster.masters.map(async (master) => {
        const node = await cluster.nodeClient(master);
        return (await node.sendCommand(strArgs)) as RedisReply;
      }),
    );
  }

  /** The underlying client, for the pub/sub and other features that need it directly. */
  get raw(): RedisClientType | RedisClusterType {
    return this.client;
  }

  get isReady(): boolean {
    return this.isCluster ? true : (this.client as RedisClientType).isReady;
  }

  async close(): Promise<void> {
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
