// Each row's top failure codes with their share: from the channel's newest failures in a window (one store
// read of at most `failuresForCodes` a channel), counted as the alerts' evidence counts them. Kept a few
// seconds per channel and window, so every open dashboard together costs one read per channel per interval,
// and a channel without a failure in the snapshot's window costs none.
import { failuresForCodes, topCodes } from '../alerts/evidence.js';
import { BoundedLru } from '../boundedLru.js';
import type { Clock } from '../clock.js';
import type { HealthSnapshot } from '../stats/healthSnapshot.js';
import type { FailedRequest } from '../types.js';

/** Codes a row shows: enough to name an incident, few enough to read at a glance. */
export const rowCodes = 3;
const keepMs = 5_000;
const keptChannels = 5_000;

export interface CodeShare {
  code: string;
  count: number;
  /** Of the failures read (`failures`). */
  share: number;
}

export interface ChannelCodes {
  /** Failures the shares are of: every failure of the window, or its newest `failuresForCodes` when `sampled`. */
  failures: number;
  sampled: boolean;
  codes: CodeShare[];
}

export type FailuresRead = (channel: string, query: { window: string; limit: number }) => Promise<FailedRequest[]>;

export function codesOf(failures: FailedRequest[]): ChannelCodes {
  const codes = topCodes(failures).slice(0, rowCodes).map((c) => ({ ...c, share: c.count / failures.length }));
  return { failures: failures.length, sampled: failures.length >= failuresForCodes, codes };
}

const none: ChannelCodes = { failures: 0, sampled: false, codes: [] };

export function createTopCodes(read: FailuresRead, latest: () => HealthSnapshot | undefined, clock: Clock) {
  const kept = new BoundedLru<Promise<ChannelCodes>>(clock, keptChannels);
  return {
    /** Codes of each channel over `window`; a channel unknown to the snapshot, or without failures in it, has none. */
    async of(channels: string[], window: string): Promise<Record<string, ChannelCodes>> {
      const snapshot = latest();
      const answers = channels.map((channel) => {
        const rate = snapshot?.channels.get(channel)?.rates[window];
        if (!rate || rate.failure === 0) return Promise.resolve(none);
        const key = `${window}\u0000${channel}`;
        let answer = kept.get(key);
        if (!answer) {
          answer = read(channel, { window, limit: failuresForCodes }).then(codesOf);
          // A failed read is not kept: the next request tries again.
          answer.catch(() => kept.delete(key));
          kept.set(key, answer, keepMs);
        }
        return answer;
      });
      const settled = await Promise.all(answers);
      return Object.fromEntries(channels.map((channel, i) => [channel, settled[i]!]));
    },
  };
}
