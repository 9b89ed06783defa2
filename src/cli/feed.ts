// Feeds simulated traffic into a sink on the real clock: the demo feeds its own service's pulse, and
// `paypulse simulate --target` feeds a remote service over HTTP. Each tick sends what the simulator
// produced since the previous tick, so the volume follows the simulator and not the tick rate.
import type { Clock } from '../clock.js';
import type { Outcome, PulseLogger, RecordManyResult } from '../types.js';

export interface TrafficSource {
  between(fromMs: number, toMs: number): Outcome[];
}

export type OutcomeSink = (outcomes: Outcome[]) => Promise<RecordManyResult>;

export interface FeedOptions {
  traffic: TrafficSource;
  sink: OutcomeSink;
  clock: Clock;
  /** Default 250 ms: the stream publishes every second, so four batches a second keep the chart smooth. */
  tickMs?: number;
  /** Where the first tick starts; default now. The demo passes the end of its back-fill so nothing is skipped. */
  fromMs?: number;
  logger?: PulseLogger;
  /**
   * Told once when the sink starts failing (with the next try's delay) and once when it takes a batch again.
   * While it fails the feed backs off (1 s doubling to 30 s) and skips the traffic of the pause, so an outage
   * of the target is one line, not one error a tick.
   */
  onSinkState?: (state: { up: false; error: unknown; retryInMs: number } | { up: true; downForMs: number }) => void;
}

export interface Feed {
  readonly sent: number;
  readonly failedBatches: number;
  /** Outcomes of the spans skipped while the sink was failing. */
  readonly skipped: number;
  /** Stops the timer and waits for the batch in flight. */
  stop(): Promise<void>;
}

/** Sends [fromMs, toMs) in one-minute slices, e.g. the demo's back-filled hour; resolves with the outcomes sent. */
export async function feedRange(traffic: TrafficSource, sink: OutcomeSink, fromMs: number, toMs: number): Promise<number> {
  let sent = 0;
  for (let from = fromMs; from < toMs; from += 60_000) {
    const batch = traffic.between(from, Math.min(from + 60_000, toMs));
    if (batch.length > 0) await sink(batch);
    sent += batch.length;
  }
  return sent;
}

const firstRetryMs = 1_000;
const longestRetryMs = 30_000;

export function startFeed({ traffic, sink, clock, tickMs = 250, fromMs, logger, onSinkState }: FeedOptions): Feed {
  let last = fromMs ?? clock.now();
  let sent = 0;
  let failedBatches = 0;
  let skipped = 0;
  let inFlight: Promise<void> | null = null;
  /** Set while the sink fails: when it began, the current delay, and when to try again. */
  let down: { sinceMs: number; retryMs: number; nextTryMs: number } | null = null;

  const failed = (err: unknown, outcomes: number, now: number) => {
    failedBatches += 1;
    if (down) {
      down.retryMs = Math.min(down.retryMs * 2, longestRetryMs);
      down.nextTryMs = now + down.retryMs;
      return;
    }
    down = { sinceMs: now, retryMs: firstRetryMs, nextTryMs: now + firstRetryMs };
    if (onSinkState) onSinkState({ up: false, error: err, retryInMs: firstRetryMs });
    else logger?.warn({ err, outcomes }, 'feed: a batch was not delivered');
  };

  const tick = () => {
    // A sink slower than the tick rate gets bigger batches, never overlapping ones.
    if (inFlight) return;
    const now = clock.now();
    const batch = traffic.between(last, now);
    last = now;
    if (batch.length === 0) return;
    if (down && now < down.nextTryMs) {
      skipped += batch.length;
      return;
    }
    inFlight = sink(batch)
      .then(() => {
        sent += batch.length;
        if (down) onSinkState?.({ up: true, downForMs: clock.now() - down.sinceMs });
        down = null;
      })
      .catch((err: unknown) => failed(err, batch.length, clock.now()))
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(tick, tickMs);

  return {
    get sent() {
      return sent;
    },
    get failedBatches() {
      return failedBatches;
    },
    get skipped() {
      return skipped;
    },
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
