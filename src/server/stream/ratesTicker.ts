// Publishes a `rates` event on the hub every interval: every channel × every configured window.
// A slow store makes a tick last longer than the interval; a tick due while the previous one still runs is
// skipped, so a struggling Redis does not get a pile of concurrent reads.
import type { Clock } from '../../clock.js';
import type { PulseLogger, SuccessRates, Rate } from '../../types.js';
import type { EventHub } from './eventHub.js';

export interface RatesTicker {
  /** Reads and publishes once now; tests call it instead of waiting for the timer. */
  tick(): Promise<void>;
  stop(): void;
}

export async function readAllRates(pulse: Pick<SuccessRates, 'rates' | 'windows'>): Promise<Rate[]> {
  const perWindow = await Promise.all(pulse.windows.map((window) => pulse.rates({ window })));
  return perWindow.flat();
}

export function startRatesTicker(options: {
  pulse: Pick<SuccessRates, 'rates' | 'windows'>;
  hub: EventHub;
  clock: Clock;
  intervalMs: number;
  logger?: PulseLogger;
}): RatesTicker {
  const { pulse, hub, clock, intervalMs, logger } = options;
  let running: Promise<void> | null = null;
  let failing = false;

  async function publishRates(): Promise<void> {
    try {
      const rates = await readAllRates(pulse);
      hub.publish('rates', { asOf: clock.now(), rates });
      if (failing) logger?.info({}, 'stream: rates readable again');
      failing = false;
    } catch (err) {
      // Logged once per outage, not once a second.
      if (!failing) logger?.warn({ err }, 'stream: reading rates failed; retrying every tick');
      failing = true;
    }
  }

  function tick(): Promise<void> {
    running ??= publishRates().finally(() => {
      running = null;
    });
    return running;
  }

  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
