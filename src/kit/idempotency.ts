// Callback idempotency (Stripe's idempotency keys; docs/background.md): the first caller marks
// `processing` with a short TTL and runs the handler; its result is stored as `done` for `ttlMs` (48 h,
// ≈ 2× the reconciliation cycle) and handed to every duplicate; a failure deletes the mark so a retry can
// run; a crash leaves a mark that expires after `processingMs`. The handler must itself be idempotent at the
// database (unique constraint / state machine): Redis is the fast path, not the last guard.
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { KitKeys } from '../store/keys/kit.js';
import { IdempotencyMismatchError } from './errors.js';
import type { KitStore } from '../store/ports/kit.js';
import { encodeJson, nameLimits, normaliseName, positiveMs, waitMs } from './validate.js';
import { backoffMs, monotonicMs, sleep } from './wait.js';

export const defaultIdempotencyTtlMs = 48 * 3_600_000;

export interface IdempotencyOptions {
  /** How long a `done` result is kept. Default 48 h. */
  ttlMs?: number;
  /** How long a `processing` mark outlives a crashed handler; make it the handler's timeout plus a margin. */
  processingMs: number;
  /** How long a concurrent duplicate waits for the first caller's result; 0 (default) answers `in-progress`. */
  waitMs?: number;
  /** The request (or a string standing for it): the same key with a different one is an error, not a duplicate. */
  fingerprint?: unknown;
}

export type IdempotencyOutcome<T> =
  /** `stored` is false when the result could not be written (store down): a retry may run the handler again. */
  | { status: 'executed'; result: T; stored: boolean }
  | { status: 'duplicate'; result: T }
  | { status: 'in-progress'; result: undefined };

export interface KitIdempotency {
  run<T>(key: string, options: IdempotencyOptions, handler: () => Promise<T> | T): Promise<IdempotencyOutcome<T>>;
}

export interface IdempotencyDeps {
  store: KitStore;
  keys: KitKeys;
  clock: Clock;
  retryMinMs: number;
  retryMaxMs: number;
}

/** JSON with sorted keys, so `{a, b}` and `{b, a}` are one request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

function fingerprintOf(request: unknown): string {
  if (request === undefined) return '';
  const text = typeof request === 'string' ? request : encodeJson(canonical(request), 'fingerprint');
  return createHash('sha256').update(text).digest('base64url');
}

// '' stands for a handler that returned nothing; anything else is JSON text.
const encodeResult = (result: unknown) => (result === undefined ? '' : encodeJson(result, 'result'));
const decodeResult = <T>(text: string): T => (text === '' ? undefined : JSON.parse(text)) as T;

export function createIdempotency(deps: IdempotencyDeps): KitIdempotency {
  const { store, clock } = deps;

  async function run<T>(key: string, options: IdempotencyOptions, handler: () => Promise<T> | T): Promise<IdempotencyOutcome<T>> {
    const name = normaliseName(key, 'key', nameLimits.idempotencyKey);
    const ttlMs = positiveMs(options?.ttlMs, 'ttlMs', defaultIdempotencyTtlMs);
    const processingMs = positiveMs(options?.processingMs, 'processingMs');
    const budgetMs = waitMs(options?.waitMs, 'waitMs');
    const fingerprint = fingerprintOf(options?.fingerprint);
    const storeKey = deps.keys.idempotency(name);
    const token = randomUUID();
    const deadline = monotonicMs() + budgetMs;

    for (let tries = 0; ; tries++) {
      // StoreUnavailableError propagates from here, before the handler ran: without a mark there is no
      // dedup, and the caller falls back to its database unique index.
      const begun = await store.beginIdempotent(storeKey, token, fingerprint, processingMs, clock.now());
      if (begun.state === 'mismatch') throw new IdempotencyMismatchError(name);
      if (begun.state === 'done') return { status: 'duplicate', result: decodeResult<T>(begun.result) };
      if (begun.state === 'acquired') return execute(storeKey, token, fingerprint, ttlMs, handler);
      const remaining = deadline - monotonicMs();
      if (remaining <= 0) return { status: 'in-progress', result: undefined };
      // If the first caller fails, its mark goes and the next try here runs the handler (a retry).
      await sleep(Math.min(remaining, backoffMs(tries, deps.retryMinMs, deps.retryMaxMs), Math.max(1, begun.retryAfterMs)));
    }
  }

  async function execute<T>(storeKey: string, token: string, fingerprint: string, ttlMs: number, handler: () => Promise<T> | T): Promise<IdempotencyOutcome<T>> {
    let text: string;
    try {
      // A result that cannot be stored is a programming error; treated as a failure so a fixed build can
      // run it again, rather than leaving duplicates a result that differs from the first caller's.
      text = encodeResult(await handler());
    } catch (err) {
      await store.abandonIdempotent(storeKey, token).catch(() => false); // if down: expires after processingMs
      throw err;
    }
    let stored = false;
    try {
      stored = await store.completeIdempotent(storeKey, token, fingerprint, text, ttlMs);
    } catch {
      // The work is done; failing the caller now would make the channel retry a finished payment.
    }
    return { status: 'executed', result: decodeResult<T>(text), stored };
  }

  return { run };
}
