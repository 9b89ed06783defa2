// Wraps a pulse so every record and read through it is measured, whoever calls it: the HTTP routes, the
// stream, the demo's simulator. A Proxy rather than a hand-written wrapper keeps every other member of the
// library object (route, lock, cache … from later issues) reachable unchanged.
import type { Outcome, PulseStats, RecordManyResult, RecordResult } from '../../types.js';

export interface PulseObserver {
  /** An ingest call finished (or failed: result undefined). */
  onRecord(outcomes: readonly Outcome[], seconds: number, result: RecordManyResult | undefined): void;
  /** Any store-backed call finished; `failed` when it threw. */
  onStoreCall(operation: string, seconds: number, failed: boolean): void;
}

const measuredReads = new Set(['rate', 'lastN', 'rates', 'failures', 'minutes', 'channels']);

function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

function asMany(r: RecordResult): RecordManyResult {
  return { accepted: r.accepted, duplicates: r.duplicate, corrected: r.corrected, stale: r.stale, buffered: r.buffered, dropped: r.dropped };
}

export function instrumentPulse<P extends PulseStats>(pulse: P, observer: PulseObserver): P {
  const wrappers = new Map<PropertyKey, unknown>();

  function measure(name: string, fn: (...args: unknown[]) => Promise<unknown>) {
    return async (...args: unknown[]) => {
      const start = process.hrtime.bigint();
      const outcomes = name === 'record' ? [args[0] as Outcome] : name === 'recordMany' ? (args[0] as Outcome[]) : null;
      try {
        const result = await fn.apply(pulse, args);
        const elapsed = seconds(start);
        observer.onStoreCall(name, elapsed, false);
        if (outcomes) {
          observer.onRecord(outcomes, elapsed, name === 'record' ? asMany(result as RecordResult) : (result as RecordManyResult));
        }
        return result;
      } catch (err) {
        const elapsed = seconds(start);
        observer.onStoreCall(name, elapsed, true);
        if (outcomes) observer.onRecord(outcomes, elapsed, undefined);
        throw err;
      }
    };
  }

  return new Proxy(pulse, {
    get(target, prop) {
      // The target as receiver: class getters and #private fields of the library object keep working.
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let wrapper = wrappers.get(prop);
      if (!wrapper) {
        const name = String(prop);
        wrapper =
          name === 'record' || name === 'recordMany' || measuredReads.has(name)
            ? measure(name, value as (...args: unknown[]) => Promise<unknown>)
            : (value as (...args: unknown[]) => unknown).bind(target);
        wrappers.set(prop, wrapper);
      }
      return wrapper;
    },
  });
}
