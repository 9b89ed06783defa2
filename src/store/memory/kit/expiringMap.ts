// A map whose entries expire on the injected Clock, the way Redis keys expire: lazily when read, plus a
// small sweep on every write (Redis's active expiry samples 20 keys) so unread keys do not pile up.
import type { Clock } from '../../../clock.js';

interface Slot<V> {
  value: V;
  expiresAt: number;
}

const sweepPerWrite = 20;

export class ExpiringMap<V> {
  private readonly slots = new Map<string, Slot<V>>();
  private sweeper: IterableIterator<[string, Slot<V>]> = this.slots.entries();

  constructor(private readonly clock: Clock) {}

  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt <= this.clock.now()) {
      this.slots.delete(key);
      return undefined;
    }
    return slot.value;
  }

  /** Remaining ms, or -2 for a missing key (Redis PTTL's convention). */
  ttl(key: string): number {
    const slot = this.slots.get(key);
    return slot && this.get(key) !== undefined ? slot.expiresAt - this.clock.now() : -2;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.slots.set(key, { value, expiresAt: this.clock.now() + ttlMs });
    this.sweep();
  }

  /** Keeps the value, moves the expiry (PEXPIRE); false when the key does not exist. */
  expire(key: string, ttlMs: number): boolean {
    const slot = this.slots.get(key);
    if (!slot || this.get(key) === undefined) return false;
    slot.expiresAt = this.clock.now() + ttlMs;
    return true;
  }

  delete(key: string): boolean {
    return this.slots.delete(key);
  }

  get size(): number {
    return this.slots.size;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (let i = 0; i < sweepPerWrite; i++) {
      let next = this.sweeper.next();
      if (next.done) {
        this.sweeper = this.slots.entries();
        next = this.sweeper.next();
        if (next.done) return;
      }
      const [key, slot] = next.value;
      if (slot.expiresAt <= now) this.slots.delete(key);
    }
  }
}
