// What the read routes answer while the store cannot be read (docs/architecture.md, "Reads degrade"): the
// channel list keeps the last health snapshot, every rate flagged `stale`, with the time the store became
// unreachable; reads that only the store can answer (failed request ids) say why and since when.
import { StoreUnavailableError } from '../../errors.js';
import type { HealthSnapshot, HealthSnapshots, ChannelHealth } from '../../stats/healthSnapshot.js';

/** Clock time the current store outage began, as the health snapshot saw it; undefined while it reads. */
export function storeUnreachableSince(snapshots: Pick<HealthSnapshots, 'status'>): number | undefined {
  const status = snapshots.status();
  return status.failing ? status.failingSince : undefined;
}

function staleChannel(health: ChannelHealth): ChannelHealth {
  const stale = (rates: ChannelHealth['rates']) => Object.fromEntries(Object.entries(rates).map(([w, r]) => [w, { ...r, stale: true }]));
  return { ...health, rates: stale(health.rates), series: health.series.map((s) => ({ ...s, rates: stale(s.rates) })) };
}

/** The last snapshot with every rate flagged stale, or an empty one when the store was never read. */
export function staleSnapshot(latest: HealthSnapshot | undefined): HealthSnapshot {
  if (!latest) return { asOf: 0, durationMs: 0, channels: new Map() };
  return { ...latest, channels: new Map([...latest.channels].map(([name, health]) => [name, staleChannel(health)])) };
}

/** PP_ERR_STORE_UNAVAILABLE naming the outage's start, e.g. "store unavailable: unreachable since 2026-12-01T09:00:00.000Z (…)". */
export function outageError(since: number | undefined, cause: unknown, what: string): StoreUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const when = since === undefined ? 'unreachable' : `unreachable since ${new Date(since).toISOString()}`;
  return new StoreUnavailableError(`${when}; ${what} are kept only in the store (${reason})`, since === undefined ? undefined : { since });
}
