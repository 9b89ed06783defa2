// Publishes a `rates` event on the hub for every health snapshot (pulse.snapshots, one per process and
// interval), and a `store` event when the snapshot stops or starts reading: the stream reads no store of its own. Past `maxChannels` the event is a summary, the worst
// channels only, so an event stays small whatever the number of channels (the page searches the rest
// through GET /v1/channels).
import type { HealthSnapshot, HealthSnapshots } from '../../stats/healthSnapshot.js';
import type { Rate } from '../../types.js';
import { configuredRates, worstFirst } from '../routes/channelPages.js';
import type { EventHub } from './eventHub.js';

/** Channels a `rates` event carries in full; ≈ 1 kB a channel with four windows. */
export const streamMaxChannels = 200;

export interface RatesTicker {
  /** Refreshes the snapshot now and publishes it; tests call it instead of waiting for the timer. */
  tick(): Promise<void>;
  stop(): void;
}

export function ratesEvent(snapshot: HealthSnapshot, rankWindow: string, windows: readonly string[], maxChannels = streamMaxChannels) {
  const all = [...snapshot.channels.values()];
  const shown = all.length > maxChannels ? worstFirst(all, rankWindow).slice(0, maxChannels) : all;
  const rates: Rate[] = shown.flatMap((health) => Object.values(configuredRates(health, windows)));
  return { asOf: snapshot.asOf, rates, channels: all.length, truncated: shown.length < all.length };
}

export function startRatesTicker(options: { snapshots: HealthSnapshots; hub: EventHub; rankWindow: string; windows: readonly string[] }): RatesTicker {
  const { snapshots, hub, rankWindow, windows } = options;
  const unsubscribe = snapshots.onSnapshot((snapshot) => hub.publish('rates', ratesEvent(snapshot, rankWindow, windows)));
  // No `rates` event comes while the store cannot be read: a `store` event tells the page why, once each way.
  const unsubscribeStore = snapshots.onFailingChange((status) =>
    hub.publish('store', status.failing ? { reachable: false, since: status.failingSince, reason: status.lastError } : { reachable: true, asOf: status.lastAsOf }),
  );
  return {
    tick: async () => {
      await snapshots.refresh();
    },
    stop: () => {
      unsubscribe();
      unsubscribeStore();
    },
  };
}
