export { createPulse, type Pulse } from './pulse.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { PayPulseError, ValidationError, StoreUnavailableError, errorCodes, type ErrorCode, type FieldIssue } from './errors.js';
export { parseWindow } from './stats/windows.js';
export { wilson } from './stats/wilson.js';
export type * from './types.js';
export { LockHeldError, LockLostError, IdempotencyMismatchError, fencedUpdate, fencedUpdateExample, cacheKey } from './kit/index.js';
export type { KitLock, LockHandle, LockOptions, KitIdempotency, IdempotencyOptions, IdempotencyOutcome, KitCache, CacheOptions, RecencyOptions, RecencySet } from './kit/index.js';
export type { SqlClient } from './history/sqlClient.js';
