// The coordination port: the few atomic operations that let many PayPulse instances act as one — alert
// state that exactly one instance moves per transition (and so notifies once), a circuit breaker every instance
// agrees on, and probe leases that admit a fixed number of trial payments fleet-wide without a lock held
// around any call. The Redis engine runs each as one Lua script; the memory engine as one synchronous function,
// atomic in one process. Both pass test/store/coordination.test.ts. Keys come from src/store/keys/coordination.ts.

/** A versioned value: `version` grows by one on every successful write, so a compare-and-set can tell. */
export interface SharedState {
  version: number;
  /** Opaque to the store; the caller's JSON. */
  value: string;
}

export type CompareAndSetReply =
  | { written: true; version: number }
  /** Someone else wrote first (or the key vanished): here is what is stored now, null when nothing is. */
  | { written: false; current: SharedState | null };

export interface LeaseReply {
  granted: boolean;
  /** Unexpired leases on the key after the call, this one included when granted. */
  held: number;
}

export interface CoordinationStore {
  readonly kind: 'redis' | 'redis-cluster' | 'memory';
  /** Several states in as few store calls as the keys allow (one per Redis Cluster slot); null where absent. */
  readStates(keys: string[]): Promise<Array<SharedState | null>>;
  /**
   * Writes `value` as version `expectedVersion + 1` if the stored version is `expectedVersion` (0: nothing
   * stored), and sets the key to expire `ttlMs` from now. Atomic: of N concurrent callers that read the same
   * version, exactly one is written.
   */
  compareAndSetState(key: string, expectedVersion: number, value: string, ttlMs: number): Promise<CompareAndSetReply>;
  /**
   * Takes one of at most `quota` leases on `key` for `holder`, valid until `nowMs + ttlMs`. Leases expired at
   * `nowMs` are freed first; a holder that already has a live lease is granted again without taking a second one.
   */
  takeLease(key: string, holder: string, quota: number, ttlMs: number, nowMs: number): Promise<LeaseReply>;
  /** Frees `holder`'s lease; false when it held none. */
  releaseLease(key: string, holder: string): Promise<boolean>;
  /** Frees every lease on `key` (a breaker leaving half-open). */
  clearLeases(key: string): Promise<void>;
  close(): Promise<void>;
}
