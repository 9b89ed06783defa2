// Keys of the success-rate engine. Each channel's keys share the prefix `<ns>:{<channel>}:`; the channel
// scripts append these suffixes (the Lua reads the prefix from KEYS[1], like BullMQ's scripts do):
//   lh:<shard>, lm:<period>, lsplits  ledger: hash bits + request id → state; shards written in the
//                                   period; the shards' layout (buckets)
//   b:<series>:<minute>             per-second success/failure counters   (buckets)
//   z:<series>:all|succ, st         the classic sorted sets, started marks (zset)
//   p:<series>:<minute>             per-second started/open-pending counters
//   pend, pinfo                     pending requests: deadline, and hash bits and series for the sweep
//   n:<series>                      newest terminal outcomes (last-N)     (zset)
//   d:<series>:<second>             one second's outcomes in order (last-N)  (buckets)
//   fail                            newest failed requests (drill-down)   (zset)
//   fl:<second>                     one second's failed requests (drill-down)  (buckets)
//   seen                            the channel's dims series → last seen ms, for every process
//                                   (seriesMark-1.lua, seriesList-1.lua)
// Every key gets a TTL when written.
import { namespacePrefix, slotPrefix } from './index.js';

export function channelPrefix(namespace: string, channel: string): string {
  return slotPrefix(namespace, channel);
}

/** Sorted set of channel → last seen (ms), for `rates()` over every channel. */
export function channelsKey(namespace: string): string {
  return `${namespacePrefix(namespace)}channels`;
}

/** `<id>:<startedAt>` of the store's epoch: it lives as long as the data, so an emptied Redis has none. */
export function epochKey(namespace: string): string {
  return `${namespacePrefix(namespace)}epoch`;
}
