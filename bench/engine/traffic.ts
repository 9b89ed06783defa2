// The sweep's traffic: the same total of events at one per-channel volume, many channels when each is
// quiet and few when each is hot, so every point costs the same to run and only the shape differs.
import type { Outcome } from '../../src/types.js';

export interface VolumePoint {
  /** Events per second on each channel. */
  perChannelPerSec: number;
  channels: number;
}

/** 1 to 2,000 events/s per channel: the quiet channels most gateways have, up to a main acquirer. */
export const volumePoints: VolumePoint[] = [
  { perChannelPerSec: 1, channels: 400 },
  { perChannelPerSec: 10, channels: 40 },
  { perChannelPerSec: 50, channels: 8 },
  { perChannelPerSec: 500, channels: 2 },
  { perChannelPerSec: 2000, channels: 1 },
];

export interface Traffic {
  point: VolumePoint;
  channels: string[];
  events: number;
  startMs: number;
  durationMs: number;
  /** The i-th event in completion-time order. */
  outcomeAt(index: number): Outcome;
}

export function channelNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `channel-${String(i).padStart(3, '0')}`);
}

/**
 * `events` outcomes at `point`'s volume from `startMs` on, channels taking turns (so a batch holds
 * each quiet channel once or twice, as a gateway's callbacks arrive); 95 % success, failures with a
 * code, 20-character request ids like a gateway's order numbers.
 */
export function trafficAt(point: VolumePoint, events: number, startMs: number, idPrefix = 'ord_'): Traffic {
  const channels = channelNames(point.channels);
  const perChannel = Math.ceil(events / point.channels);
  return {
    point,
    channels,
    events,
    startMs,
    durationMs: Math.ceil((perChannel * 1000) / point.perChannelPerSec),
    outcomeAt(index) {
      const channel = channels[index % channels.length];
      const seq = Math.floor(index / channels.length);
      const requestId = `${idPrefix}${String(seq).padStart(16, '0')}`;
      const at = startMs + Math.floor((seq * 1000) / point.perChannelPerSec);
      return seq % 20 === 7
        ? { channel, requestId, status: 'failure', at, code: 'do_not_honor' }
        : { channel, requestId, status: 'success', at };
    },
  };
}

/** The traffic cut into writer batches, oldest first. */
export function* batchesOf(traffic: Traffic, batchSize: number): Generator<Outcome[]> {
  for (let first = 0; first < traffic.events; first += batchSize) {
    const batch: Outcome[] = [];
    for (let i = first; i < Math.min(traffic.events, first + batchSize); i++) batch.push(traffic.outcomeAt(i));
    yield batch;
  }
}

/** How many of `channel`'s events completed in (fromMs, toMs]: what a window query must count. */
export function eventsWithin(traffic: Traffic, channel: string, fromMs: number, toMs: number): number {
  const c = traffic.channels.indexOf(channel);
  let count = 0;
  for (let i = c; i < traffic.events; i += traffic.channels.length) {
    const at = traffic.outcomeAt(i).at;
    if (at > fromMs && at <= toMs) count++;
  }
  return count;
}

/**
 * The 5-minute window's events at `nowMs` as each design defines it: the seed counts [now − 5 min,
 * now] in ms; PayPulse counts whole seconds, the current one and the 299 before it.
 */
export function expectedIn5m(traffic: Traffic, seedLane: boolean, channel: string, nowMs: number): number {
  const fromMs = seedLane ? nowMs - 300_000 - 1 : (Math.floor(nowMs / 1000) - 299) * 1000 - 1;
  return eventsWithin(traffic, channel, fromMs, seedLane ? nowMs : Math.floor(nowMs / 1000) * 1000 + 999);
}
