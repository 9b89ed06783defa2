// The coordination port in one process: each operation runs synchronously inside one call, so it is as
// atomic as the Lua script it mirrors; expiry follows the injected Clock. Every pulse sharing one
// MemoryCoordinationStore behaves as one instance of a fleet.
import { systemClock, type Clock } from '../../clock.js';
import type { CompareAndSetReply, CoordinationStore, LeaseReply, SharedState } from '../ports/coordination.js';
import { ExpiringMap } from './kit/expiringMap.js';

export class MemoryCoordinationStore implements CoordinationStore {
  readonly kind = 'memory' as const;
  private readonly states: ExpiringMap<SharedState>;
  /** key → holder → lease expiry (ms). */
  private readonly leases = new Map<string, Map<string, number>>();

  constructor(clock: Clock = systemClock) {
    this.states = new ExpiringMap(clock);
  }

  async readStates(keys: string[]): Promise<Array<SharedState | null>> {
    return keys.map((key) => this.states.get(key) ?? null);
  }

  async compareAndSetState(key: string, expectedVersion: number, value: string, ttlMs: number): Promise<CompareAndSetReply> {
    const current = this.states.get(key) ?? null;
    if ((current?.version ?? 0) !== expectedVersion) return { written: false, current };
    const version = expectedVersion + 1;
    this.states.set(key, { version, value }, ttlMs);
    return { written: true, version };
  }

  async takeLease(key: string, holder: string, quota: number, ttlMs: number, nowMs: number): Promise<LeaseReply> {
    const held = this.leases.get(key) ?? new Map<string, number>();
    for (const [who, expiry] of held) if (expiry <= nowMs) held.delete(who);
    const granted = held.has(holder) || held.size < quota;
    if (granted) held.set(holder, nowMs + ttlMs);
    if (held.size > 0) this.leases.set(key, held);
    else this.leases.delete(key);
    return { granted, held: held.size };
  }

  async releaseLease(key: string, holder: string): Promise<boolean> {
    const held = this.leases.get(key);
    const released = held?.delete(holder) ?? false;
    if (held?.size === 0) this.leases.delete(key);
    return released;
  }

  async clearLeases(key: string): Promise<void> {
    this.leases.delete(key);
  }

  async close(): Promise<void> {}
}
