// Request collapsing for the read routes: identical reads in flight at the same time share one store call.
// Gateways and dashboards poll the same few channels, so on Redis (one Lua call per rate) this turns N
// concurrent identical GETs into one round trip.
//
// Read-your-writes holds: a read joins an in-flight one only if no write through this coalescer completed
// since that one started, so a client that got 200 for its POST never sees numbers from before it.
// (Writes through other instances sharing a Redis have no such promise from any read path.)
import type { FailedRequest, MinuteCounts, Outcome, PulseHealth, Rate, RecordManyResult, RecordResult, StoreEpochInfo, SuccessRates, WindowQuery } from '../types.js';

export class ReadCoalescer implements SuccessRates {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private writeEpoch = 0;
  private joinedReads = 0;

  constructor(private readonly source: SuccessRates) {}

  /** Store calls saved so far (reads that joined an identical one), for metrics. */
  get joined(): number {
    return this.joinedReads;
  }

  get windows(): string[] {
    return this.source.windows;
  }

  record(outcome: Outcome): Promise<RecordResult> {
    return this.endingSharing(this.source.record(outcome));
  }

  recordMany(outcomes: Outcome[]): Promise<RecordManyResult> {
    return this.endingSharing(this.source.recordMany(outcomes));
  }

  rate(channel: string, query?: WindowQuery): Promise<Rate> {
    return this.shared(['rate', channel, query], () => this.source.rate(channel, query));
  }

  storeEpoch(): Promise<StoreEpochInfo> {
    return this.source.storeEpoch();
  }

  lastN(channel: string, query: { n: number; dims?: Record<string, string> }): Promise<Rate> {
    return this.shared(['lastN', channel, query], () => this.source.lastN(channel, query));
  }

  rates(query?: { window?: string }): Promise<Rate[]> {
    return this.shared(['rates', query], () => this.source.rates(query));
  }

  failures(channel: string, query?: { window?: string; limit?: number }): Promise<FailedRequest[]> {
    return this.shared(['failures', channel, query], () => this.source.failures(channel, query));
  }

  minutes(channel: string, query: { from: number; to: number; dims?: Record<string, string> }): Promise<MinuteCounts[]> {
    return this.shared(['minutes', channel, query], () => this.source.minutes(channel, query));
  }

  channels(): Promise<string[]> {
    return this.shared(['channels'], () => this.source.channels());
  }

  health(): PulseHealth {
    return this.source.health();
  }

  close(): Promise<void> {
    return this.source.close();
  }

  /** A completed write (even a failed one) ends the sharing of reads started before it. */
  private endingSharing<T>(write: Promise<T>): Promise<T> {
    return write.finally(() => {
      this.writeEpoch += 1;
    });
  }

  private shared<T>(call: unknown[], read: () => Promise<T>): Promise<T> {
    const key = `${this.writeEpoch}\u0000${JSON.stringify(call)}`;
    const pending = this.inFlight.get(key);
    if (pending) {
      this.joinedReads += 1;
      return pending as Promise<T>;
    }
    const started = read().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }
}
