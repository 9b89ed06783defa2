// Cache invalidations to every instance over Redis pub/sub (BentoCache's bus; the two-level cache
// of docs/storage.md).
// A subscribed connection cannot run other commands, so the bus owns one duplicate of the main client.
// Messages published while this subscriber is disconnected are lost; so whenever it reconnects, every
// listener is told to `reset()` (drop its local tier), and `isLive()` is false while it is away.
import type { RedisClientType, RedisClusterType } from 'redis';
import type { InvalidationHandlers, InvalidationSubscription } from '../../ports/kit.js';
import type { AnyClient as ConnectionClient } from '../connection.js';

// A Sentinel client offers the same duplicate/subscribe/unsubscribe/close as the other two (its pub/sub
// follows the primary through failovers); the union of their declared types has no callable signatures.
type AnyClient = RedisClientType | RedisClusterType;

export class InvalidationBus {
  private client?: AnyClient;
  private connecting?: Promise<unknown>;
  private readonly listeners = new Map<string, Set<InvalidationHandlers>>();
  private readonly subscribed = new Set<string>();
  private everReady = false;
  private readonly parent: AnyClient;

  constructor(
    parentClient: ConnectionClient,
    private readonly subscribeTimeoutMs: number,
  ) {
    this.parent = parentClient as AnyClient;
  }

  async subscribe(channel: string, handlers: InvalidationHandlers): Promise<InvalidationSubscription> {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(handlers);
    this.openClient();
    // Bounded: a caller must never hang on a Redis that is down; the bus keeps trying in the background
    // (node-redis resubscribes on reconnect) and `isLive()` tells the caller when it may trust its L1.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ensureSubscribed(channel).catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, this.subscribeTimeoutMs))),
    ]);
    clearTimeout(timer);
    return {
      isLive: () => this.isReady() && this.subscribed.has(channel),
      close: async () => {
        set.delete(handlers);
        if (set.size === 0 && this.subscribed.delete(channel)) {
          await this.client?.unsubscribe(channel).catch(() => undefined);
        }
      },
    };
  }

  private isReady(): boolean {
    return this.client?.isReady ?? false;
  }

  private openClient(): void {
    if (this.client) return;
    const client = this.parent.duplicate() as AnyClient;
    client.on('error', () => undefined); // surfaced through isLive(); the main connection logs errors
    client.on('ready', () => {
      if (this.everReady) for (const set of this.listeners.values()) for (const h of set) h.reset();
      this.everReady = true;
    });
    this.client = client;
    this.connecting = client.connect();
    this.connecting.catch(() => undefined);
  }

  private async ensureSubscribed(channel: string): Promise<void> {
    await this.connecting;
    if (this.subscribed.has(channel) || !this.client) return;
    await this.client.subscribe(channel, (message: string) => {
      for (const h of this.listeners.get(channel) ?? []) h.message(message);
    });
    this.subscribed.add(channel);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await client.close();
    } catch {
      client.destroy();
    }
  }
}
