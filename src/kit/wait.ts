// Waiting for a lock, a result or a cache fill. Wait budgets are real durations (they bound how long a
// caller's promise stays pending), so they use the monotonic timer, not the injected Clock; the Clock
// drives what is stored (expiry, fence floor, recency timestamps).
import { setTimeout as sleepFor } from 'node:timers/promises';

export const monotonicMs = (): number => performance.now();

export function sleep(ms: number): Promise<void> {
  return sleepFor(Math.max(0, ms)).then(() => undefined);
}

/** Full-jitter exponential backoff: contenders spread out instead of polling in step. */
export function backoffMs(attempt: number, minMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 16));
  return minMs + Math.random() * (ceiling - minMs);
}
