// Typed kit errors, all PayPulseError with a stable PP_ERR_* code: a caller can tell "held by someone
// else" (PP_ERR_LOCK_HELD) from "store unavailable" (PP_ERR_STORE_UNAVAILABLE, StoreUnavailableError) and
// from "you lost it while working" (PP_ERR_LOCK_LOST) — node-redlock reports all three alike.
import { PayPulseError, ValidationError } from '../errors.js';

export class LockHeldError extends PayPulseError {
  constructor(
    readonly resource: string,
    readonly retryAfterMs: number,
  ) {
    super('PP_ERR_LOCK_HELD', `lock "${resource}" is held by someone else (free in ≤ ${retryAfterMs} ms)`, { resource, retryAfterMs });
    this.name = 'LockHeldError';
  }
}

/** `expired`: the store no longer holds our token; `store-unavailable`: renewal could not reach it in time. */
export type LockLostReason = 'expired' | 'store-unavailable';

export class LockLostError extends PayPulseError {
  constructor(
    readonly resource: string,
    readonly reason: LockLostReason,
    options?: { cause?: unknown },
  ) {
    super('PP_ERR_LOCK_LOST', `lock "${resource}" was lost before the work finished (${reason})`, { resource, reason });
    this.name = 'LockLostError';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

export class IdempotencyMismatchError extends PayPulseError {
  constructor(readonly key: string) {
    super('PP_ERR_IDEMPOTENCY_MISMATCH', `idempotency key "${key}" was used with a different request`, { key });
    this.name = 'IdempotencyMismatchError';
  }
}

/** One bad field of a kit call, as a ValidationError (PP_ERR_VALIDATION) naming the field. */
export function invalidField(field: string, reason: string): ValidationError {
  return new ValidationError([{ index: 0, field, reason }]);
}
