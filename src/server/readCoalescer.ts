// Request collapsing for the read routes: identical reads in flight at the same time share one store call.
// Gateways and dashboards poll the same few channels, so on Redis (one Lua call per rate) this turns N
// concurrent identical GETs into one round trip (measured in bench/HTTP_RESULTS.md).
//
// Read-your-writes holds: a read joins an in-flight one only if no write through this wrapper completed
// since that one started, so a client that got 200 for its POST never sees numbers from before it.
// (Writes through other instances sharing a Redis have no such promise from any read path.)
import type { PulseStats } from '../types.js';

type Reads = Pick<PulseStats, 'rate' | 'lastN' | 'rates' | 'failures' | 'minutes' | 'channels'>;
const coalesced = ['rate', 'lastN', 'rates', 'failures', 'minutes', 'channels'] as const;

export interface ReadCoalescer<P extends PulseStats> {
  /** Reads collapse; record/recordMany pass through and, when done, end the sharing of older reads. */
  pulse: P;
  /** Store calls saved so far (joined reads), for metrics. */
  readonly joined: number;
}

export function coalesceReads<P extends PulseStats>(pulse: P): ReadCoalescer<P> {
  const inFlight = new Map<string, Promise<unknown>>();
  let writeEpoch = 0;
  let joined = 0;

  const wrapped = new Map<string, unknown>();
  for (const name of coalesced) {
    const read = (pulse[name] as (...args: unknown[]) => Promise<unknown>).bind(pulse);
    wrapped.set(name, (...args: unknown[]) => {
      const key = `${writeEpoch}\u0000${name}\u0000${JSON.stringify(args)}`;
      const pending = inFlight.get(key);
      if (pending) {
        joined += 1;
        return pending;
      }
      const call = read(...args).finally(() => inFlight.delete(key));
      inFlight.set(key, call);
      return call;
    });
  }

  for (const name of ['record', 'recordMany'] as const) {
    const write = (pulse[name] as (...args: unknown[]) => Promise<unknown>).bind(pulse);
    wrapped.set(name, (...args: unknown[]) =>
      write(...args).finally(() => {
        writeEpoch += 1;
      }),
    );
  }

  const proxy = new Proxy(pulse, {
    get(target, prop) {
      if (typeof prop === 'string' && wrapped.has(prop)) return wrapped.get(prop);
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });

  return {
    pulse: proxy as P & Reads,
    get joined() {
      return joined;
    },
  };
}
