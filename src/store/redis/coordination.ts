// The coordination port on Redis: compare-and-set and lease-taking are one Lua script each; reads and
// releases are single commands. Concurrent commands share one round trip (node-redis pipelines what is
// sent in the same tick), so `readStates` of every channel costs one round trip per node.
import type { CompareAndSetReply, CoordinationStore, LeaseReply, SharedState } from '../ports/coordination.js';
import type { RedisArg, RedisConnection, RedisReply } from './connection.js';
import { loadScript, type LuaScript } from './scripts.js';
import { toStoreError } from './storeErrors.js';

const scripts = {
  compareAndSetState: loadScript('coordination/compareAndSetState-1.lua'),
  takeLease: loadScript('coordination/takeLease-1.lua'),
};

export class RedisCoordinationStore implements CoordinationStore {
  readonly kind: 'redis' | 'redis-cluster';

  /** Uses (does not own) `connection`. */
  constructor(private readonly connection: RedisConnection) {
    this.kind = connection.isCluster ? 'redis-cluster' : 'redis';
  }

  private async run(script: LuaScript, key: string, args: RedisArg[]): Promise<RedisReply> {
    try {
      return await this.connection.runScript(script, [key], args);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  private async command(key: string, args: RedisArg[]): Promise<RedisReply> {
    try {
      return await this.connection.command(key, args);
    } catch (err) {
      throw toStoreError(err);
    }
  }

  async readStates(keys: string[]): Promise<Array<SharedState | null>> {
    const replies = await Promise.all(keys.map((key) => this.command(key, ['HMGET', key, 'v', 's'])));
    return replies.map((reply) => {
      const [version, value] = reply as [string | null, string | null];
      return version === null || value === null ? null : { version: Number(version), value };
    });
  }

  async compareAndSetState(key: string, expectedVersion: number, value: string, ttlMs: number): Promise<CompareAndSetReply> {
    const reply = (await this.run(scripts.compareAndSetState, key, [expectedVersion, value, ttlMs])) as RedisReply[];
    if (reply[0] === 1) return { written: true, version: Number(reply[1]) };
    const version = Number(reply[1]);
    return { written: false, current: version === 0 ? null : { version, value: String(reply[2]) } };
  }

  async takeLease(key: string, holder: string, quota: number, ttlMs: number, nowMs: number): Promise<LeaseReply> {
    const [granted, held] = (await this.run(scripts.takeLease, key, [holder, quota, ttlMs, nowMs])) as [number, number];
    return { granted: granted === 1, held: Number(held) };
  }

  async releaseLease(key: string, holder: string): Promise<boolean> {
    return (await this.command(key, ['ZREM', key, holder])) === 1;
  }

  async clearLeases(key: string): Promise<void> {
    await this.command(key, ['UNLINK', key]);
  }

  async close(): Promise<void> {}
}
