// Publishes a `rates` event on the hub for every health snapshot (pulse.snapshots, one per process and
// interval), and a `store` event when the snapshot stops or starts reading: the stream reads no store of its
// own. A `rates` event lists channels worst first; past the page size it holds the stream's page (the worst
// streamPageChannels) and a summary by state, so an event stays small whatever the number of channels (the
// page searches the rest through GET /v1/channels).
import type { HealthSnapshots } from '../../stats/healthSnapshot.js';
import type { ChannelPages } from '../routes/channelPages.js';
import type { EventHub } from './eventHub.js';

export interface RatesTicker {
  /** Refreshes the snapshot now and publishes it; tests call it instead of waiting for the timer. */
  tick(): Promise<void>;
  stop(): void;
}

export function startRatesTicker(options: { snapshots: HealthSnapshots; hub: EventHub; pages: ChannelPages }): RatesTicker {
  const { snapshots, hub, pages } = options;
  const unsubscribe = snapshots.onSnapshot((snapshot) => hub.publish('rates', pages.ratesEvent(snapshot)));
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
