// What a Pulse tells its observer (the service's metrics) about its own work. Given at construction, so
// every caller of the pulse is observed — routes, the stream, the demo — without wrapping the pulse.
import type { Outcome, RecordManyResult } from './types.js';

export interface PulseObserver {
  /** A record/recordMany call finished (result undefined when it threw). */
  onRecord?(outcomes: readonly Outcome[], seconds: number, result: RecordManyResult | undefined): void;
  /** A store-backed call (a write or a read) finished; `failed` when it threw. */
  onStoreCall?(operation: string, seconds: number, failed: boolean): void;
  /** One write batch as the store executed it: concurrent calls merged, size in outcomes, duration in ms. */
  onBatch?(size: number, ms: number): void;
  /** An alert notification's fate at one receiver: sent, retried, failed or dropped. */
  onAlertNotification?(receiver: string, result: string): void;
}

function secondsSince(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** Runs one store-backed call and reports it; without an onStoreCall it is the bare call. */
export async function observeStoreCall<T>(observer: PulseObserver, operation: string, call: () => Promise<T>): Promise<T> {
  if (!observer.onStoreCall) return call();
  const start = process.hrtime.bigint();
  try {
    const result = await call();
    observer.onStoreCall(operation, secondsSince(start), false);
    return result;
  } catch (err) {
    observer.onStoreCall(operation, secondsSince(start), true);
    throw err;
  }
}

/** Runs one ingest call and reports it as a store call and as a record. */
export async function observeRecord<T>(
  observer: PulseObserver,
  operation: 'record' | 'recordMany',
  outcomes: readonly Outcome[],
  call: () => Promise<T>,
  summary: (result: T) => RecordManyResult,
): Promise<T> {
  if (!observer.onRecord && !observer.onStoreCall) return call();
  const start = process.hrtime.bigint();
  try {
    const result = await call();
    const seconds = secondsSince(start);
    observer.onStoreCall?.(operation, seconds, false);
    observer.onRecord?.(outcomes, seconds, summary(result));
    return result;
  } catch (err) {
    const seconds = secondsSince(start);
    observer.onStoreCall?.(operation, seconds, true);
    observer.onRecord?.(outcomes, seconds, undefined);
    throw err;
  }
}
